package lsmwrite

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/lakesql/lakesql/snapshot/manifest"
)

// Append tables have no keys to merge: compaction only joins small files
// into files of about target-file-size (Java: BucketedAppendCompactManager
// for bucketed tables, AppendCompactCoordinator for bucket-unaware ones).
// The rows are read in the order of the picked files and written again on
// level 0 with file source COMPACT; their sequence numbers count up from
// the first picked file's _MIN_SEQUENCE_NUMBER (BaseAppendFileStoreWrite.compactRewrite).

// fullCompactMinFiles is BucketedAppendCompactManager.FULL_COMPACT_MIN_FILE.
const fullCompactMinFiles = 3

// bySequence orders append files as BucketedAppendCompactManager's queue
// does: by _MIN_SEQUENCE_NUMBER (then by name, for a stable order).
func bySequence(files []manifest.DataFileMeta) []manifest.DataFileMeta {
	out := slices.Clone(files)
	slices.SortStableFunc(out, func(a, b manifest.DataFileMeta) int {
		if c := cmp.Compare(a.MinSequenceNumber, b.MinSequenceNumber); c != 0 {
			return c
		}
		return cmp.Compare(a.FileName, b.FileName)
	})
	return out
}

// PickBucketedAppend is BucketedAppendCompactManager.pickCompactBefore, the
// automatic compaction of one bucket of a bucketed append table: a window
// slides over the files in sequence order; it is picked as soon as it holds
// minFileNum files, and loses its oldest file whenever its size reaches
// targetFileSize. nil when nothing is picked.
func PickBucketedAppend(files []manifest.DataFileMeta, minFileNum int, targetFileSize int64) []manifest.DataFileMeta {
	var window []manifest.DataFileMeta
	var size int64
	for _, f := range bySequence(files) {
		window = append(window, f)
		size += f.FileSize
		if len(window) >= minFileNum {
			return window
		}
		if size >= targetFileSize {
			size -= window[0].FileSize
			window = window[1:]
		}
	}
	return nil
}

// PickBucketedAppendFull is BucketedAppendCompactManager's full compaction
// (FullCompactTask without deletion vectors): the leading files (in
// sequence order) of at least targetFileSize are kept; the rest is
// rewritten when it holds more small files than large ones and at least
// three files (every file when forceRewriteAll). nil when nothing is
// picked.
func PickBucketedAppendFull(files []manifest.DataFileMeta, targetFileSize int64, forceRewriteAll bool) []manifest.DataFileMeta {
	if !forceRewriteAll && len(files) < fullCompactMinFiles {
		return nil
	}
	rest := bySequence(files)
	for !forceRewriteAll && len(rest) > 0 && rest[0].FileSize >= targetFileSize {
		rest = rest[1:]
	}
	if len(rest) == 0 {
		return nil
	}
	if forceRewriteAll {
		return rest
	}
	big := 0
	for _, f := range rest {
		if f.FileSize >= targetFileSize {
			big++
		}
	}
	if small := len(rest) - big; small > big && len(rest) >= fullCompactMinFiles {
		return rest
	}
	return nil
}

// PickUnawareAppend is AppendCompactCoordinator's plan for one partition of
// a bucket-unaware append table: the files smaller than compactionFileSize
// (target-file-size * 0.7), smallest first, are packed into bins; a bin of
// two or more files whose sizes plus openFileCost each reach twice
// targetFileSize is one task, and what is left is one more task when it
// holds at least minFileNum files. full lowers that last bound to two
// files (lakesql's full compaction of such tables; Java's batch compaction
// action plans them like the streaming coordinator's first scan).
func PickUnawareAppend(files []manifest.DataFileMeta, targetFileSize, compactionFileSize, openFileCost int64, minFileNum int, full bool) [][]manifest.DataFileMeta {
	var small []manifest.DataFileMeta
	for _, f := range files {
		if f.FileSize < compactionFileSize {
			small = append(small, f)
		}
	}
	slices.SortStableFunc(small, func(a, b manifest.DataFileMeta) int {
		if c := cmp.Compare(a.FileSize, b.FileSize); c != 0 {
			return c
		}
		return cmp.Compare(a.FileName, b.FileName)
	})
	var tasks [][]manifest.DataFileMeta
	var bin []manifest.DataFileMeta
	var size int64
	for _, f := range small {
		bin = append(bin, f)
		size += f.FileSize + openFileCost
		if len(bin) > 1 && size >= targetFileSize*2 {
			tasks = append(tasks, bin)
			bin, size = nil, 0
		}
	}
	if len(bin) >= minFileNum || (full && len(bin) >= 2) {
		tasks = append(tasks, bin)
	}
	return tasks
}

