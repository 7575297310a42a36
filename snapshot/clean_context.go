package snapshot

import (
	"context"

	"github.com/lakesql/lakesql/snapshot/manifest"
)

// cleanContext is what an expiration of one branch reads once: the file
// locations, the tagged snapshots and the references of the other
// branches, and the data files of the last tag it looked at (Java:
// FileDeletionBase.createDataFileSkipperForTags caches one tag).
type cleanContext struct {
	d        *fileDeletion
	tagged   []*Snapshot
	foreign  branchRefs
	tagID    SnapshotID
	tagFiles fileSet
}

func (t *Table) newCleanContext(ctx context.Context) (*cleanContext, error) {
	ts, err := t.schemas.Latest(ctx)
	if err != nil {
		return nil, err
	}
	paths, err := newFilePaths(ts)
	if err != nil {
		return nil, err
	}
	c := &cleanContext{d: newFileDeletion(t.store, paths)}
	if c.tagged, err = t.tags.TaggedSnapshots(ctx); err != nil {
		return nil, err
	}
	if c.foreign, err = otherBranchRefs(ctx, t.store, t.branch); err != nil {
		return nil, err
	}
	return c, nil
}

// skipper returns which data files deleted by snapshot (or changelog) id
// must stay: those of the last tag before id, and those other branches
// use. ok is false when the tag's files cannot be read: then the caller
// skips cleaning id's files, as Java does.
func (c *cleanContext) skipper(ctx context.Context, id SnapshotID) (skip func(*manifest.ManifestEntry) bool, ok bool) {
	i := previousSnapshot(c.tagged, id)
	if i < 0 {
		return c.foreign.files.has, true
	}
	if c.tagged[i].ID != c.tagID {
		files, err := c.d.liveFiles(ctx, c.tagged[i])
		if err != nil {
			return nil, false
		}
		c.tagFiles, c.tagID = files, c.tagged[i].ID
	}
	tagFiles := c.tagFiles
	return func(e *manifest.ManifestEntry) bool { return tagFiles.has(e) || c.foreign.files.has(e) }, true
}
