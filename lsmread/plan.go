package lsmread

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"time"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// ScanSpec describes a batch scan (Java ReadBuilder + TableScan options).
type ScanSpec struct {
	TimeTravel
	// Projection names the columns to return, in order; nil returns all.
	Projection []string
	// Filter prunes partitions, files and buckets by statistics and filters
	// the rows read (SQL semantics). Field indexes refer to the schema the
	// scan reads (that of the snapshot read).
	Filter Predicate
	// PartitionSpecs keeps only partitions equal to one of the specs
	// (column name → value text; the default partition name means NULL).
	PartitionSpecs []map[string]string
	// Bucket keeps only this bucket.
	Bucket *int
	// OptionOverrides are table options applied for this read only
	// (e.g. another merge engine), like Java's dynamic options.
	OptionOverrides map[string]string
	// ReadOptimized reads only files that need no merging ($ro): the top
	// level of primary-key tables (levels ≥ 1 with deletion vectors).
	ReadOptimized bool
	// Delta, when set, reads the files that the APPEND snapshots in
	// (After, Upto] added (their delta manifests) as they are, without
	// merging: every record they hold, retractions included. Conflict
	// detection and streaming-style reads use it. TimeTravel is ignored.
	Delta *DeltaRange
	// Incremental, when set, reads the changes between two snapshots
	// (Java's incremental-between): ReadChanges returns each record with
	// its row kind. TimeTravel is ignored; the latest schema is read.
	Incremental *Incremental
	// KeepDelete keeps the retract records that merging leaves (Java's
	// forceKeepDelete): ReadChanges returns them with their row kind.
	// $audit_log reads a snapshot so.
	KeepDelete bool
	// TimeZone is the session time zone used by schema-evolution casts
	// between TIMESTAMP, TIMESTAMP_LTZ, numbers, dates and strings; nil is
	// UTC.
	TimeZone *time.Location
	// LatestSchema, when set, is the table's latest schema as the caller
	// has just read it (a statement resolves it once); a read of the latest
	// snapshot uses it instead of reading it again.
	LatestSchema *schema.TableSchema
}

// DeltaRange is a range of snapshots (After, Upto].
type DeltaRange struct {
	After, Upto snapshot.SnapshotID
}

// PlanStats counts what planning read and pruned (EXPLAIN shows them).
type PlanStats struct {
	ManifestsTotal    int
	ManifestsPruned   int
	FilesTotal        int // live files of the snapshot
	FilesPruned       int // by partition, bucket, level or statistics
	BucketsPruned     int // whole buckets pruned by value statistics
	Splits            int
	SkippedLevel0     int // level-0 files not read (deletion vectors / first-row)
	PartitionsScanned int
	// MergedBuckets counts the splits of a table that merges on read that
	// are read by merging sorted runs, RawBuckets those whose files need no
	// merge (one level above 0 without retract records, as after a full
	// compaction: read as they are, like Java's raw-convertible splits);
	// RunsMax and RunsTotal are the most sorted runs one of them holds and
	// their sum (EXPLAIN shows the maximum and the average).
	MergedBuckets, RawBuckets, RunsMax, RunsTotal int
	// ColumnMergedBuckets counts the merged buckets whose sorted runs are
	// merged over column batches (deduplicate tables), not row by row.
	ColumnMergedBuckets int
}

// RunsAvg is the average number of sorted runs of a bucket of a table that
// merges on read.
func (s PlanStats) RunsAvg() float64 {
	if s.MergedBuckets+s.RawBuckets == 0 {
		return 0
	}
	return float64(s.RunsTotal) / float64(s.MergedBuckets+s.RawBuckets)
}

// Plan is the result of planning a scan: the snapshot and schema read and
// the splits to read.
type Plan struct {
	Table    *Table
	Snapshot *snapshot.Snapshot // nil when the table has no snapshot
	Schema   *schema.TableSchema
	Options  schema.Options // table options with overrides applied
	Core     *schema.CoreOptions
	Spec     ScanSpec
	Splits   []*DataSplit
	Stats    PlanStats
	// inc is the resolved incremental range (Spec.Incremental).
	inc *incrementalRange
	// points are the primary keys the filter pins (point lookups), or nil.
	points *points
	// shared is state every plan narrowed from this one shares (Narrow).
	shared *planShared
	// sortedSplits says that Splits are in ascending order of their
	// partition values (comparePartitions): a batch plan's, and the plans
	// narrowed from it (Narrow keeps the order).
	sortedSplits bool
}