// compactAppend compacts one bucket of an append table.
func (c *compactContext) compactAppend(ctx context.Context, b *compactBucket, full bool) (CompactResult, error) {
	target := c.core.TargetFileSize(false)
	var tasks [][]manifest.DataFileMeta
	if c.core.Bucket > 0 {
		var pick []manifest.DataFileMeta
		if full {
			pick = PickBucketedAppendFull(b.bf.Files, target, c.forceRewriteAll)
		} else {
			pick = PickBucketedAppend(b.bf.Files, c.minFileNum, target)
		}
		if pick != nil {
			tasks = append(tasks, pick)
		}
	} else {
		tasks = PickUnawareAppend(b.bf.Files, target, c.core.CompactionFileSize(false), c.openFileCost, c.minFileNum, full)
	}
	var out CompactResult
	if len(tasks) == 0 {
		return out, nil
	}
	if err := c.restoreAppendDeletionVectors(ctx, b); err != nil {
		return CompactResult{}, err
	}
	for _, files := range tasks {
		res, err := b.rewriteAppend(ctx, files)
		if err != nil {
			return CompactResult{}, err
		}
		out.merge(res)
	}
	// The rewritten files' deletion vectors go (Java AppendCompactTask,
	// BucketedAppendCompactManager with deletion vectors).
	switch {
	case b.dvm != nil:
		for i := range out.Before {
			b.dvm.removeDeletionVectorOf(out.Before[i].FileName)
		}
		changes, err := b.dvm.writeIndex(ctx, c.idx)
		if err != nil {
			return CompactResult{}, err
		}
		out.IndexChanges = append(out.IndexChanges, changes...)
	case b.appendDV != nil:
		for i := range out.Before {
			b.appendDV.notifyRemovedDeletionVector(out.Before[i].FileName)
		}
		changes, err := b.appendDV.persist(ctx, c.idx)
		if err != nil {
			return CompactResult{}, err
		}
		out.IndexChanges = append(out.IndexChanges, changes...)
	}
	return out, nil
}

// restoreAppendDeletionVectors loads the deletion vectors of an append
// table's bucket (bucketed) or partition (bucket-unaware).
func (c *compactContext) restoreAppendDeletionVectors(ctx context.Context, b *compactBucket) error {
	if !c.core.DeletionVectorsEnabled {
		return nil
	}
	if c.core.Bucket > 0 {
		return c.restoreDeletionVectors(ctx, b)
	}
	var mine []manifest.IndexManifestEntry
	for _, e := range c.baseIndex {
		if e.Kind == manifest.FileKindAdd && e.IndexFile.IndexType == manifest.IndexTypeDeletionVectors &&
			string(e.Partition) == string(b.bf.Partition) {
			mine = append(mine, e)
		}
	}
	b.appendDV = newAppendDvMaintainer(b.bf.Partition, b.path, mine)
	return nil
}

// rewriteAppend reads files in order and writes their rows into new level-0
// files (BaseAppendFileStoreWrite.compactRewrite).
func (b *compactBucket) rewriteAppend(ctx context.Context, files []manifest.DataFileMeta) (CompactResult, error) {
	if len(files) == 0 {
		return CompactResult{}, nil
	}
	w := newLevelWriter(b.c.spec, b.names, false, 0, manifest.FileSourceCompact)
	seq := files[0].MinSequenceNumber
	err := func() error {
		for i := range files {
			f := &files[i]
			if err := checkParquet(f); err != nil {
				return err
			}
			b.stats.BytesRead += f.FileSize
			b.stats.RowsRead += f.RowCount
			vec, err := b.appendDeletionVector(ctx, f.FileName)
			if err != nil {
				return err
			}
			rr, err := b.c.reader.OpenRows(ctx, b.file(f), vec, nil)
			if err != nil {
				return err
			}
			for n := 0; ; n++ {
				if n&1023 == 0 {
					if err := ctx.Err(); err != nil {
						_ = rr.Close()
						return err
					}
				}
				row, err := rr.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					_ = rr.Close()
					return fmt.Errorf("lsmwrite: compact %s: %w", b, err)
				}
				if err := w.writeRow(ctx, seq, row); err != nil {
					_ = rr.Close()
					return err
				}
				seq++
			}
			if err := rr.Close(); err != nil {
				return err
			}
		}
		return w.closeCurrent()
	}()
	if err != nil {
		w.abort()
		return CompactResult{}, err
	}
	b.stats.addWritten(w.files)
	return CompactResult{Before: slices.Clone(files), After: w.files}, nil
}

func checkParquet(f *manifest.DataFileMeta) error {
	if len(f.FileName) < 8 || f.FileName[len(f.FileName)-8:] != ".parquet" {
		return fmt.Errorf("%w: data file %s is not Parquet; lakesql reads only Parquet data files", ErrUnsupported, f.FileName)
	}
	return nil
}
