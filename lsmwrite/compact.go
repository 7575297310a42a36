package lsmwrite

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/metrics"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// BucketRef names one bucket of one partition (the partition as its
// serialized BinaryRow bytes).
type BucketRef struct {
	Partition string
	Bucket    manifest.Bucket
}

// CompactRequest says what Compact compacts and how.
type CompactRequest struct {
	// Branch is the branch compacted ("" is main).
	Branch string
	// Full asks for a full compaction (CALL sys.compact's compact_strategy
	// 'full', the dedicated job's --full, full-compaction.delta-commits):
	// every bucket of a primary-key table ends as one sorted run on the max
	// level with retract records dropped; append tables rewrite their small
	// files. Otherwise the compaction is minor ('minor'): each bucket
	// compacts what the automatic picker picks, possibly nothing.
	Full bool
	// Partitions, when non-nil, keeps only the partitions matching one of
	// these specs (partition column → value as text, as in a partition
	// path; a spec may name only some partition columns). Names compare
	// case-insensitively.
	Partitions []map[string]string
	// PartitionFilter, when set, keeps only the partitions for which it
	// returns true; it gets the partition values in partition-key order
	// (CALL sys.compact's where argument).
	PartitionFilter func(values []any) (bool, error)
	// Buckets, when non-nil, keeps only these buckets.
	Buckets []BucketRef
	// Options override table options for this compaction only (Java's
	// dynamic options: target-file-size, compaction.* ...).
	Options map[string]string
	// CommitUser of the COMPACT snapshot; default a new UUID.
	CommitUser string
	// Now is the clock of creation times and the picker (tests).
	Now func() time.Time
	// Stall compacts only the buckets of primary-key tables with more
	// sorted runs than num-sorted-run.stop-trigger, with the automatic
	// picker (the write stall: Java's writer waits for such a bucket's
	// compaction before it writes on).
	Stall bool
	// PickState, when set, returns the picker state kept for a bucket
	// between compactions (the automatic compactor keeps one per bucket).
	PickState func(BucketRef) *PickState
	// Level0 compacts only the level-0 files of the selected buckets up,
	// leaving buckets without level-0 files alone: what a write to a table
	// that needs lookup does before its commit returns (see compactLevel0).
	Level0 bool
	// Progress, when set, is called once the buckets are planned (done 0)
	// and after each bucket.
	Progress func(done, total int, stats CompactStats)
}

// CompactStats count what one compaction did.
type CompactStats struct {
	Buckets      int   // buckets with a change
	FilesBefore  int   // files removed (rewritten, or upgraded to another level)
	FilesAfter   int   // files added (new files and upgraded ones)
	Upgraded     int   // files moved to a higher level without a rewrite
	BytesRead    int64 // bytes of the files read
	BytesWritten int64 // bytes of the files written
	RowsRead     int64
	RowsWritten  int64
}

func (s *CompactStats) addWritten(files []manifest.DataFileMeta) {
	for i := range files {
		s.BytesWritten += files[i].FileSize
		s.RowsWritten += files[i].RowCount
	}
}

// CompactOutcome is the result of Compact.
type CompactOutcome struct {
	// Base is the snapshot compacted (nil for a table without snapshots).
	Base *snapshot.Snapshot
	// Snapshot is the COMPACT snapshot committed; nil when there was
	// nothing to compact or the compaction was abandoned.
	Snapshot *snapshot.Snapshot
	Stats    CompactStats
	// Conflict is set when a concurrent commit removed or replaced a file
	// the compaction read: the compaction deleted its own files, committed
	// nothing, and the table is as the other writer left it. It wraps
	// snapshot.ErrConflict.
	Conflict error
}

// Compact compacts the table tbl at its latest snapshot and commits the
// result as one COMPACT snapshot (DELETE entries for the files rewritten or
// moved, ADD entries for their replacements): Java's dedicated compaction
// (CompactAction, CALL sys.compact) for primary-key tables (universal
// compaction per bucket, or full compaction) and append tables (small-file
// compaction). Outputs are written with the table's latest schema.
//
// A conflict with a concurrent commit (an input deleted or compacted by
// another writer) is not an error: the outcome's Conflict is set and the
// compaction's files are deleted. Any other error also deletes them, except
// when the commit may have been published.
func Compact(ctx context.Context, tbl *snapshot.Table, req CompactRequest) (*CompactOutcome, error) {
	if req.Branch != "" && req.Branch != tbl.BranchName() {
		tbl = snapshot.OpenTable(tbl.Storage(), req.Branch)
	}
	start := time.Now()
	out, pk, err := compact(ctx, tbl, req)
	observe(tbl, req, pk, out, err, time.Since(start))
	return out, err
}