// Plan resolves the snapshot and lists the splits to read.
func (t *Table) Plan(ctx context.Context, spec ScanSpec) (*Plan, error) {
	tt := spec.TimeTravel
	if spec.Delta != nil {
		tt = TimeTravel{SnapshotID: spec.Delta.Upto}
	}
	if spec.Incremental != nil {
		return t.planIncremental(ctx, spec)
	}
	snap, err := t.ResolveSnapshot(ctx, tt)
	if err != nil {
		return nil, err
	}
	// Like Java, a read of the latest snapshot uses the table's latest
	// schema, and time travel uses the schema the snapshot was written with.
	var sch *schema.TableSchema
	if snap != nil && spec.TimeTravel.count() > 0 && spec.Delta == nil {
		sch, err = t.schemas.Schema(ctx, snap.SchemaID)
	} else if spec.LatestSchema != nil {
		sch = spec.LatestSchema
	} else {
		sch, err = t.schemas.Latest(ctx)
	}
	if err != nil {
		return nil, err
	}
	opts := sch.Options.Clone()
	if opts == nil {
		opts = schema.Options{}
	}
	maps.Copy(opts, spec.OptionOverrides)
	core, err := opts.Core()
	if err != nil {
		return nil, err
	}
	if err := checkSupported(sch, core); err != nil {
		return nil, err
	}
	p := &Plan{Table: t, Snapshot: snap, Schema: sch, Options: opts, Core: core, Spec: spec, shared: newPlanShared()}
	if _, err := p.projection(); err != nil {
		return nil, err
	}
	if snap == nil {
		return p, nil
	}
	if spec.Delta == nil {
		if rows := pinnedKeys(spec.Filter, sch); rows != nil {
			p.points = p.newPoints(rows)
		}
	}
	if err := p.planSplits(ctx); err != nil {
		return nil, err
	}
	if spec.Delta == nil {
		// A batch read: a big bucket becomes several splits, of files that
		// need no merge or of whole sections (delta, incremental and diff
		// reads keep one split per bucket).
		p.Splits = packSplits(p.Splits, core.SourceSplitTargetSize, core.SourceSplitOpenFileCost)
		if err := p.packMergeSplits(ctx, core.SourceSplitTargetSize, core.SourceSplitOpenFileCost); err != nil {
			return nil, err
		}
		p.Stats.Splits = len(p.Splits)
		p.sortedSplits = true // planSplits sorts; packing keeps the order
	}
	return p, nil
}

// checkSupported rejects table features lakesql cannot read correctly, naming
// them, rather than returning wrong rows.
func checkSupported(sch *schema.TableSchema, core *schema.CoreOptions) error {
	for _, f := range sch.Fields {
		if f.Type.Root == schema.TypeBlob {
			return fmt.Errorf("%w: BLOB column %q", ErrUnsupported, f.Name)
		}
	}
	if v, ok := sch.Options["data-evolution.enabled"]; ok && v == "true" {
		return fmt.Errorf("%w: data-evolution tables (row ranges written by several files)", ErrUnsupported)
	}
	switch core.FileFormat {
	case "parquet":
	default:
		// Files carry their own format in their name; a table whose
		// default is another format may still hold Parquet files, so the
		// check happens per file when it is opened.
	}
	return nil
}

// isPK reports whether the plan's table has a primary key.
func (p *Plan) isPK() bool { return len(p.Schema.PrimaryKeys) > 0 }

// rawPK reports whether a primary-key table is read without merging.
func (p *Plan) rawPK() bool {
	return p.Spec.Delta != nil || p.inc != nil || p.Core.DeletionVectorsEnabled || p.Core.MergeEngine == schema.MergeEngineFirstRow || p.Spec.ReadOptimized
}

// skipLevel0 is Java's CoreOptions.batchScanSkipLevel0.
func (p *Plan) skipLevel0() bool {
	return p.Core.DeletionVectorsEnabled || p.Core.MergeEngine == schema.MergeEngineFirstRow
}

// projection returns the indexes of the projected fields in p.Schema.Fields.
func (p *Plan) projection() ([]int, error) {
	if p.Spec.Projection == nil {
		idx := make([]int, len(p.Schema.Fields))
		for i := range idx {
			idx[i] = i
		}
		return idx, nil
	}
	idx := make([]int, len(p.Spec.Projection))
	for i, name := range p.Spec.Projection {
		j := p.Schema.FieldIndex(name)
		if j < 0 {
			return nil, fmt.Errorf("%w: unknown column %q", ErrInvalidScan, name)
		}
		idx[i] = j
	}
	return idx, nil
}

