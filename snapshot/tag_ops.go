package snapshot

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/lakesql/lakesql/internal/storage"
)

// TaggedSnapshots returns the distinct snapshots the branch's tags point
// to, sorted by id (Java: TagManager.taggedSnapshots).
func (m *TagManager) TaggedSnapshots(ctx context.Context) ([]*Snapshot, error) {
	byID, err := m.BySnapshot(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*Snapshot, 0, len(byID))
	for _, ts := range byID {
		s := ts[0].Tag.Snapshot
		out = append(out, &s)
	}
	slices.SortFunc(out, func(a, b *Snapshot) int { return cmpID(a.ID, b.ID) })
	return out, nil
}

// BySnapshot groups the branch's tags by the id of their snapshot (Java:
// TagManager.tags), names sorted.
func (m *TagManager) BySnapshot(ctx context.Context) (map[SnapshotID][]NamedTag, error) {
	all, err := m.All(ctx)
	if err != nil {
		return nil, err
	}
	out := map[SnapshotID][]NamedTag{}
	for _, t := range all {
		out[t.ID] = append(out[t.ID], t)
	}
	return out, nil
}

// FindSnapshot returns snapshot id of the branch, or, when it has expired,
// the snapshot of a tag on it (Java: AbstractFileStoreTable.findSnapshot).
func (t *Table) FindSnapshot(ctx context.Context, id SnapshotID) (*Snapshot, error) {
	s, err := t.snapshots.read(ctx, id)
	if err == nil {
		return s, nil
	}
	if !isNotExist(err) {
		return nil, err
	}
	byID, err := t.tags.BySnapshot(ctx)
	if err != nil {
		return nil, err
	}
	if ts, ok := byID[id]; ok {
		s := ts[0].Tag.Snapshot
		return &s, nil
	}
	return nil, t.snapshots.notFound(ctx, id)
}

// CreateTag tags snapshot from (the latest when nil) as name, with an
// optional retention (Java: AbstractFileStoreTable.createTag). It returns
// the tagged snapshot. An existing name gives ErrTagExists, a table without
// snapshots or a missing snapshot ErrSnapshotNotFound.
func (t *Table) CreateTag(ctx context.Context, name string, from *SnapshotID, retained *time.Duration, now time.Time) (*Snapshot, error) {
	if err := ValidateTagName(name); err != nil {
		return nil, err
	}
	var s *Snapshot
	var err error
	if from == nil {
		s, err = t.snapshots.Latest(ctx)
		if errors.Is(err, ErrSnapshotNotFound) {
			return nil, fmt.Errorf("%w: cannot create tag %q because the table has no snapshot yet", ErrSnapshotNotFound, name)
		}
	} else {
		s, err = t.FindSnapshot(ctx, *from)
	}
	if err != nil {
		return nil, err
	}
	if err := t.tags.Create(ctx, name, s, retained, now); err != nil {
		return nil, err
	}
	return s, nil
}

// RenameTag renames tag from to to (Java: TagManager.renameTag): the new
// file is created atomically, then the old one removed.
func (t *Table) RenameTag(ctx context.Context, from, to string) error {
	if err := ValidateTagName(to); err != nil {
		return err
	}
	if _, err := t.tags.Get(ctx, from); err != nil {
		return err
	}
	data, err := t.store.ReadAll(ctx, t.tags.Path(from))
	if err != nil {
		if isNotExist(err) {
			return fmt.Errorf("%w: tag %q of branch %s", ErrTagNotFound, from, t.branch)
		}
		return err
	}
	if err := t.store.CreateIfNotExists(ctx, t.tags.Path(to), data); err != nil {
		if errors.Is(err, storage.ErrExist) {
			return fmt.Errorf("%w: tag %q of branch %s", ErrTagExists, to, t.branch)
		}
		return fmt.Errorf("snapshot: rename tag %q: %w", from, err)
	}
	return t.tags.Delete(ctx, from)
}

// DeleteTag deletes tag name (Java: TagManager.deleteTag). When the tagged
// snapshot has expired and no other tag points to it, the files only the
// tag kept are deleted too: data files that neither the previous tag, nor
// the next tag or earliest snapshot (whichever is older), nor any other
// branch references, then such manifests. A missing tag gives
// ErrTagNotFound.
func (t *Table) DeleteTag(ctx context.Context, name string) (CleanStats, error) {
	var stats CleanStats
	tag, err := t.tags.Get(ctx, name)
	if err != nil {
		return stats, err
	}
	defer lockMaintenance(t.store, t.branch)()
	exists, err := t.snapshots.Exists(ctx, tag.ID)
	if err != nil {
		return stats, err
	}
	if exists {
		return stats, t.tags.Delete(ctx, name)
	}
	byID, err := t.tags.BySnapshot(ctx)
	if err != nil {
		return stats, err
	}
	if err := t.tags.Delete(ctx, name); err != nil {
		return stats, err
	}
	if len(byID[tag.ID]) > 1 {
		return stats, nil // another tag keeps the snapshot
	}
	tagged, err := t.tags.TaggedSnapshots(ctx)
	if err != nil {
		return stats, err
	}
	// The neighbours: the previous tag, and the older of the next tag and
	// the earliest snapshot (tagged no longer holds the deleted tag).
	var keep []*Snapshot
	if i := previousSnapshot(tagged, tag.ID); i >= 0 {
		keep = append(keep, tagged[i])
	}
	right, err := t.snapshots.Earliest(ctx)
	if err != nil && !errors.Is(err, ErrSnapshotNotFound) {
		return stats, err
	}
	if i := previousSnapshot(tagged, tag.ID) + 1; i < len(tagged) && (right == nil || tagged[i].ID < right.ID) {
		right = tagged[i]
	}
	if right != nil {
		keep = append(keep, right)
	}
	ts, err := t.schemas.Latest(ctx)
	if err != nil {
		return stats, err
	}
	paths, err := newFilePaths(ts)
	if err != nil {
		return stats, err
	}
	d := newFileDeletion(t.store, paths)
	foreign, err := otherBranchRefs(ctx, t.store, t.branch)
	if err != nil {
		return stats, err
	}
	tagSnap := &tag.Snapshot
	keepFiles := fileSet{}
	ok := true
	for _, s := range keep {
		live, err := d.liveFiles(ctx, s)
		if err != nil {
			ok = false // Java: skip the data-file clean
			break
		}
		for k := range live {
			keepFiles[k] = struct{}{}
		}
	}
	if ok {
		live, _, err := Scan(ctx, t.store, tagSnap, ScanOptions{})
		if err == nil {
			for i := range live {
				e := &live[i]
				if !keepFiles.has(e) && !foreign.files.has(e) {
					d.removeDataFile(ctx, e, false)
				}
			}
		}
	}
	skipping := maps.Clone(foreign.metadata)
	if err := d.manifestSkippingSet(ctx, keep, skipping); err == nil {
		if err := d.cleanUnusedManifests(ctx, tagSnap, skipping, true, false); err != nil {
			return d.stats, err
		}
	}
	return d.stats, nil
}

// sortTagsByID orders tags by snapshot id, then name.
func sortTagsByID(tags []NamedTag) {
	slices.SortFunc(tags, func(a, b NamedTag) int {
		if c := cmpID(a.ID, b.ID); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
}
