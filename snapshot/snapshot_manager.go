package snapshot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/lakesql/lakesql/internal/storage"
)

// SnapshotManager reads the snapshots of one branch of a table (Java:
// org.apache.paimon.utils.SnapshotManager). Its Storage is rooted at the
// table directory. It is safe for concurrent use.
//
// When the storage can Stat (storage.Stater), decoded snapshots are cached
// by id and revalidated by each read with one Stat (size and modification
// time: an id re-used after a rollback is a different file), and LatestID
// starts from the last latest id it found (two existence checks instead of
// reading the LATEST hint). Cached snapshots are shared and must not be
// modified.
type SnapshotManager struct {
	st     storage.Storage
	branch string
	dir    string
	prefix string // snapshot- (changelog- for the long-lived changelogs)
	cache  *snapshotCache
}

// snapshotCache holds decoded snapshots with the file info they were read
// with, and the last latest id found.
type snapshotCache struct {
	mu     sync.Mutex
	byID   map[SnapshotID]cachedSnapshot
	latest SnapshotID
	// confirmed is the latest snapshot as last confirmed by its files,
	// with the snapshot folder's version (storage.DirWatcher) read before
	// that check: while the version is the same it is still the latest.
	confirmed struct {
		version uint64
		s       *Snapshot
	}
}

type cachedSnapshot struct {
	s    *Snapshot
	info storage.ObjectInfo
}

// maxCachedSnapshots bounds the cache (the newest ids are the ones read).
const maxCachedSnapshots = 256

func (c *snapshotCache) get(id SnapshotID, info storage.ObjectInfo) *Snapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byID[id]
	if !ok || e.info.Size != info.Size || !e.info.ModTime.Equal(info.ModTime) {
		return nil
	}
	return e.s
}

func (c *snapshotCache) put(id SnapshotID, s *Snapshot, info storage.ObjectInfo) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.byID) >= maxCachedSnapshots {
		oldest := id
		for k := range c.byID {
			oldest = min(oldest, k)
		}
		delete(c.byID, oldest)
	}
	c.byID[id] = cachedSnapshot{s: s, info: info}
}

// NewSnapshotManager returns the snapshot manager of branch ("" or
// MainBranch for the main branch) of the table rooted at st.
func NewSnapshotManager(st storage.Storage, branch string) *SnapshotManager {
	if IsMainBranch(branch) {
		branch = MainBranch
	}
	return newSnapshotManager(st, branch, SnapshotDir(branch), snapshotPrefix)
}

func newSnapshotManager(st storage.Storage, branch, dir, prefix string) *SnapshotManager {
	m := &SnapshotManager{st: st, branch: branch, dir: dir, prefix: prefix}
	if _, ok := st.(storage.Stater); ok {
		m.cache = &snapshotCache{byID: map[SnapshotID]cachedSnapshot{}}
	}
	return m
}

// Branch returns the branch name (MainBranch for the main branch).
func (m *SnapshotManager) Branch() string { return m.branch }

// Storage returns the table-root storage.
func (m *SnapshotManager) Storage() storage.Storage { return m.st }

// Path returns the path of snapshot id, relative to the table root.
func (m *SnapshotManager) Path(id SnapshotID) string { return join(m.dir, m.prefix+id.String()) }

// Exists reports whether snapshot id exists.
func (m *SnapshotManager) Exists(ctx context.Context, id SnapshotID) (bool, error) {
	ok, err := m.st.Exists(ctx, m.Path(id))
	if err != nil {
		return false, fmt.Errorf("snapshot: check snapshot %d: %w", id, err)
	}
	return ok, nil
}

// Snapshot reads snapshot id. A missing snapshot gives an error wrapping
// ErrSnapshotNotFound that says which ids exist.
func (m *SnapshotManager) Snapshot(ctx context.Context, id SnapshotID) (*Snapshot, error) {
	s, err := m.read(ctx, id)
	if errors.Is(err, storage.ErrNotExist) {
		return nil, m.notFound(ctx, id)
	}
	return s, err
}

