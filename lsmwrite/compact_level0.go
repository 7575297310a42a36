package lsmwrite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// maxLevel0Rounds bounds the picks of compactLevel0 on one bucket.
const maxLevel0Rounds = 8

// loadBaseIndex reads the index manifest of the compacted snapshot when the
// table keeps deletion vectors.
func (c *compactContext) loadBaseIndex(ctx context.Context, base *snapshot.Snapshot) error {
	c.baseIndex = nil
	if !c.core.DeletionVectorsEnabled || base == nil || base.IndexManifest == nil {
		return nil
	}
	entries, err := snapshot.CachedIndexManifest(ctx, c.st, *base.IndexManifest)
	if err != nil {
		return fmt.Errorf("lsmwrite: read index manifest %s: %w", *base.IndexManifest, err)
	}
	c.baseIndex = entries
	return nil
}

// restoreDeletionVectors loads the deletion vectors of bucket b from the
// base index manifest (tables with deletion vectors).
func (c *compactContext) restoreDeletionVectors(ctx context.Context, b *compactBucket) error {
	if !c.core.DeletionVectorsEnabled || b.dvm != nil {
		return nil
	}
	var mine []manifest.IndexManifestEntry
	for _, e := range c.baseIndex {
		if e.Kind == manifest.FileKindAdd && e.IndexFile.IndexType == manifest.IndexTypeDeletionVectors &&
			e.Bucket == b.bf.Bucket && bytes.Equal(e.Partition, b.bf.Partition) {
			mine = append(mine, e)
		}
	}
	m, err := restoreDvMaintainer(ctx, c.idx, b.bf.Partition, b.path, b.bf.Bucket, c.bitmap64, mine)
	if err != nil {
		return err
	}
	b.dvm = m
	return nil
}

// compactLevel0 compacts the level-0 files of bucket b up, as Java's writer
// of a table that needs lookup does before a batch commit returns
// (MergeTreeWriter.prepareCommit waiting for the compaction that
// ForceUpLevel0Compaction picks): the universal pick, or else every level-0
// file into the level below the next non-empty one, through the lookup
// rewriter. Java runs one such pick per flush; lakesql picks again while
// level-0 files remain (at most maxLevel0Rounds times) so that everything a
// statement wrote is visible to readers, which skip level 0 in these
// tables. With lookup-compact = gentle only one pick is made, and it may
// decline, as Java's does; the files then wait for a later compaction.
// Results of successive picks combine as Java's
// MergeTreeWriter.updateCompactResult does: a file written by one pick and
// rewritten by the next is deleted and never committed.
func (c *compactContext) compactLevel0(ctx context.Context, b *compactBucket, st *PickState) (CompactResult, error) {
	if st == nil {
		st = &PickState{}
	}
	var acc CompactResult
	written := map[string]bool{} // files written by this compaction
	for round := 0; round < maxLevel0Rounds; round++ {
		levels, err := b.levels(ctx)
		if err != nil {
			return CompactResult{}, err
		}
		if len(levels.level0) == 0 {
			break
		}
		st.Now = c.now()
		unit, ok := PickCompaction(levels.LevelSortedRuns(), levels.NumberOfLevels(), c.picker, st)
		if !ok {
			break
		}
		res, err := c.runUnit(ctx, b, levels, unit)
		if err != nil {
			return CompactResult{}, err
		}
		if err := c.accumulate(ctx, b, &acc, res, written); err != nil {
			return CompactResult{}, err
		}
		b.bf.Files = applyResult(b.bf.Files, res)
		if c.picker.LookupCompactMaxInterval > 0 {
			break
		}
	}
	return acc, nil
}

// accumulate adds the result of one more pick to acc.
func (c *compactContext) accumulate(ctx context.Context, b *compactBucket, acc *CompactResult, res CompactResult, written map[string]bool) error {
	after := map[string]bool{}
	for i := range res.After {
		after[res.After[i].FileName] = true
	}
	for _, f := range res.Before {
		if i := slices.IndexFunc(acc.After, func(a manifest.DataFileMeta) bool { return a.FileName == f.FileName }); i >= 0 {
			acc.After = slices.Delete(acc.After, i, i+1)
			if written[f.FileName] && !after[f.FileName] {
				// An intermediate file of this compaction, rewritten now.
				p := b.names.dir + f.FileName
				if err := c.st.Delete(ctx, p); err != nil && !errors.Is(err, storage.ErrNotExist) {
					return fmt.Errorf("lsmwrite: delete intermediate file %s: %w", p, err)
				}
			}
			continue
		}
		acc.Before = append(acc.Before, f)
	}
	for i := range res.After {
		if !slices.ContainsFunc(res.Before, func(f manifest.DataFileMeta) bool { return f.FileName == res.After[i].FileName }) {
			written[res.After[i].FileName] = true
		}
	}
	acc.After = append(acc.After, res.After...)
	acc.Changelog = append(acc.Changelog, res.Changelog...)
	acc.IndexChanges = append(acc.IndexChanges, res.IndexChanges...)
	return nil
}

// applyResult returns files with a compaction result applied.
func applyResult(files []manifest.DataFileMeta, res CompactResult) []manifest.DataFileMeta {
	gone := map[string]bool{}
	for i := range res.Before {
		gone[res.Before[i].FileName] = true
	}
	out := make([]manifest.DataFileMeta, 0, len(files)+len(res.After))
	for _, f := range files {
		if !gone[f.FileName] {
			out = append(out, f)
		}
	}
	return append(out, res.After...)
}
