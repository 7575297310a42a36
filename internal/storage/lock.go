package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"path"
	"strings"
	"time"

	"github.com/lakesql/lakesql/internal/metrics"
)

// A commit lock makes CreateIfNotExists atomic on a store that does not
// honour conditional create (an S3-compatible store that ignores
// If-None-Match: *): WithLock runs every CreateIfNotExists as "take the
// lock, check the path does not exist, write it, release", as Java
// Paimon's FileStoreCommitImpl publishes a snapshot under its catalog lock
// (lock.runWithLock(() -> !fileIO.exists(path) && write)). Every writer
// of the warehouse must use the same lock; then of N racers on one path
// exactly one succeeds, as the Storage contract asks.
//
// The lock's key is the folder of the created path relative to the
// warehouse root (db.db/t/snapshot, db.db/t/tag, _lakesql/transactions,
// …): racers on one path always share it, writers of different tables do
// not wait for each other. Servers that spell the warehouse differently
// (a relative path, a URL with other query parameters) agree on the keys.

// Sentinel errors of a commit lock.
var (
	// ErrLock is wrapped by every error of a commit lock that was not
	// taken: the operation it guarded did not run, nothing was written.
	ErrLock = errors.New("storage: commit lock not taken")
	// ErrLockTimeout (wrapping ErrLock) is returned when the lock stayed
	// held by another writer for the whole wait.
	ErrLockTimeout = fmt.Errorf("%w: lock wait timeout", ErrLock)
)

// Locker is a commit lock: mutual exclusion by key between every process
// that uses the same lock. Safe for concurrent use.
type Locker interface {
	// Lock waits until it holds key, its wait timeout passes (an error
	// wrapping ErrLockTimeout) or ctx ends, and returns the release. Every
	// error wraps ErrLock.
	Lock(ctx context.Context, key string) (unlock func() error, err error)
	// String is the lock as configured (file:/dir).
	String() string
}

type lockWaitStopKey struct{}

// WithLockWaitStop returns ctx under which a wait for a commit lock also
// ends when stop is closed (with an error wrapping ErrLock and
// context.Canceled). It is for a commit that runs detached from the
// statements it commits (context.WithoutCancel, so that a cancellation
// never leaves it half-done) but may still give up while it waits for the
// lock: nothing is written before the lock is taken.
func WithLockWaitStop(ctx context.Context, stop <-chan struct{}) context.Context {
	return context.WithValue(ctx, lockWaitStopKey{}, stop)
}

// lockWaitStop is ctx's WithLockWaitStop channel (nil: none, never ready).
func lockWaitStop(ctx context.Context) <-chan struct{} {
	stop, _ := ctx.Value(lockWaitStopKey{}).(<-chan struct{})
	return stop
}

// DefaultLockTimeout is how long a commit lock is waited for unless
// configured otherwise (MySQL's innodb_lock_wait_timeout default).
const DefaultLockTimeout = 50 * time.Second

// ParseLock reads a commit lock setting: "" or "none" (no lock: nil),
// or "file:DIR" (an OS file lock, flock(2), on a file per key in the
// folder DIR, which is created if missing: for servers on one host or on a
// shared filesystem whose flock works across hosts, such as NFSv4).
// timeout is the longest wait for the lock (0: DefaultLockTimeout).
func ParseLock(spec string, timeout time.Duration) (Locker, error) {
	dir, err := lockFolder(spec)
	if err != nil || dir == "" {
		return nil, err
	}
	if timeout <= 0 {
		timeout = DefaultLockTimeout
	}
	return newFileLocker(dir, timeout)
}

// CheckLock checks a commit lock setting's form (ParseLock) without
// touching the file system.
func CheckLock(spec string) error {
	_, err := lockFolder(spec)
	return err
}

// lockFolder is the folder of a file: lock ("" for none).
func lockFolder(spec string) (string, error) {
	spec = strings.TrimSpace(spec)
	switch {
	case spec == "" || strings.EqualFold(spec, "none"):
		return "", nil
	case strings.HasPrefix(spec, "file:"):
		dir := strings.TrimPrefix(spec, "file:")
		if strings.HasPrefix(dir, "//") {
			dir = strings.TrimPrefix(dir, "//") // file:///abs/dir
		}
		if dir == "" {
			return "", fmt.Errorf("storage: commit lock %q: want file:/path/to/lock-folder", spec)
		}
		return dir, nil
	}
	return "", fmt.Errorf("storage: commit lock %q: want none or file:/path/to/lock-folder", spec)
}

