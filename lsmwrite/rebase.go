package lsmwrite

import (
	"context"
	"errors"
	"fmt"

	"github.com/lakesql/lakesql/snapshot"
)

// NeedsRebase reports whether changes written against base must be
// rewritten before they can be committed on top of latest: whether a
// snapshot after base added records (APPEND or OVERWRITE). COMPACT snapshots
// only rewrite files; they add no sequence numbers and change no row, so
// files written against base stay valid on top of them (Java's writers keep
// committing while a compaction commits in between). base nil is the empty
// table.
func NeedsRebase(ctx context.Context, snaps *snapshot.SnapshotManager, base, latest *snapshot.Snapshot) (bool, error) {
	if latest == nil {
		return base != nil, nil
	}
	from := snapshot.SnapshotID(0)
	if base != nil {
		if base.ID == latest.ID {
			return false, nil
		}
		if base.ID > latest.ID {
			return true, nil // rolled back: write again
		}
		from = base.ID
	}
	for id := from + 1; id <= latest.ID; id++ {
		s := latest
		if id != latest.ID {
			var err error
			if s, err = snaps.Snapshot(ctx, id); err != nil {
				if errors.Is(err, snapshot.ErrSnapshotNotFound) {
					return true, nil // expired in between: cannot tell, rewrite
				}
				return false, fmt.Errorf("lsmwrite: rebase check: %w", err)
			}
		}
		if s.CommitKind != snapshot.CommitKindCompact {
			return true, nil
		}
	}
	return false, nil
}