// partitionFilter is the part of the scan that partitions decide.
type partitionFilter struct {
	fields []schema.DataField
	types  []schema.DataType
	pos    map[int]int // schema field index → partition position
	pred   Predicate   // p.Spec.Filter
	specs  [][]any     // typed partition specs (nil entry = NULL)
	specOK [][]bool    // whether the spec names the partition column
}

func (p *Plan) newPartitionFilter() (*partitionFilter, error) {
	pf := &partitionFilter{fields: p.Schema.PartitionFields(), pos: map[int]int{}, pred: p.Spec.Filter}
	for i, f := range pf.fields {
		pf.types = append(pf.types, f.Type.WithNullable(true))
		pf.pos[p.Schema.FieldIndex(f.Name)] = i
	}
	for _, spec := range p.Spec.PartitionSpecs {
		vals := make([]any, len(pf.fields))
		ok := make([]bool, len(pf.fields))
		for name, text := range spec {
			j := -1
			for i, f := range pf.fields {
				if f.Name == name {
					j = i
				}
			}
			if j < 0 {
				return nil, fmt.Errorf("%w: %q is not a partition column", ErrInvalidScan, name)
			}
			v, err := schema.ParsePartitionSpecValue(&pf.fields[j].Type, text, p.Core.PartitionDefaultName)
			if err != nil {
				return nil, fmt.Errorf("%w: partition value %q for %s: %w", ErrInvalidScan, text, name, err)
			}
			vals[j], ok[j] = v, true
		}
		pf.specs = append(pf.specs, vals)
		pf.specOK = append(pf.specOK, ok)
	}
	return pf, nil
}

// matches decides a partition by its decoded values.
func (pf *partitionFilter) matches(values []any) bool {
	if len(pf.specs) > 0 {
		any := false
		for i, spec := range pf.specs {
			all := true
			for j := range spec {
				if !pf.specOK[i][j] {
					continue
				}
				a, b := values[j], spec[j]
				if (a == nil) != (b == nil) || a != nil && schema.Compare(&pf.types[j], a, b) != 0 {
					all = false
					break
				}
			}
			if all {
				any = true
				break
			}
		}
		if !any {
			return false
		}
	}
	if pf.pred == nil || len(pf.fields) == 0 {
		return true
	}
	return Test(pf.pred, func(field int) (any, bool) {
		j, ok := pf.pos[field]
		if !ok {
			return nil, false
		}
		return values[j], true
	}) != False
}

// mayMatchStats decides a manifest file by its partition statistics.
func (pf *partitionFilter) mayMatchStats(st manifest.SimpleStats, rowCount int64) bool {
	if pf.pred == nil || len(pf.fields) == 0 {
		return true
	}
	mins, err1 := binaryrow.DecodeSerialized(pf.types, st.MinValues)
	maxs, err2 := binaryrow.DecodeSerialized(pf.types, st.MaxValues)
	if err1 != nil || err2 != nil || len(mins) != len(pf.fields) || len(maxs) != len(pf.fields) {
		return true
	}
	return MayMatch(pf.pred, func(field int) (ColumnStats, bool) {
		j, ok := pf.pos[field]
		if !ok {
			return ColumnStats{}, false
		}
		nc := int64(-1)
		if j < len(st.NullCounts) && st.NullCounts[j] != nil {
			nc = *st.NullCounts[j]
		}
		return ColumnStats{Min: mins[j], Max: maxs[j], NullCount: nc, RowCount: rowCount}, true
	})
}

type bucketKey struct {
	partition string
	bucket    manifest.Bucket
}