// read reads and decodes snapshot id; a missing file gives an error
// wrapping storage.ErrNotExist.
func (m *SnapshotManager) read(ctx context.Context, id SnapshotID) (*Snapshot, error) {
	p := m.Path(id)
	var info storage.ObjectInfo
	if m.cache != nil {
		var err error
		if info, err = m.st.(storage.Stater).Stat(ctx, p); err != nil {
			return nil, fmt.Errorf("snapshot: read %s: %w", p, err)
		}
		if s := m.cache.get(id, info); s != nil {
			return s, nil
		}
	}
	data, err := m.st.ReadAll(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("snapshot: read %s: %w", p, err)
	}
	s, err := DecodeSnapshot(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	if s.ID != id {
		return nil, fmt.Errorf("%w: %s holds snapshot id %d", ErrCorrupt, p, s.ID)
	}
	if m.cache != nil {
		// Stat before the read: a file rewritten in between is read again
		// next time (its info no longer matches).
		m.cache.put(id, s, info)
	}
	return s, nil
}

// notFound builds the error for a missing snapshot id, naming the range of
// ids that exist.
func (m *SnapshotManager) notFound(ctx context.Context, id SnapshotID) error {
	ids, err := m.List(ctx)
	if err != nil {
		return fmt.Errorf("%w: snapshot %d of branch %s (listing failed: %v)", ErrSnapshotNotFound, id, m.branch, err)
	}
	if len(ids) == 0 {
		return fmt.Errorf("%w: snapshot %d: branch %s has no snapshots", ErrSnapshotNotFound, id, m.branch)
	}
	return fmt.Errorf("%w: snapshot %d: branch %s has snapshots %d..%d",
		ErrSnapshotNotFound, id, m.branch, ids[0], ids[len(ids)-1])
}

// List returns the ids of all snapshot files, ascending.
func (m *SnapshotManager) List(ctx context.Context) ([]SnapshotID, error) {
	var ids []SnapshotID
	err := listNames(ctx, m.st, m.dir, m.prefix, func(name string, _ storage.ObjectInfo) {
		if n, ok := parseVersioned(name, m.prefix); ok {
			ids = append(ids, SnapshotID(n))
		}
	})
	if err != nil {
		return nil, fmt.Errorf("snapshot: list snapshots of branch %s: %w", m.branch, err)
	}
	slices.Sort(ids)
	return ids, nil
}

// listNames calls fn for every object directly inside dir whose name
// starts with prefix.
func listNames(ctx context.Context, st storage.Storage, dir, prefix string, fn func(name string, info storage.ObjectInfo)) error {
	dirPrefix := ""
	if dir != "" {
		dirPrefix = dir + "/"
	}
	for info, err := range st.List(ctx, dirPrefix+prefix) {
		if err != nil {
			return err
		}
		rest, ok := strings.CutPrefix(info.Path, dirPrefix)
		if !ok || !strings.HasPrefix(rest, prefix) || strings.Contains(rest, "/") {
			continue
		}
		fn(rest, info)
	}
	return nil
}

// readHint reads a hint file; ok is false when it is missing or does not
// hold a positive id (hints are only hints).
func (m *SnapshotManager) readHint(ctx context.Context, hint string) (SnapshotID, bool, error) {
	data, err := m.st.ReadAll(ctx, join(m.dir, hint))
	if err != nil {
		if errors.Is(err, storage.ErrNotExist) {
			return 0, false, nil
		}
		return 0, false, fmt.Errorf("snapshot: read hint %s: %w", join(m.dir, hint), err)
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(data)), 10, 64)
	if err != nil || n <= 0 {
		return 0, false, nil
	}
	return SnapshotID(n), true, nil
}

// LatestID returns the id of the latest snapshot: the LATEST hint if
// snapshot-hint exists and snapshot-(hint+1) does not, else the largest id
// listed. ok is false when the branch has no snapshot.
func (m *SnapshotManager) LatestID(ctx context.Context) (id SnapshotID, ok bool, err error) {
	if id, _, ok, err := m.latestFromLast(ctx); ok || err != nil {
		return id, ok, err
	}
	id, ok, err = m.latestID(ctx)
	if ok && err == nil && m.cache != nil {
		m.cache.mu.Lock()
		m.cache.latest = id
		m.cache.mu.Unlock()
	}
	return id, ok, err
}

// latestFromLast confirms the last latest id found: it is still the latest
// when it exists and the next id does not (ids are consecutive; expiration
// removes only older ones, and after a rollback the last one is gone or the
// next check fails). ok is false when this cannot tell. It returns the
// snapshot too when the cached one is still the file's (nil otherwise).
func (m *SnapshotManager) latestFromLast(ctx context.Context) (SnapshotID, *Snapshot, bool, error) {
	if m.cache == nil {
		return 0, nil, false, nil
	}
	var version uint64
	watched := false
	if w, ok := m.st.(storage.DirWatcher); ok {
		version, watched = w.DirVersion(ctx, m.dir)
	}
	m.cache.mu.Lock()
	last := m.cache.latest
	confirmed := m.cache.confirmed
	m.cache.mu.Unlock()
	if watched && confirmed.s != nil && confirmed.version == version {
		return confirmed.s.ID, confirmed.s, true, nil
	}
	if last <= 0 {
		return 0, nil, false, nil
	}
	next, err := m.Exists(ctx, last+1)
	if err != nil || next {
		return 0, nil, false, err
	}
	info, err := m.st.(storage.Stater).Stat(ctx, m.Path(last))
	if errors.Is(err, storage.ErrNotExist) {
		return 0, nil, false, nil
	}
	if err != nil {
		return 0, nil, false, fmt.Errorf("snapshot: check snapshot %d: %w", last, err)
	}
	s := m.cache.get(last, info)
	if watched && s != nil {
		m.cache.mu.Lock()
		m.cache.confirmed.version, m.cache.confirmed.s = version, s
		m.cache.mu.Unlock()
	}
	return last, s, true, nil
}

