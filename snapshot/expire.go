package snapshot

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// ExpireConfig configures snapshot expiration (Java: ExpireConfig, filled
// from snapshot.num-retained.min/max, snapshot.time-retained,
// snapshot.expire.limit and the changelog.* counterparts).
type ExpireConfig struct {
	// RetainMin snapshots are always kept (≥ 1).
	RetainMin int
	// RetainMax snapshots at most are kept (≥ RetainMin).
	RetainMax int
	// TimeRetained keeps every snapshot committed within it.
	TimeRetained time.Duration
	// MaxDeletes bounds the snapshots one run expires.
	MaxDeletes int
	// ChangelogDecoupled keeps the changelog of expired snapshots in
	// changelog/changelog-<id> for the changelog retention
	// (changelog.num-retained.* / changelog.time-retained longer than the
	// snapshot's); ExpireChangelogs expires those.
	ChangelogDecoupled bool
	// ProduceChangelog is changelog-producer != none (with a decoupled
	// changelog, the data files of APPEND commits are then not the
	// changelog and expire with the snapshots).
	ProduceChangelog bool
	// Changelog retention (only with ChangelogDecoupled).
	ChangelogRetainMin, ChangelogRetainMax int
	ChangelogTimeRetained                  time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// ExpireResult says what an expiration did.
type ExpireResult struct {
	// Snapshots is the number of snapshot files expired (Java's return
	// value: the size of the expired id range).
	Snapshots int
	// Changelogs is the number of long-lived changelogs expired.
	Changelogs int
	// Earliest is the earliest snapshot after the run (0 when none).
	Earliest SnapshotID
	CleanStats
}

// maintenanceLocks serializes expiration, tag deletion and rollback of one
// table branch within the process (other processes may run them at the
// same time; every step tolerates files that are already gone).
var maintenanceLocks sync.Map // table URL + branch → *sync.Mutex

func lockMaintenance(st storage.Storage, branch string) func() {
	v, _ := maintenanceLocks.LoadOrStore(st.URL()+"|"+branch, &sync.Mutex{})
	mu := v.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}

func (c *ExpireConfig) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// ExpireSnapshots expires the oldest snapshots of the branch as Java's
// ExpireSnapshotsImpl.expire does: the ids in [max(latest-RetainMax+1,
// earliest), min(latest-RetainMin+1, the smallest consumer next snapshot,
// earliest+MaxDeletes)), stopping at the first one younger than
// TimeRetained. It deletes, in order: the data files the expired snapshots'
// successors deleted (unless the previous tag, or any snapshot or tag of
// another branch, still holds them), the changelog files of the expired
// snapshots, the manifests and lists no retained snapshot or tag uses, the
// snapshot files, and writes the EARLIEST hint. A tag keeps its snapshot's
// files after the snapshot expired.
func (t *Table) ExpireSnapshots(ctx context.Context, cfg ExpireConfig) (ExpireResult, error) {
	var res ExpireResult
	if cfg.RetainMin < 1 {
		return res, fmt.Errorf("%w: snapshot.num-retained.min must be at least 1, got %d", ErrInvalidConfig, cfg.RetainMin)
	}
	if cfg.RetainMax < cfg.RetainMin {
		return res, fmt.Errorf("%w: retainMax (%d) must not be less than retainMin (%d)", ErrInvalidConfig, cfg.RetainMax, cfg.RetainMin)
	}
	if cfg.MaxDeletes < 1 {
		return res, fmt.Errorf("%w: the number of snapshots to expire at a time must be at least 1, got %d", ErrInvalidConfig, cfg.MaxDeletes)
	}
	defer lockMaintenance(t.store, t.branch)()
	sm := t.snapshots
	latest, ok, err := sm.LatestID(ctx)
	if err != nil || !ok {
		return res, err
	}
	earliest, ok, err := sm.EarliestID(ctx)
	if err != nil || !ok {
		return res, err
	}
	res.Earliest = earliest
	lo := max(int64(latest)-int64(cfg.RetainMax)+1, int64(earliest))
	maxExclusive := int64(latest) - int64(cfg.RetainMin) + 1
	if next, ok, err := NewConsumerManager(t.store, t.branch).MinNextSnapshot(ctx); err != nil {
		return res, err
	} else if ok {
		maxExclusive = min(maxExclusive, int64(next))
	}
	maxExclusive = min(maxExclusive, int64(earliest)+int64(cfg.MaxDeletes))
	olderThan := cfg.now().Add(-cfg.TimeRetained).UnixMilli()
	end := maxExclusive
	for id := lo; id < maxExclusive; id++ {
		s, err := sm.read(ctx, SnapshotID(id))
		if isNotExist(err) {
			continue
		}
		if err != nil {
			return res, err
		}
		if olderThan <= s.TimeMillis {
			end = id
			break
		}
	}
	return t.expireUntil(ctx, cfg, earliest, SnapshotID(end))
}

// expireUntil expires the snapshots in [earliest, end) (Java:
// ExpireSnapshotsImpl.expireUntil).
func (t *Table) expireUntil(ctx context.Context, cfg ExpireConfig, earliest, end SnapshotID) (ExpireResult, error) {
	res := ExpireResult{Earliest: earliest}
	sm := t.snapshots
	if end <= earliest {
		// Nothing to expire: make sure the EARLIEST hint exists.
		if _, ok, err := sm.readHint(ctx, EarliestHint); err == nil && !ok {
			_ = sm.writeHintOf(ctx, EarliestHint, earliest)
		}
		return res, nil
	}
	begin := earliest
	for id := end - 1; id >= earliest; id-- {
		ok, err := sm.Exists(ctx, id)
		if err != nil {
			return res, err
		}
		if !ok {
			begin = id + 1 // older ones are gone already
			break
		}
	}
	cc, err := t.newCleanContext(ctx)
	if err != nil {
		return res, err
	}
	d := cc.d

	// Data files deleted by snapshots (begin, end].
	for id := begin + 1; id <= end; id++ {
		s, err := sm.read(ctx, id)
		if isNotExist(err) {
			begin = id + 1
			continue
		}
		if err != nil {
			return res, err
		}
		skip, ok := cc.skipper(ctx, id)
		if !ok {
			continue // Java: skip cleaning this snapshot's files
		}
		if cfg.ChangelogDecoupled && !cfg.ProduceChangelog {
			// The data files of APPEND commits are the changelog: they
			// expire with the long-lived changelog.
			inner := skip
			skip = func(e *manifest.ManifestEntry) bool {
				return inner(e) || e.File.FileSource == nil || *e.File.FileSource == manifest.FileSourceAppend
			}
		}
		if err := d.cleanUnusedDataFiles(ctx, s.DeltaManifestList, skip); err != nil {
			return res, err
		}
	}

	// Changelog files of the expired snapshots.
	if !cfg.ChangelogDecoupled {
		for id := begin; id < end; id++ {
			s, err := sm.read(ctx, id)
			if isNotExist(err) {
				continue
			}
			if err != nil {
				return res, err
			}
			if s.ChangelogManifestList != nil {
				d.deleteAddedFiles(ctx, *s.ChangelogManifestList)
			}
		}
	}

	// Manifests, lists and index files no retained snapshot or tag uses.
	endSnap, err := sm.read(ctx, end)
	if isNotExist(err) {
		res.CleanStats = d.stats
		return res, nil // the end snapshot is gone: another run got here
	}
	if err != nil {
		return res, err
	}
	skipping := maps.Clone(cc.foreign.metadata)
	keep := append(skippingTags(cc.tagged, begin, end), endSnap)
	if err := d.manifestSkippingSet(ctx, keep, skipping); err == nil {
		dataLists := !cfg.ChangelogDecoupled || cfg.ProduceChangelog
		for id := begin; id < end; id++ {
			s, err := sm.read(ctx, id)
			if isNotExist(err) {
				continue
			}
			if err != nil {
				return res, err
			}
			if err := d.cleanUnusedManifests(ctx, s, skipping, dataLists, !cfg.ChangelogDecoupled); err != nil {
				return res, err
			}
		}
	}

	// The snapshot files, oldest first, then the hint.
	cm := NewChangelogManager(t.store, t.branch)
	for id := begin; id < end; id++ {
		if cfg.ChangelogDecoupled {
			s, err := sm.read(ctx, id)
			if isNotExist(err) {
				continue
			}
			if err != nil {
				return res, err
			}
			if err := cm.commit(ctx, s); err != nil {
				return res, err
			}
		}
		if err := t.store.Delete(ctx, sm.Path(id)); err != nil && !isNotExist(err) {
			return res, fmt.Errorf("snapshot: expire snapshot %d: %w", id, err)
		}
		res.Snapshots++
	}
	if err := sm.writeHintOf(ctx, EarliestHint, end); err != nil {
		return res, err
	}
	res.Earliest = end
	res.CleanStats = d.stats
	return res, nil
}

// previousSnapshot is the index of the last tagged snapshot with an id
// below id (tagged is sorted by id), or -1 (Java:
// SnapshotManager.findPreviousSnapshot).
func previousSnapshot(tagged []*Snapshot, id SnapshotID) int {
	i, _ := slices.BinarySearchFunc(tagged, id, func(s *Snapshot, id SnapshotID) int { return cmpID(s.ID, id) })
	return i - 1
}

// previousOrEqualSnapshot is the index of the last tagged snapshot with an
// id at most id, or -1.
func previousOrEqualSnapshot(tagged []*Snapshot, id SnapshotID) int {
	i, found := slices.BinarySearchFunc(tagged, id, func(s *Snapshot, id SnapshotID) int { return cmpID(s.ID, id) })
	if found {
		return i
	}
	return i - 1
}

func cmpID(a, b SnapshotID) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// skippingTags are the tagged snapshots whose metadata files expiring
// [begin, end) must keep: from the last tag at or before begin to the last
// tag before end (Java: ExpireSnapshotsImpl.findSkippingTags).
func skippingTags(tagged []*Snapshot, begin, end SnapshotID) []*Snapshot {
	var out []*Snapshot
	right := previousSnapshot(tagged, end)
	if right >= 0 {
		left := max(previousOrEqualSnapshot(tagged, begin), 0)
		out = append(out, tagged[left:right+1]...)
	}
	return out
}

// ExpireConfigFromOptions is the expiration configured by a table's
// options (Java: CoreOptions.expireConfig).
func ExpireConfigFromOptions(m schema.MaintenanceOptions, producer schema.ChangelogProducer) ExpireConfig {
	return ExpireConfig{
		RetainMin:             m.SnapshotNumRetainedMin,
		RetainMax:             m.SnapshotNumRetainedMax,
		TimeRetained:          m.SnapshotTimeRetained,
		MaxDeletes:            m.SnapshotExpireLimit,
		ChangelogDecoupled:    m.ChangelogDecoupled(),
		ProduceChangelog:      producer != "" && producer != schema.ChangelogProducerNone,
		ChangelogRetainMin:    m.ChangelogRetainMin(),
		ChangelogRetainMax:    m.ChangelogRetainMax(),
		ChangelogTimeRetained: m.ChangelogRetainTime(),
	}
}
