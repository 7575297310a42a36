package snapshot

import (
	"context"
	"errors"
	"fmt"

	"github.com/lakesql/lakesql/internal/storage"
)

// RollbackResult says what a rollback did.
type RollbackResult struct {
	// Previous is the latest snapshot before the rollback, Current the
	// snapshot the branch was rolled back to.
	Previous, Current SnapshotID
	// Snapshots, Changelogs and Tags count the files removed.
	Snapshots, Changelogs, Tags int
}

// RollbackToSnapshot rolls the branch back to snapshot id (Java:
// AbstractFileStoreTable.rollbackTo(long)): when the snapshot has expired
// but a tag holds it, it rolls back to that tag.
func (t *Table) RollbackToSnapshot(ctx context.Context, id SnapshotID) (RollbackResult, error) {
	s, err := t.snapshots.read(ctx, id)
	if isNotExist(err) {
		byID, terr := t.tags.BySnapshot(ctx)
		if terr != nil {
			return RollbackResult{}, terr
		}
		if ts, ok := byID[id]; ok {
			return t.RollbackToTag(ctx, ts[0].Name)
		}
		return RollbackResult{}, fmt.Errorf("%w: rollback snapshot %d doesn't exist", ErrSnapshotNotFound, id)
	}
	if err != nil {
		return RollbackResult{}, err
	}
	defer lockMaintenance(t.store, t.branch)()
	defer lockCommits(ctx, CommitLockKey(t.store, t.branch))()
	return t.cleanLargerThan(ctx, s)
}

// RollbackToTag rolls the branch back to tag name (Java:
// AbstractFileStoreTable.rollbackTo(String)): when the tagged snapshot has
// expired, its JSON is written back as the only snapshot.
func (t *Table) RollbackToTag(ctx context.Context, name string) (RollbackResult, error) {
	tag, err := t.tags.Get(ctx, name)
	if err != nil {
		return RollbackResult{}, err
	}
	defer lockMaintenance(t.store, t.branch)()
	defer lockCommits(ctx, CommitLockKey(t.store, t.branch))()
	res, err := t.cleanLargerThan(ctx, &tag.Snapshot)
	if err != nil {
		return res, fmt.Errorf("snapshot: rollback to tag %q: %w", name, err)
	}
	return res, nil
}

// cleanLargerThan removes the snapshots, long-lived changelogs and tags
// newer than keep and points LATEST at it (Java:
// RollbackHelper.cleanLargerThan); when keep's snapshot has expired (a
// tag's), it is written back (Java: createSnapshotFileIfNeeded). Its
// callers hold the table's commit lock: a commit of this process (a
// background compaction) published while the rollback deletes would
// survive it as a stale snapshot after a gap in the ids. Data files of
// the removed snapshots stay as orphans, as in Java (remove_orphan_files
// deletes them).
//
// A crash part-way leaves a whole snapshot as the latest. When keep and
// the snapshot after it exist, LATEST points at keep first and the
// snapshots go newest first (Java's order): readers find keep's successor
// and list. Otherwise (keep expired, or a gap above it) no hint can be
// right while the newer snapshots go, and Java's order — delete every
// snapshot, then write keep back — leaves a table without snapshots when
// it stops between: LATEST is removed (readers list), every snapshot but
// the oldest newer one goes, keep is written back, then that one goes, and
// only then are the hints written.
func (t *Table) cleanLargerThan(ctx context.Context, keep *Snapshot) (RollbackResult, error) {
	res := RollbackResult{Current: keep.ID}
	sm := t.snapshots
	earliest, ok, err := sm.EarliestID(ctx)
	if err != nil {
		return res, err
	}
	if !ok {
		return res, fmt.Errorf("%w: cannot find the earliest snapshot", ErrSnapshotNotFound)
	}
	latest, ok, err := sm.LatestID(ctx)
	if err != nil || !ok {
		return res, err
	}
	res.Previous = latest
	kept, err := sm.Exists(ctx, keep.ID)
	if err != nil {
		return res, err
	}
	next := latest <= keep.ID
	if kept && !next {
		if next, err = sm.Exists(ctx, keep.ID+1); err != nil {
			return res, err
		}
	}
	deleteSnapshot := func(id SnapshotID) error {
		err := t.store.Delete(ctx, sm.Path(id))
		switch {
		case err == nil:
			res.Snapshots++
		case !isNotExist(err):
			return fmt.Errorf("snapshot: rollback: delete snapshot %d: %w", id, err)
		}
		return nil
	}
	if kept && next {
		if err := sm.writeHint(ctx, LatestHint, keep.ID); err != nil {
			return res, err
		}
		for id := latest; id >= max(earliest, keep.ID+1); id-- {
			if err := deleteSnapshot(id); err != nil {
				return res, err
			}
		}
	} else {
		if err := sm.deleteHint(ctx, LatestHint); err != nil {
			return res, err
		}
		lo := max(earliest, keep.ID+1)
		for id := latest; id > lo; id-- {
			if err := deleteSnapshot(id); err != nil {
				return res, err
			}
		}
		if !kept {
			data, err := EncodeSnapshot(keep)
			if err != nil {
				return res, err
			}
			if err := t.store.CreateIfNotExists(ctx, sm.Path(keep.ID), data); err != nil && !errors.Is(err, storage.ErrExist) {
				return res, fmt.Errorf("snapshot: rollback: write snapshot %d back: %w", keep.ID, err)
			}
		}
		if err := deleteSnapshot(lo); err != nil {
			return res, err
		}
		if err := sm.writeHint(ctx, LatestHint, keep.ID); err != nil {
			return res, err
		}
		if earliest > keep.ID {
			if err := sm.writeHint(ctx, EarliestHint, keep.ID); err != nil {
				return res, err
			}
		}
	}
	cm := NewChangelogManager(t.store, t.branch)
	if cl, ok, err := cm.LatestID(ctx); err != nil {
		return res, err
	} else if ok {
		ce, _, err := cm.EarliestID(ctx)
		if err != nil {
			return res, err
		}
		to := max(ce, keep.ID+1)
		if cl >= to {
			hint := to - 1
			if to == ce {
				hint = -1 // Java: every changelog is gone, the latest is unknown
			}
			if err := cm.writeHint(ctx, LatestHint, hint); err != nil {
				return res, err
			}
			for id := cl; id >= to; id-- {
				if err := t.store.Delete(ctx, cm.Path(id)); err == nil {
					res.Changelogs++
				} else if !isNotExist(err) {
					return res, err
				}
			}
		}
	}
	tags, err := t.tags.All(ctx)
	if err != nil {
		return res, err
	}
	for _, tg := range tags {
		if tg.ID > keep.ID {
			if err := t.tags.Delete(ctx, tg.Name); err != nil && !errors.Is(err, ErrTagNotFound) {
				return res, err
			}
			res.Tags++
		}
	}
	return res, nil
}