// observe reports a compaction that did something, failed or gave way
// (internal/metrics: counters and a log line).
func observe(tbl *snapshot.Table, req CompactRequest, pk bool, out *CompactOutcome, err error, d time.Duration) {
	if err == nil && (out == nil || (out.Snapshot == nil && out.Conflict == nil)) {
		return
	}
	r := metrics.CompactionRun{Table: metrics.TableLabel(tbl.Storage().URL()), Kind: "minor", Bucket: -1, Duration: d, Err: err}
	switch {
	case !pk:
		r.Kind = "append"
	case req.Full:
		r.Kind = "full"
	}
	if out != nil {
		r.InputFiles, r.OutputFiles = out.Stats.FilesBefore, out.Stats.FilesAfter
		r.BytesIn, r.BytesOut = out.Stats.BytesRead, out.Stats.BytesWritten
		if out.Snapshot != nil {
			r.Snapshot = int64(out.Snapshot.ID)
		}
		if out.Conflict != nil {
			r.Err = out.Conflict
		}
	}
	metrics.ObserveCompaction(r)
}

func compact(ctx context.Context, tbl *snapshot.Table, req CompactRequest) (out *CompactOutcome, pk bool, err error) {
	out = &CompactOutcome{}
	base, err := tbl.Snapshots().Latest(ctx)
	if errors.Is(err, snapshot.ErrSnapshotNotFound) {
		return out, true, nil
	}
	if err != nil {
		return nil, true, err
	}
	out.Base = base
	sch, err := tbl.Schemas().Latest(ctx)
	if err != nil {
		return nil, true, err
	}
	pk = sch.IsPrimaryKeyTable()
	c, err := newCompactContext(tbl, sch, req.Options, req.Now)
	if err != nil {
		return nil, pk, err
	}
	groups, err := c.scanBuckets(ctx, base, req)
	if err != nil {
		return nil, pk, err
	}
	if err := c.loadBaseIndex(ctx, base); err != nil {
		return nil, pk, err
	}
	ch, err := c.compactBuckets(ctx, groups, req, &out.Stats)
	if err != nil {
		_ = c.abort(ctx)
		return nil, pk, err
	}
	if len(ch.Entries) == 0 {
		return out, pk, nil
	}
	var keyTypes []schema.DataType
	if c.pk {
		keyTypes = c.keyTypes
	}
	co, err := commitOptions(c.core, tbl.BranchName(), c.partTypes, keyTypes, c.now, !c.pk && c.core.Bucket <= 0)
	if err != nil {
		_ = c.abort(ctx)
		return nil, pk, err
	}
	co.SchemaTimeMillis = sch.TimeMillis
	s, err := snapshot.NewCommitter(c.st, co).Commit(ctx, sch.ID, ch)
	if err != nil {
		if errors.Is(err, snapshot.ErrConflict) {
			_ = c.abort(ctx)
			out.Conflict = err
			out.Stats = CompactStats{BytesRead: out.Stats.BytesRead, RowsRead: out.Stats.RowsRead}
			return out, pk, nil
		}
		abandonFailed(ctx, c.st, tbl.BranchName(), sch.ID, err, func() { _ = c.abort(ctx) })
		return nil, pk, fmt.Errorf("lsmwrite: commit compaction: %w", err)
	}
	out.Snapshot = s
	return out, pk, nil
}