func (p *Plan) planSplits(ctx context.Context) error {
	pf, err := p.newPartitionFilter()
	if err != nil {
		return err
	}
	var lists []string // nil: the snapshot's base and delta lists
	changes := p.Spec.Delta != nil || p.inc != nil
	if p.inc != nil {
		if lists, err = p.incrementalLists(ctx); err != nil {
			return err
		}
	} else if d := p.Spec.Delta; d != nil {
		lists = []string{}
		for id := d.After + 1; id <= d.Upto; id++ {
			s, err := p.Table.snapshots.Snapshot(ctx, id)
			if err != nil {
				return err
			}
			if s.CommitKind == snapshot.CommitKindCompact {
				continue // compaction rewrites, it does not change rows
			}
			lists = append(lists, s.DeltaManifestList)
		}
	}
	partValues := map[string][]any{}
	decodePartition := func(row manifest.SerializedRow) ([]any, error) {
		if v, ok := partValues[string(row)]; ok {
			return v, nil
		}
		v, err := binaryrow.DecodeSerialized(pf.types, row)
		if err != nil {
			return nil, fmt.Errorf("lsmread: partition of snapshot %d: %w", p.Snapshot.ID, err)
		}
		partValues[string(row)] = v
		return v, nil
	}
	keepPartition := map[string]bool{}
	raw := !p.isPK() || p.rawPK()
	merging := !raw && p.inc == nil // the table's buckets merge on read unless their files need no merge
	var entryErr error
	live, scanStats, err := p.Table.handle.Scan(ctx, p.Snapshot, snapshot.ScanOptions{
		Lists: lists,
		KeepManifest: func(m *manifest.ManifestFileMeta) bool {
			return pf.mayMatchStats(m.PartitionStats, m.NumAddedFiles+m.NumDeletedFiles) && p.bucketMayMatch(m.MinBucket, m.MaxBucket)
		},
		KeepEntry: func(e *manifest.ManifestEntry) bool {
			keep, seen := keepPartition[string(e.Partition)]
			if !seen {
				vals, err := decodePartition(e.Partition)
				if err != nil {
					entryErr = cmp.Or(entryErr, err)
					return false
				}
				keep = pf.matches(vals)
				keepPartition[string(e.Partition)] = keep
			}
			if !keep || p.Spec.Bucket != nil && int(e.Bucket) != *p.Spec.Bucket {
				return false
			}
			if !p.points.keepBucket(e.Bucket, e.TotalBuckets) {
				p.Stats.FilesPruned++
				return false // no pinned key hashes to this bucket
			}
			if changes && e.Kind != manifest.FileKindAdd {
				return false
			}
			if p.isPK() && e.File.Level == 0 && !p.Spec.ReadOptimized && p.Spec.Delta == nil && p.skipLevel0() {
				// Level-0 files are not visible to batch reads of tables with
				// deletion vectors or first-row, incremental reads included
				// (Java CoreOptions.batchScanSkipLevel0).
				return false
			}
			return true
		},
	})
	if err != nil {
		return err
	}
	if entryErr != nil {
		return entryErr
	}
	p.Stats.ManifestsTotal += scanStats.ManifestsTotal
	p.Stats.ManifestsPruned += scanStats.ManifestsPruned
	groups := map[bucketKey][]manifest.ManifestEntry{}
	var order []bucketKey
	for _, e := range live {
		if e.Kind != manifest.FileKindAdd {
			continue
		}
		k := bucketKey{string(e.Partition), e.Bucket}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], e)
	}
	var dvs map[bucketKey]map[string]*DeletionFile
	if !changes {
		dvs, err = p.loadDeletionFiles(ctx)
	}
	if err != nil {
		return err
	}
	pruner, err := newStatsPruner(ctx, p)
	if err != nil {
		return err
	}
	for _, k := range order {
		entries := groups[k]
		p.Stats.FilesTotal += len(entries)
		split := &DataSplit{
			SnapshotID:      int64(p.Snapshot.ID),
			Partition:       entries[0].Partition,
			PartitionValues: partValues[k.partition],
			Bucket:          k.bucket,
			TotalBuckets:    entries[0].TotalBuckets,
			Mode:            ReadMerge,
		}
		if raw {
			split.Mode = ReadRaw
		}
		if p.inc != nil {
			split.Mode = ReadRecords
		}
		split.PartitionPath, err = schema.PartitionPath(pf.fields, split.PartitionValues, p.Core.PartitionDefaultName, p.Core.PartitionLegacyName)
		if err != nil {
			return err
		}
		files := make([]manifest.DataFileMeta, 0, len(entries))
		for _, e := range entries {
			if p.Spec.ReadOptimized && p.isPK() && !p.topLevel(e.File.Level) {
				p.Stats.FilesPruned++
				continue
			}
			files = append(files, e.File)
		}
		if split.Mode == ReadMerge && rawConvertible(files) {
			// A bucket needs no merge (a fully compacted one): read its
			// files as they are, and prune them by value statistics too.
			split.Mode = ReadRaw
		}
		files, pruned, err := pruner.pruneFiles(split, files)
		if err != nil {
			return err
		}
		p.Stats.FilesPruned += pruned
		if len(files) == 0 {
			continue
		}
		if split.Mode == ReadMerge && rawConvertible(files) {
			split.Mode = ReadRaw // the files the key filter keeps need no merge
		}
		// Files of a bucket in write order (Java orders append files by
		// sequence number), level by level; the files of an incremental
		// read stay in snapshot order.
		sort.SliceStable(files, func(i, j int) bool {
			if p.inc != nil {
				return false
			}
			if files[i].Level != files[j].Level {
				return files[i].Level < files[j].Level
			}
			if files[i].MinSequenceNumber != files[j].MinSequenceNumber {
				return files[i].MinSequenceNumber < files[j].MinSequenceNumber
			}
			return files[i].FileName < files[j].FileName
		})
		split.Files = files
		if d := dvs[k]; d != nil {
			split.DeletionFiles = make([]*DeletionFile, len(files))
			for i, f := range files {
				split.DeletionFiles[i] = d[f.FileName]
			}
		}
		if merging {
			runs := manifest.SortedRuns(files)
			if split.Mode == ReadMerge {
				p.Stats.MergedBuckets++
				if p.columnMergeable() {
					p.Stats.ColumnMergedBuckets++
				}
			} else {
				p.Stats.RawBuckets++
			}
			p.Stats.RunsTotal += runs
			p.Stats.RunsMax = max(p.Stats.RunsMax, runs)
		}
		p.Splits = append(p.Splits, split)
	}
	slices.SortStableFunc(p.Splits, func(a, b *DataSplit) int {
		if c := comparePartitions(pf.types, a.PartitionValues, b.PartitionValues); c != 0 {
			return c
		}
		if c := bytes.Compare(a.Partition, b.Partition); c != 0 {
			return c
		}
		return int(a.Bucket) - int(b.Bucket)
	})
	p.Stats.Splits = len(p.Splits)
	parts := map[string]bool{}
	for _, s := range p.Splits {
		parts[string(s.Partition)] = true
	}
	p.Stats.PartitionsScanned = len(parts)
	p.observeSortedRuns() // plan_metrics.go
	return nil
}