func (m *SnapshotManager) latestID(ctx context.Context) (id SnapshotID, ok bool, err error) {
	hint, ok, err := m.readHint(ctx, LatestHint)
	if err != nil {
		return 0, false, err
	}
	if ok {
		next, err := m.Exists(ctx, hint+1)
		if err != nil {
			return 0, false, err
		}
		if !next {
			cur, err := m.Exists(ctx, hint)
			if err != nil {
				return 0, false, err
			}
			if cur {
				return hint, true, nil
			}
		}
	}
	ids, err := m.List(ctx)
	if err != nil || len(ids) == 0 {
		return 0, false, err
	}
	return ids[len(ids)-1], true, nil
}

// EarliestID returns the id of the earliest snapshot: the EARLIEST hint if
// that snapshot exists, else the smallest id listed. ok is false when the
// branch has no snapshot.
func (m *SnapshotManager) EarliestID(ctx context.Context) (id SnapshotID, ok bool, err error) {
	hint, ok, err := m.readHint(ctx, EarliestHint)
	if err != nil {
		return 0, false, err
	}
	if ok {
		cur, err := m.Exists(ctx, hint)
		if err != nil {
			return 0, false, err
		}
		if cur {
			return hint, true, nil
		}
	}
	ids, err := m.List(ctx)
	if err != nil || len(ids) == 0 {
		return 0, false, err
	}
	return ids[0], true, nil
}

// Latest reads the latest snapshot; ErrSnapshotNotFound when there is
// none.
func (m *SnapshotManager) Latest(ctx context.Context) (*Snapshot, error) {
	if _, s, ok, err := m.latestFromLast(ctx); err != nil || ok && s != nil {
		return s, err
	}
	return m.readEnd(ctx, m.LatestID, "latest")
}

// Earliest reads the earliest snapshot; ErrSnapshotNotFound when there is
// none.
func (m *SnapshotManager) Earliest(ctx context.Context) (*Snapshot, error) {
	return m.readEnd(ctx, m.EarliestID, "earliest")
}

func (m *SnapshotManager) readEnd(ctx context.Context, find func(context.Context) (SnapshotID, bool, error), what string) (*Snapshot, error) {
	// A concurrent expiration or commit can move the ends between finding
	// the id and reading it: retry a few times before giving up.
	for attempt := 0; ; attempt++ {
		id, ok, err := find(ctx)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("%w: branch %s has no snapshots", ErrSnapshotNotFound, m.branch)
		}
		s, err := m.read(ctx, id)
		if errors.Is(err, storage.ErrNotExist) && attempt < 3 {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("snapshot: read %s snapshot: %w", what, err)
		}
		return s, nil
	}
}

// EarlierOrEqualTime returns the latest snapshot committed at or before
// millis (epoch milliseconds), like Java's
// SnapshotManager.earlierOrEqualTimeMills but by binary search over the ids
// that exist, so gaps are tolerated. Commit times are assumed to grow with
// ids. When the earliest snapshot is newer than millis (or there is no
// snapshot) the error wraps ErrSnapshotNotFound.
func (m *SnapshotManager) EarlierOrEqualTime(ctx context.Context, millis int64) (*Snapshot, error) {
	ids, err := m.List(ctx)
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("%w: no snapshot at or before %s: branch %s has no snapshots",
			ErrSnapshotNotFound, formatMillis(millis), m.branch)
	}
	first, err := m.Snapshot(ctx, ids[0])
	if err != nil {
		return nil, err
	}
	if first.TimeMillis > millis {
		return nil, fmt.Errorf("%w: no snapshot at or before %s: the earliest, %d, was committed at %s",
			ErrSnapshotNotFound, formatMillis(millis), first.ID, formatMillis(first.TimeMillis))
	}
	best := first
	lo, hi := 1, len(ids)-1
	for lo <= hi {
		mid := lo + (hi-lo)/2
		s, err := m.Snapshot(ctx, ids[mid])
		if err != nil {
			return nil, err
		}
		switch {
		case s.TimeMillis > millis:
			hi = mid - 1
		case s.TimeMillis < millis:
			best = s
			lo = mid + 1
		default:
			// Several snapshots can share a millisecond (an APPEND and
			// its COMPACT): keep searching right for the last one.
			best = s
			lo = mid + 1
		}
	}
	return best, nil
}

func formatMillis(ms int64) string {
	return fmt.Sprintf("%d (%s)", ms, time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05.000 UTC"))
}

// All reads every snapshot, ascending by id (the rows of $snapshots).
// Snapshots expired between listing and reading are skipped. Reads run
// with a bounded fan-out.
func (m *SnapshotManager) All(ctx context.Context) ([]*Snapshot, error) {
	ids, err := m.List(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*Snapshot, len(ids))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for i, id := range ids {
		g.Go(func() error {
			s, err := m.read(gctx, id)
			if errors.Is(err, storage.ErrNotExist) {
				return nil
			}
			out[i] = s
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return slices.DeleteFunc(out, func(s *Snapshot) bool { return s == nil }), nil
}
