package storage

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// fileLocker is the file: commit lock: key K is an exclusive flock(2) on
// the file <dir>/<hex of sha-256 of K>.lock. The kernel releases it when
// its holder dies (kill -9 included), so a crashed writer never blocks
// the others. flock conflicts between two open files of one process too,
// so two servers in one process exclude each other as two processes do;
// a per-key channel makes the writers of one lock value queue without
// polling the file.
type fileLocker struct {
	dir     string
	timeout time.Duration

	mu    sync.Mutex
	turns map[string]chan struct{} // key → a one-slot turn of this process
}

func newFileLocker(dir string, timeout time.Duration) (*fileLocker, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("storage: commit lock file:%s: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("storage: commit lock file:%s: %w", abs, err)
	}
	return &fileLocker{dir: abs, timeout: timeout, turns: map[string]chan struct{}{}}, nil
}

func (l *fileLocker) String() string { return "file:" + l.dir }

// lockFile is the file that holds key's lock.
func (l *fileLocker) lockFile(key string) string {
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(l.dir, hex.EncodeToString(sum[:16])+".lock")
}

func (l *fileLocker) turn(key string) chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	t, ok := l.turns[key]
	if !ok {
		t = make(chan struct{}, 1)
		l.turns[key] = t
	}
	return t
}

func (l *fileLocker) Lock(ctx context.Context, key string) (func() error, error) {
	deadline := time.NewTimer(l.timeout)
	defer deadline.Stop()
	timedOut := func() error {
		return fmt.Errorf("%w: %s (key %s) held by another writer for %v (commit-lock-timeout)", ErrLockTimeout, l, key, l.timeout)
	}
	stop := lockWaitStop(ctx)
	stopped := func() error { return fmt.Errorf("%w: %s: the wait was stopped: %w", ErrLock, l, context.Canceled) }
	t := l.turn(key)
	select {
	case t <- struct{}{}:
	case <-deadline.C:
		return nil, timedOut()
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: %s: %w", ErrLock, l, ctx.Err())
	case <-stop:
		return nil, stopped()
	}
	name := l.lockFile(key)
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		<-t
		return nil, fmt.Errorf("%w: %s: %w", ErrLock, l, err)
	}
	fail := func(err error) (func() error, error) {
		f.Close()
		<-t
		return nil, err
	}
	for wait := time.Millisecond; ; wait = min(2*wait, 20*time.Millisecond) {
		held, err := tryFlock(f)
		if err != nil {
			return fail(fmt.Errorf("%w: %s: flock %s: %w", ErrLock, l, name, err))
		}
		if held {
			break
		}
		sleep := time.NewTimer(wait)
		select {
		case <-sleep.C:
		case <-deadline.C:
			sleep.Stop()
			return fail(timedOut())
		case <-ctx.Done():
			sleep.Stop()
			return fail(fmt.Errorf("%w: %s: %w", ErrLock, l, ctx.Err()))
		case <-stop:
			sleep.Stop()
			return fail(stopped())
		}
	}
	var once sync.Once
	return func() error {
		var err error
		once.Do(func() {
			// Closing the file releases the flock.
			err = errors.Join(unFlock(f), f.Close())
			<-t
		})
		return err
	}, nil
}