func comparePartitions(types []schema.DataType, a, b []any) int {
	for i := range types {
		if i >= len(a) || i >= len(b) {
			break
		}
		if c := schema.Compare(&types[i], a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}

func (p *Plan) bucketMayMatch(minB, maxB *manifest.Bucket) bool {
	if p.Spec.Bucket == nil || minB == nil || maxB == nil {
		return true
	}
	b := manifest.Bucket(*p.Spec.Bucket)
	return b >= *minB && b <= *maxB
}

// topLevel reports whether level is read by a read-optimized scan.
func (p *Plan) topLevel(level manifest.Level) bool {
	if p.Core.DeletionVectorsEnabled {
		return level > 0
	}
	return int(level) == p.Core.NumLevels-1
}

// loadDeletionFiles reads the snapshot's index manifest: for each
// (partition, bucket), the deletion file of each data file.
func (p *Plan) loadDeletionFiles(ctx context.Context) (map[bucketKey]map[string]*DeletionFile, error) {
	if p.Snapshot.IndexManifest == nil {
		return nil, nil
	}
	name := *p.Snapshot.IndexManifest
	entries, err := snapshot.CachedIndexManifest(ctx, p.Table.store, name)
	if err != nil {
		return nil, err
	}
	out := map[bucketKey]map[string]*DeletionFile{}
	types := make([]schema.DataType, 0)
	for _, f := range p.Schema.PartitionFields() {
		types = append(types, f.Type.WithNullable(true))
	}
	for _, e := range entries {
		if e.Kind != manifest.FileKindAdd || e.IndexFile.IndexType != manifest.IndexTypeDeletionVectors {
			continue
		}
		path := "index/" + e.IndexFile.FileName
		if e.IndexFile.ExternalPath != nil && *e.IndexFile.ExternalPath != "" {
			path = *e.IndexFile.ExternalPath
		} else if p.Core.IndexFileInDataFileDir {
			vals, err := binaryrow.DecodeSerialized(types, e.Partition)
			if err != nil {
				return nil, fmt.Errorf("lsmread: index manifest %s: %w", name, err)
			}
			pp, err := schema.PartitionPath(p.Schema.PartitionFields(), vals, p.Core.PartitionDefaultName, p.Core.PartitionLegacyName)
			if err != nil {
				return nil, err
			}
			path = pp + BucketDir(e.Bucket) + e.IndexFile.FileName
		}
		k := bucketKey{string(e.Partition), e.Bucket}
		m := out[k]
		if m == nil {
			m = map[string]*DeletionFile{}
			out[k] = m
		}
		for _, r := range e.IndexFile.DVRanges {
			card := int64(-1)
			if r.Cardinality != nil {
				card = *r.Cardinality
			}
			m[r.DataFileName] = &DeletionFile{Path: path, Offset: int64(r.Offset), Length: int64(r.Length), Cardinality: card}
		}
	}
	return out, nil
}