// compactBuckets compacts every group and collects the commit.
func (c *compactContext) compactBuckets(ctx context.Context, groups []*BucketFiles, req CompactRequest, stats *CompactStats) (*snapshot.CommitChanges, error) {
	user := req.CommitUser
	if user == "" {
		user = uuid.NewString()
	}
	ch := &snapshot.CommitChanges{Kind: snapshot.CommitKindCompact, CommitUser: user, CommitIdentifier: snapshot.BatchCommitIdentifier}
	if req.Progress != nil {
		req.Progress(0, len(groups), *stats)
	}
	for i, bf := range groups {
		b, err := c.newBucket(bf, stats)
		if err != nil {
			return nil, err
		}
		var st *PickState
		if req.PickState != nil {
			st = req.PickState(BucketRef{Partition: string(bf.Partition), Bucket: bf.Bucket})
		}
		res, err := c.compactBucket(ctx, b, req, st)
		if err != nil {
			return nil, err
		}
		if !res.Empty() {
			stats.Buckets++
			stats.FilesBefore += len(res.Before)
			stats.FilesAfter += len(res.After)
			for _, f := range res.Before {
				ch.Entries = append(ch.Entries, manifest.ManifestEntry{Kind: manifest.FileKindDelete, Partition: bf.Partition,
					Bucket: bf.Bucket, TotalBuckets: bf.TotalBuckets, File: f})
			}
			for _, f := range res.After {
				ch.Entries = append(ch.Entries, manifest.ManifestEntry{Kind: manifest.FileKindAdd, Partition: bf.Partition,
					Bucket: bf.Bucket, TotalBuckets: bf.TotalBuckets, File: f})
			}
			for _, f := range res.Changelog {
				ch.ChangelogEntries = append(ch.ChangelogEntries, manifest.ManifestEntry{Kind: manifest.FileKindAdd, Partition: bf.Partition,
					Bucket: bf.Bucket, TotalBuckets: bf.TotalBuckets, File: f})
			}
			ch.IndexChanges = append(ch.IndexChanges, res.IndexChanges...)
		}
		if req.Progress != nil {
			req.Progress(i+1, len(groups), *stats)
		}
	}
	return ch, nil
}

// compactBucket picks and runs the compaction of one bucket; with
// req.Level0 it compacts the bucket's level-0 files up (compactLevel0),
// with req.Stall only a bucket over num-sorted-run.stop-trigger.
func (c *compactContext) compactBucket(ctx context.Context, b *compactBucket, req CompactRequest, st *PickState) (CompactResult, error) {
	full, level0 := req.Full, req.Level0
	if !c.pk {
		if req.Stall {
			return CompactResult{}, nil // append writers never wait (BucketedAppendCompactManager)
		}
		return c.compactAppend(ctx, b, full)
	}
	if req.Stall {
		levels, err := b.levels(ctx)
		if err != nil {
			return CompactResult{}, err
		}
		if !ShouldStallWrites(levels.NumberOfSortedRuns(), c.picker) {
			return CompactResult{}, nil
		}
	}
	if err := c.restoreDeletionVectors(ctx, b); err != nil {
		return CompactResult{}, err
	}
	var res CompactResult
	var err error
	if level0 {
		res, err = c.compactLevel0(ctx, b, st)
	} else {
		res, err = c.pickAndRun(ctx, b, full, st)
	}
	if err != nil {
		return CompactResult{}, err
	}
	if b.dvm != nil {
		changes, err := b.dvm.writeIndex(ctx, c.idx)
		if err != nil {
			return CompactResult{}, err
		}
		res.IndexChanges = append(res.IndexChanges, changes...)
	}
	return res, nil
}

// pickAndRun picks one unit of the bucket (full or universal) and runs it.
func (c *compactContext) pickAndRun(ctx context.Context, b *compactBucket, full bool, st *PickState) (CompactResult, error) {
	levels, err := b.levels(ctx)
	if err != nil {
		return CompactResult{}, err
	}
	runs := levels.LevelSortedRuns()
	var unit CompactUnit
	var ok bool
	if full {
		var rewrite func(*manifest.DataFileMeta) bool
		if c.forceRewriteAll {
			rewrite = func(*manifest.DataFileMeta) bool { return true }
		}
		unit, ok = PickFullCompaction(runs, levels.NumberOfLevels(), rewrite)
	} else {
		if st == nil {
			st = &PickState{}
		}
		st.Now = c.now()
		unit, ok = PickCompaction(runs, levels.NumberOfLevels(), c.picker, st)
	}
	if !ok {
		return CompactResult{}, nil
	}
	return c.runUnit(ctx, b, levels, unit)
}

