package lsmwrite

import (
	"context"

	"github.com/lakesql/lakesql/snapshot/manifest"
)

// mergeTreeCompactTask is Java's MergeTreeCompactTask: the unit's files are
// split into sections of overlapping key ranges (IntervalPartition); a
// section of several runs is rewritten; a section of one run keeps its
// large files (at least the compaction file size, target-file-size * 0.7)
// and only moves them to the output level ("upgrade"), rewriting the small
// files between them together with their neighbours. Adjacent candidates
// are merged in one rewrite so that the output stays in key order.
type mergeTreeCompactTask struct {
	rw              CompactRewriter
	outputLevel     int
	maxLevel        int
	dropDelete      bool
	minFileSize     int64
	forceRewriteAll bool
	result          CompactResult
	upgraded        int
}

// compactUnit runs a picked unit of bucket b with rewriter rw.
func (b *compactBucket) compactUnit(ctx context.Context, rw CompactRewriter, unit CompactUnit, dropDelete bool) (CompactResult, error) {
	if unit.FileRewrite {
		return fileRewriteTask(ctx, rw, unit, dropDelete)
	}
	sections, err := b.partition(ctx, unit.Files())
	if err != nil {
		return CompactResult{}, err
	}
	t := &mergeTreeCompactTask{
		rw:              rw,
		outputLevel:     unit.OutputLevel,
		maxLevel:        b.c.numLevels - 1,
		dropDelete:      dropDelete,
		minFileSize:     b.c.core.CompactionFileSize(true),
		forceRewriteAll: b.c.forceRewriteAll,
	}
	if err := t.run(ctx, sections); err != nil {
		return CompactResult{}, err
	}
	b.stats.Upgraded += t.upgraded
	return t.result, nil
}

func (t *mergeTreeCompactTask) run(ctx context.Context, sections [][]SortedRun) error {
	var candidate [][]SortedRun
	for _, section := range sections {
		if len(section) > 1 {
			candidate = append(candidate, section)
			continue
		}
		for _, f := range section[0].Files {
			if f.FileSize < t.minFileSize {
				// Small files are rewritten with their neighbours.
				candidate = append(candidate, []SortedRun{{Files: []manifest.DataFileMeta{f}}})
				continue
			}
			// A large file: rewrite what came before it, then upgrade it.
			if err := t.rewrite(ctx, &candidate); err != nil {
				return err
			}
			if err := t.upgrade(ctx, f); err != nil {
				return err
			}
		}
	}
	return t.rewrite(ctx, &candidate)
}

// upgrade moves a file that needs no merge to the output level; on the max
// level a file holding retract records is rewritten instead (so they are
// dropped), and so is every file when compaction.force-rewrite-all-files.
func (t *mergeTreeCompactTask) upgrade(ctx context.Context, f manifest.DataFileMeta) error {
	if (t.outputLevel == t.maxLevel && containsDeleteRecords(&f)) || t.forceRewriteAll {
		c := [][]SortedRun{{{Files: []manifest.DataFileMeta{f}}}}
		return t.rewriteImpl(ctx, &c)
	}
	if int(f.Level) == t.outputLevel {
		return nil
	}
	res, err := t.rw.Upgrade(ctx, t.outputLevel, f)
	if err != nil {
		return err
	}
	t.result.merge(res)
	t.upgraded++
	return nil
}

// rewrite rewrites the candidate sections, except a lone single-run
// section, whose files are upgraded one by one.
func (t *mergeTreeCompactTask) rewrite(ctx context.Context, candidate *[][]SortedRun) error {
	c := *candidate
	if len(c) == 0 {
		return nil
	}
	if len(c) == 1 {
		switch len(c[0]) {
		case 0:
			return nil
		case 1:
			*candidate = c[:0]
			for _, f := range c[0][0].Files {
				if err := t.upgrade(ctx, f); err != nil {
					return err
				}
			}
			return nil
		}
	}
	return t.rewriteImpl(ctx, candidate)
}

func (t *mergeTreeCompactTask) rewriteImpl(ctx context.Context, candidate *[][]SortedRun) error {
	res, err := t.rw.Rewrite(ctx, t.outputLevel, t.dropDelete, *candidate)
	if err != nil {
		return err
	}
	t.result.merge(res)
	*candidate = nil
	return nil
}

// containsDeleteRecords: a file without _DELETE_ROW_COUNT may hold them.
func containsDeleteRecords(f *manifest.DataFileMeta) bool {
	return f.DeleteRowCount == nil || *f.DeleteRowCount > 0
}

// fileRewriteTask is Java's FileRewriteCompactTask: each file of the unit
// is rewritten on its own, on the output level.
func fileRewriteTask(ctx context.Context, rw CompactRewriter, unit CompactUnit, dropDelete bool) (CompactResult, error) {
	var out CompactResult
	for _, f := range unit.Files() {
		res, err := rw.Rewrite(ctx, unit.OutputLevel, dropDelete, [][]SortedRun{{{Files: []manifest.DataFileMeta{f}}}})
		if err != nil {
			return CompactResult{}, err
		}
		out.merge(res)
	}
	return out, nil
}
