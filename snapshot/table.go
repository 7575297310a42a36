package snapshot

import (
	"context"
	"fmt"

	"golang.org/x/sync/errgroup"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// Table is a long-lived handle on one branch of a Paimon table: its storage
// (rooted at the table directory), its snapshot, schema, tag and branch
// managers, and the live-files scan over the process-wide manifest cache.
// It holds no snapshot or schema state of its own, so it never goes stale
// and is safe for concurrent use; readers (lsmread), writers (lsmwrite) and
// tools (inspect) all scan through it.
type Table struct {
	store     storage.Storage
	branch    string
	snapshots *SnapshotManager
	schemas   *SchemaManager
	tags      *TagManager
	branches  *BranchManager
}

// OpenTable returns the handle on branch ("" is the main branch) of the
// table rooted at st. It does no I/O.
func OpenTable(st storage.Storage, branch string) *Table {
	if branch == "" {
		branch = MainBranch
	}
	bm := NewBranchManager(st)
	return &Table{store: st, branch: branch, snapshots: bm.Snapshots(branch), schemas: bm.Schemas(branch), tags: bm.Tags(branch), branches: bm}
}

// Storage is the table's storage, rooted at the table directory.
func (t *Table) Storage() storage.Storage { return t.store }

// BranchName is the handle's branch.
func (t *Table) BranchName() string { return t.branch }

// Snapshots is the snapshot manager of the branch.
func (t *Table) Snapshots() *SnapshotManager { return t.snapshots }

// Schemas is the schema manager of the branch.
func (t *Table) Schemas() *SchemaManager { return t.schemas }

// Tags is the tag manager of the branch.
func (t *Table) Tags() *TagManager { return t.tags }

// Branches is the branch manager of the table.
func (t *Table) Branches() *BranchManager { return t.branches }

// ScanOptions select what a live-files scan reads.
type ScanOptions struct {
	// Lists are the manifest lists to read, in order; nil reads the
	// snapshot's base list then its delta list (ScanMode.ALL).
	Lists []string
	// KeepManifest, when not nil, skips manifests it rejects (partition
	// statistics, bucket range) before they are read.
	KeepManifest func(m *manifest.ManifestFileMeta) bool
	// KeepEntry, when not nil, drops entries it rejects. It must decide by
	// what an ADD and its DELETE share (partition, bucket, level, file):
	// a whole-snapshot scan (Lists nil) applies it to the cached live
	// entries, another scan to ADD and DELETE entries before the merge.
	// It is called in manifest order from one goroutine (it may keep
	// state).
	KeepEntry func(e *manifest.ManifestEntry) bool
}

// ScanStats count what a scan read.
type ScanStats struct {
	ManifestsTotal  int
	ManifestsPruned int
	// UnmatchedDeletes counts DELETE entries that matched no ADD entry
	// (normal for a delta read; a sign of damage in a whole snapshot).
	UnmatchedDeletes int
}

// manifestScanParallelism bounds the manifests a scan reads at once.
const manifestScanParallelism = manifestReadParallelism

// Scan returns the live ADD entries of snap (Java: FileStoreScan.plan):
// the manifests of opts.Lists (default: base then delta) read with a
// bounded fan-out through the manifest cache, filtered, and merged in
// order. The entries share cached memory and must not be modified.
func (t *Table) Scan(ctx context.Context, snap *Snapshot, opts ScanOptions) ([]manifest.ManifestEntry, ScanStats, error) {
	return Scan(ctx, t.store, snap, opts)
}

// Scan is Table.Scan on a table's storage.
func Scan(ctx context.Context, st storage.Storage, snap *Snapshot, opts ScanOptions) ([]manifest.ManifestEntry, ScanStats, error) {
	var stats ScanStats
	if snap == nil {
		return nil, stats, fmt.Errorf("snapshot: scan of a nil snapshot")
	}
	lists := opts.Lists
	if lists == nil {
		if snap.BaseManifestList != "" && snap.DeltaManifestList != "" {
			// The whole snapshot: filter its cached live set (live_cache.go);
			// on a merge error, the scan below reports it as before.
			if ls, err := cachedLiveSet(ctx, st, snap); err == nil {
				live, stats := ls.scan(opts)
				return live, stats, nil
			} else if ctx.Err() != nil {
				return nil, stats, ctx.Err()
			}
		}
		lists = []string{snap.BaseManifestList, snap.DeltaManifestList}
	}
	var metas []manifest.ManifestFileMeta
	for _, list := range lists {
		if list == "" {
			return nil, stats, fmt.Errorf("%w: snapshot %d: empty manifest list name", ErrCorrupt, snap.ID)
		}
		ms, err := CachedManifestList(ctx, st, list)
		if err != nil {
			return nil, stats, fmt.Errorf("snapshot %d: %w", snap.ID, err)
		}
		for i := range ms {
			stats.ManifestsTotal++
			if opts.KeepManifest != nil && !opts.KeepManifest(&ms[i]) {
				stats.ManifestsPruned++
				continue
			}
			metas = append(metas, ms[i])
		}
	}
	read := make([][]manifest.ManifestEntry, len(metas))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(manifestScanParallelism)
	for i := range metas {
		name := metas[i].FileName
		g.Go(func() error {
			es, err := CachedManifest(gctx, st, name)
			read[i] = es
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, stats, err
	}
	m := manifest.NewEntryMerger()
	for _, es := range read {
		for i := range es {
			if opts.KeepEntry != nil && !opts.KeepEntry(&es[i]) {
				continue
			}
			if err := m.Add(es[i]); err != nil {
				return nil, stats, err
			}
		}
	}
	live := m.LiveFiles()
	stats.UnmatchedDeletes = m.Len() - len(live)
	return live, stats, nil
}
