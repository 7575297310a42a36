package lsmwrite

import (
	"context"
	"fmt"

	"github.com/lakesql/lakesql/snapshot"
)

// maxLevel0Attempts bounds how often the level-0 compaction after a commit
// is recomputed when a concurrent commit got in its way.
const maxLevel0Attempts = 10

// needsLevel0Compaction reports whether a commit of this write must be
// followed by the compaction of its level-0 files: primary-key tables that
// need lookup (deletion vectors, first-row, ...) unless write-only, as
// Java's batch writers compact before prepareCommit returns.
func (w *TableWrite) needsLevel0Compaction() bool {
	return w.spec.pk && w.lookup.NeedLookup && !w.writeOnly
}

// compactLevel0After compacts the level-0 files of the buckets this write
// touched, on the latest snapshot after the write's commit s, and commits
// the result as a COMPACT snapshot with the same commit user and
// identifier: Java's FileStoreCommitImpl commits the APPEND and the COMPACT
// of one commit identifier as two snapshots. Readers of these tables skip
// level 0, so this is what makes the statement's rows visible. A
// concurrent commit that removed an input or changed a bucket's deletion
// vectors makes it recompute on the new latest snapshot; a bucket whose
// level-0 files another writer compacted meanwhile has nothing left to do.
// It returns the last snapshot committed (s when the compaction committed
// nothing). An error means the commit s stands but its level-0 files wait
// for the next compaction of their buckets.
func (w *TableWrite) compactLevel0After(ctx context.Context, s *snapshot.Snapshot, buckets []BucketRef) (*snapshot.Snapshot, error) {
	if len(buckets) == 0 {
		return s, nil
	}
	tbl := snapshot.OpenTable(w.st, w.opts.Branch)
	for attempt := 0; attempt < maxLevel0Attempts; attempt++ {
		out, err := Compact(ctx, tbl, CompactRequest{
			Branch: w.opts.Branch, Level0: true, Buckets: buckets,
			CommitUser: w.opts.CommitUser, Now: w.opts.Now,
		})
		if err != nil {
			return s, fmt.Errorf("lsmwrite: the commit (snapshot %d) stands, but compacting its level-0 files failed: %w", s.ID, err)
		}
		if out.Conflict == nil {
			if out.Snapshot != nil {
				return out.Snapshot, nil
			}
			return s, nil
		}
	}
	// Every loss was to a commit that compacted or replaced files of these
	// buckets; such compactions take every level-0 file of the bucket
	// (the universal pick starts from the newest runs), ours included.
	return s, nil
}