// WithLock wraps st so that CreateIfNotExists (of st and of its Subs) runs
// under l: the lock of the created path's folder is taken, the path
// checked and then created, and the lock released. Every other operation
// goes straight to st. URL is st's.
func WithLock(st Storage, l Locker) Storage { return &locked{st: st, l: l} }

type locked struct {
	st     Storage
	l      Locker
	prefix string // of this Sub, relative to the wrapped root
}

var (
	_ Storage         = (*locked)(nil)
	_ Stater          = (*locked)(nil)
	_ DirLister       = (*locked)(nil)
	_ DirMaker        = (*locked)(nil)
	_ EmptyDirRemover = (*locked)(nil)
)

func (s *locked) CreateIfNotExists(ctx context.Context, p string, data []byte) error {
	if err := checkPath(p); err != nil {
		return s.st.CreateIfNotExists(ctx, p, data) // the backend's own error
	}
	key := path.Dir(joinPath(s.prefix, p))
	start := time.Now()
	unlock, err := s.l.Lock(ctx, key)
	if err != nil {
		metrics.CommitLockFailures.Inc()
		return fmt.Errorf("storage: create %s: %w", p, err)
	}
	metrics.CommitLockWait.Observe(time.Since(start).Seconds())
	defer func() {
		if err := unlock(); err != nil {
			slog.Warn("commit lock: release failed", "lock", s.l.String(), "key", key, "err", err)
		}
	}()
	ok, err := s.st.Exists(ctx, p)
	if err != nil {
		return fmt.Errorf("storage: create %s: check it does not exist under the commit lock: %w", p, err)
	}
	if ok {
		return fmt.Errorf("storage: create %s: %w", p, ErrExist)
	}
	// The backend's own conditional create: atomic also against writers
	// without the lock where the store honours it.
	return s.st.CreateIfNotExists(ctx, p, data)
}

func (s *locked) Open(ctx context.Context, p string) (File, error) { return s.st.Open(ctx, p) }
func (s *locked) ReadAll(ctx context.Context, p string) ([]byte, error) {
	return s.st.ReadAll(ctx, p)
}
func (s *locked) Create(ctx context.Context, p string) (io.WriteCloser, error) {
	return s.st.Create(ctx, p)
}
func (s *locked) WriteAll(ctx context.Context, p string, data []byte) error {
	return s.st.WriteAll(ctx, p, data)
}
func (s *locked) Delete(ctx context.Context, p string) error { return s.st.Delete(ctx, p) }
func (s *locked) Exists(ctx context.Context, p string) (bool, error) {
	return s.st.Exists(ctx, p)
}
func (s *locked) List(ctx context.Context, prefix string) iter.Seq2[ObjectInfo, error] {
	return s.st.List(ctx, prefix)
}

func (s *locked) Stat(ctx context.Context, p string) (ObjectInfo, error) {
	st, ok := s.st.(Stater)
	if !ok {
		return ObjectInfo{}, fmt.Errorf("storage: stat %s: %s cannot", p, s.st.URL())
	}
	return st.Stat(ctx, p)
}

// ListTemps lists the temporary files of the locked store (TempLister),
// which orphan cleaning and the warehouse's clean-up delete.
func (s *locked) ListTemps(ctx context.Context, dir string, depth int) iter.Seq2[ObjectInfo, error] {
	return ListTempsTo(ctx, s.st, dir, depth)
}

func (s *locked) ListDirs(ctx context.Context, dir string) ([]string, error) {
	return ListDirs(ctx, s.st, dir)
}

func (s *locked) MkdirAll(ctx context.Context, dir string) error {
	if dm, ok := s.st.(DirMaker); ok {
		return dm.MkdirAll(ctx, dir)
	}
	return nil
}

func (s *locked) RemoveEmptyDirs(ctx context.Context, dir string) error {
	if r, ok := s.st.(EmptyDirRemover); ok {
		return r.RemoveEmptyDirs(ctx, dir)
	}
	return nil
}

func (s *locked) Sub(dir string) Storage {
	return &locked{st: s.st.Sub(dir), l: s.l, prefix: joinPath(s.prefix, dir)}
}

func (s *locked) URL() string  { return s.st.URL() }
func (s *locked) Close() error { return s.st.Close() }