// runUnit rewrites a picked unit of bucket b (whose files are levels) with
// the table's rewriter (Java MergeTreeCompactManager.submitCompaction).
func (c *compactContext) runUnit(ctx context.Context, b *compactBucket, levels *Levels, unit CompactUnit) (CompactResult, error) {
	dropDelete := DropDelete(unit, levels.NonEmptyHighestLevel(), c.lookup.DeletionVector)
	rw, closeRW := c.newRewriter(b, levels)
	res, err := b.compactUnit(ctx, rw, unit, dropDelete)
	if cerr := closeRW(); err == nil && cerr != nil {
		err = cerr
	}
	return res, err
}

// scanBuckets lists the live files of base by (partition, bucket), keeping
// the partitions and buckets req selects, in manifest order.
func (c *compactContext) scanBuckets(ctx context.Context, base *snapshot.Snapshot, req CompactRequest) ([]*BucketFiles, error) {
	keepPart, err := c.partitionSelector(req)
	if err != nil {
		return nil, err
	}
	var buckets map[BucketRef]bool
	if req.Buckets != nil {
		buckets = make(map[BucketRef]bool, len(req.Buckets))
		for _, b := range req.Buckets {
			buckets[b] = true
		}
	}
	decided := map[string]bool{}
	var selErr error
	live, _, err := c.tbl.Scan(ctx, base, snapshot.ScanOptions{
		KeepEntry: func(e *manifest.ManifestEntry) bool {
			if buckets != nil && !buckets[BucketRef{Partition: string(e.Partition), Bucket: e.Bucket}] {
				return false
			}
			if keepPart == nil {
				return true
			}
			keep, ok := decided[string(e.Partition)]
			if !ok {
				var err error
				if keep, err = keepPart(e.Partition); err != nil && selErr == nil {
					selErr = err
				}
				decided[string(e.Partition)] = keep
			}
			return keep
		},
	})
	if err != nil {
		return nil, err
	}
	if selErr != nil {
		return nil, selErr
	}
	idx := map[BucketRef]*BucketFiles{}
	var out []*BucketFiles
	for _, e := range live {
		k := BucketRef{Partition: string(e.Partition), Bucket: e.Bucket}
		bf, ok := idx[k]
		if !ok {
			bf = &BucketFiles{Partition: e.Partition, Bucket: e.Bucket, TotalBuckets: e.TotalBuckets}
			idx[k] = bf
			out = append(out, bf)
		}
		bf.Files = append(bf.Files, e.File)
	}
	return out, nil
}

// partitionSelector builds the partition test of req (nil: every
// partition).
func (c *compactContext) partitionSelector(req CompactRequest) (func(manifest.SerializedRow) (bool, error), error) {
	if req.Partitions == nil && req.PartitionFilter == nil {
		return nil, nil
	}
	type cond struct {
		idx int
		val any
	}
	var specs [][]cond
	for _, spec := range req.Partitions {
		var conds []cond
		for name, text := range spec {
			j := -1
			for i, f := range c.partFields {
				if strings.EqualFold(f.Name, name) {
					j = i
				}
			}
			if j < 0 {
				return nil, fmt.Errorf("%w: %s is not a partition column of the table (partition keys: %s)",
					ErrInvalidRequest, name, strings.Join(c.sch.PartitionKeys, ", "))
			}
			v, err := schema.ParsePartitionSpecValue(&c.partFields[j].Type, text, c.core.PartitionDefaultName)
			if err != nil {
				return nil, fmt.Errorf("%w: partition value %q for %s: %w", ErrInvalidRequest, text, name, err)
			}
			conds = append(conds, cond{j, v})
		}
		specs = append(specs, conds)
	}
	return func(row manifest.SerializedRow) (bool, error) {
		vals, err := binaryrow.DecodeSerialized(c.partTypes, row)
		if err != nil {
			return false, fmt.Errorf("lsmwrite: partition %x: %w", []byte(row), err)
		}
		if req.Partitions != nil {
			match := false
			for _, conds := range specs {
				ok := true
				for _, cd := range conds {
					v := vals[cd.idx]
					if (v == nil) != (cd.val == nil) || v != nil && !schema.Equal(&c.partFields[cd.idx].Type, v, cd.val) {
						ok = false
						break
					}
				}
				if ok {
					match = true
					break
				}
			}
			if !match {
				return false, nil
			}
		}
		if req.PartitionFilter != nil {
			return req.PartitionFilter(vals)
		}
		return true, nil
	}, nil
}
