package lsmwrite

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/dv"
	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/sortedrun"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// compactContext is what every bucket of one compaction of one table
// shares: the table's latest schema (outputs are written with it, inputs
// read through schema evolution), the file layout, the merge function and
// key order, the picker's options, and the files created so far (deleted
// when the compaction is abandoned).
type compactContext struct {
	tbl  *snapshot.Table
	st   storage.Storage
	sch  *schema.TableSchema
	core *schema.CoreOptions
	pk   bool
	now  func() time.Time

	spec      *fileSpec
	created   []string
	reader    *sortedrun.Reader
	keyReader *sortedrun.Reader // reads only the trimmed primary key (lookups)

	// lookup is what the table's compaction looks up (Java LookupStrategy);
	// idx reads and writes its deletion-vector index files.
	lookup LookupStrategy
	idx    *indexFiles
	// baseIndex is the index manifest of the compacted snapshot (tables
	// with deletion vectors).
	baseIndex []manifest.IndexManifestEntry
	bitmap64  bool
	// rowDedup compares values for changelog-producer.row-deduplicate.
	rowDedup func(a, b []any) bool

	// primary-key tables
	mff      *kv.MergeFunctionFactory
	keyTypes []schema.DataType
	keyCmp   kv.Comparator
	// key types of the trimmed primary key by schema id, to decode the
	// _MIN_KEY/_MAX_KEY of files written with older schemas
	keyTypesByID map[int64][]schema.DataType

	partFields []schema.DataField
	partTypes  []schema.DataType

	numLevels       int
	picker          CompactionOptions
	forceRewriteAll bool
	minFileNum      int   // append tables: compaction.min.file-num
	openFileCost    int64 // append tables: source.split.open-file-cost
}

// newCompactContext prepares compacting the table tbl with schema sch.
// options override table options for this compaction only (Java's dynamic
// options of CALL sys.compact).
func newCompactContext(tbl *snapshot.Table, sch *schema.TableSchema, options map[string]string, now func() time.Time) (*compactContext, error) {
	if len(options) > 0 {
		sch = sch.Copy()
		if sch.Options == nil {
			sch.Options = schema.Options{}
		}
		for k, v := range options {
			sch.Options[k] = v
		}
	}
	if err := CheckCompactable(sch); err != nil {
		return nil, err
	}
	core, err := sch.Options.Core()
	if err != nil {
		return nil, err
	}
	if now == nil {
		now = time.Now
	}
	c := &compactContext{tbl: tbl, st: tbl.Storage(), sch: sch, core: core, pk: sch.IsPrimaryKeyTable(), now: now,
		keyTypesByID: map[int64][]schema.DataType{}}
	if c.partFields, err = sch.ProjectedFields(sch.PartitionKeys); err != nil {
		return nil, err
	}
	for _, f := range c.partFields {
		c.partTypes = append(c.partTypes, f.Type)
	}
	trimmed := sch.TrimmedPrimaryKeys()
	keyFields, err := sch.ProjectedFields(trimmed)
	if err != nil {
		return nil, err
	}
	for _, f := range keyFields {
		c.keyTypes = append(c.keyTypes, f.Type)
	}
	modes, err := parseStatsModes(sch)
	if err != nil {
		return nil, err
	}
	if c.spec, err = newFileSpec(c.st, sch, core, keyFields, modes, now, &c.created); err != nil {
		return nil, err
	}
	var keyIdx []int
	if c.pk {
		keyIdx = sch.Projection(trimmed)
		if c.mff, err = kv.NewMergeFunctionFactory(sch.Options, sch.Fields, sch.PrimaryKeys); err != nil {
			return nil, err
		}
		c.keyCmp = kv.NewKeyComparator(c.keyTypes)
		c.keyTypesByID[int64(sch.ID)] = c.keyTypes
	}
	src := sortedrun.Source{Store: c.st, Schemas: tbl.Schemas()}
	c.reader = sortedrun.NewReader(src, sch.Fields, nil, keyIdx, time.UTC)
	if c.pk {
		need := make([]bool, len(sch.Fields))
		for _, i := range keyIdx {
			need[i] = true
		}
		c.keyReader = sortedrun.NewReader(src, sch.Fields, need, keyIdx, time.UTC)
		if c.lookup, err = LookupStrategyOf(core, sch.Options); err != nil {
			return nil, err
		}
		if c.rowDedup, err = rowDeduplicate(sch); err != nil {
			return nil, err
		}
	}
	c.bitmap64 = core.DeletionVectorsBitmap64
	c.idx = &indexFiles{st: c.st, inDataDir: core.IndexFileInDataFileDir, names: dv.NewIndexFileNamer(), created: &c.created,
		targetSize: core.DeletionVectorIndexFileTargetSize}
	if c.numLevels, err = sch.Options.NumLevels(); err != nil {
		return nil, err
	}
	if c.picker, err = CompactionOptionsFrom(sch.Options); err != nil {
		return nil, err
	}
	if c.forceRewriteAll, err = sch.Options.CompactionForceRewriteAllFiles(); err != nil {
		return nil, err
	}
	if c.minFileNum, err = sch.Options.CompactionMinFileNum(); err != nil {
		return nil, err
	}
	if c.openFileCost, err = sch.Options.SourceSplitOpenFileCost(); err != nil {
		return nil, err
	}
	return c, nil
}

// CheckCompactable reports the table features lakesql cannot compact,
// each an error naming the option (wrapping ErrUnsupported): exactly those
// CheckWritable refuses (a table lakesql writes, it also compacts).
func CheckCompactable(sch *schema.TableSchema) error { return CheckWritable(sch) }

// abort deletes every file the compaction wrote (best effort).
func (c *compactContext) abort(ctx context.Context) error {
	ctx = context.WithoutCancel(ctx) // a canceled compaction still takes its files back
	var first error
	for _, p := range c.created {
		if err := c.st.Delete(ctx, p); err != nil && !errors.Is(err, storage.ErrNotExist) && first == nil {
			first = fmt.Errorf("lsmwrite: abandon compaction: delete %s: %w", p, err)
		}
	}
	c.created = nil
	return first
}

// keyTypesOf returns the trimmed primary-key types of the schema a file was
// written with.
func (c *compactContext) keyTypesOf(ctx context.Context, schemaID int64) ([]schema.DataType, error) {
	if t, ok := c.keyTypesByID[schemaID]; ok {
		return t, nil
	}
	fs, err := c.tbl.Schemas().Schema(ctx, schema.SchemaID(schemaID))
	if err != nil {
		return nil, err
	}
	var types []schema.DataType
	for _, f := range fs.TrimmedPrimaryKeyFields() {
		types = append(types, f.Type)
	}
	c.keyTypesByID[schemaID] = types
	return types, nil
}

// BucketFiles are the live files of one (partition, bucket) of a snapshot.
type BucketFiles struct {
	Partition    manifest.SerializedRow
	Bucket       manifest.Bucket
	TotalBuckets int32
	Files        []manifest.DataFileMeta
}

// compactBucket is one (partition, bucket) being compacted.
type compactBucket struct {
	c       *compactContext
	bf      *BucketFiles
	path    string // partition path, "" or ending in '/'
	names   *dataFilePathFactory
	stats   *CompactStats
	keys    map[string][2][]any // decoded min/max key by file name
	partial []any               // decoded partition values
	// dvm holds the bucket's deletion vectors (tables with deletion
	// vectors; nil otherwise): inputs are read with them applied.
	dvm *bucketDvMaintainer
	// appendDV holds the deletion vectors of the partition of a
	// bucket-unaware append table with deletion vectors.
	appendDV *appendDvMaintainer
}

// appendDeletionVector is the deletion vector of a data file of an append
// table's bucket, or nil.
func (b *compactBucket) appendDeletionVector(ctx context.Context, file string) (dv.DeletionVector, error) {
	if b.appendDV != nil {
		return b.appendDV.deletionVectorOf(ctx, b.c.idx, file)
	}
	return b.deletionVector(file), nil
}

// deletionVector is the deletion vector of a data file of the bucket, or
// nil.
func (b *compactBucket) deletionVector(file string) dv.DeletionVector {
	if b.dvm == nil {
		return nil
	}
	return b.dvm.deletionVectorOf(file)
}

func (c *compactContext) newBucket(bf *BucketFiles, stats *CompactStats) (*compactBucket, error) {
	vals, err := binaryrow.DecodeSerialized(c.partTypes, bf.Partition)
	if err != nil {
		return nil, fmt.Errorf("lsmwrite: partition of bucket %d: %w", bf.Bucket, err)
	}
	path, err := schema.PartitionPath(c.partFields, vals, c.core.PartitionDefaultName, c.core.PartitionLegacyName)
	if err != nil {
		return nil, err
	}
	b := &compactBucket{c: c, bf: bf, path: path, stats: stats, partial: vals, keys: map[string][2][]any{}}
	b.names = &dataFilePathFactory{
		dir:             path + BucketDir(bf.Bucket) + "/",
		uuid:            uuid.NewString(),
		dataPrefix:      c.core.DataFilePrefix,
		changelogPrefix: c.core.ChangelogFilePrefix,
		format:          "parquet",
	}
	return b, nil
}

func (b *compactBucket) String() string {
	return fmt.Sprintf("partition %q bucket %d", strings.TrimSuffix(b.path, "/"), b.bf.Bucket)
}

// file describes a data file of the bucket for the sorted-run reader.
func (b *compactBucket) file(f *manifest.DataFileMeta) *sortedrun.File {
	sf := &sortedrun.File{Name: f.FileName, Dir: b.names.dir, SchemaID: f.SchemaID, Level: int(f.Level)}
	if f.ExternalPath != nil {
		sf.ExternalPath = *f.ExternalPath
	}
	return sf
}

func (b *compactBucket) openKeyValues(ctx context.Context, f *manifest.DataFileMeta) (kv.RecordReader, error) {
	if err := checkParquet(f); err != nil {
		return nil, err
	}
	b.stats.BytesRead += f.FileSize
	b.stats.RowsRead += f.RowCount
	r, err := b.c.reader.OpenKeyValuesDV(ctx, b.file(f), b.deletionVector(f.FileName))
	if err != nil {
		return nil, err
	}
	return r, nil
}

// bounds returns a file's decoded min and max key.
func (b *compactBucket) bounds(ctx context.Context, f *manifest.DataFileMeta) ([2][]any, error) {
	if k, ok := b.keys[f.FileName]; ok {
		return k, nil
	}
	types, err := b.c.keyTypesOf(ctx, f.SchemaID)
	if err != nil {
		return [2][]any{}, err
	}
	mn, err := binaryrow.DecodeSerialized(types, f.MinKey)
	if err != nil {
		return [2][]any{}, fmt.Errorf("lsmwrite: min key of %s: %w", f.FileName, err)
	}
	mx, err := binaryrow.DecodeSerialized(types, f.MaxKey)
	if err != nil {
		return [2][]any{}, fmt.Errorf("lsmwrite: max key of %s: %w", f.FileName, err)
	}
	k := [2][]any{mn, mx}
	b.keys[f.FileName] = k
	return k, nil
}

// decodeBounds decodes the key bounds of every file of the bucket.
func (b *compactBucket) decodeBounds(ctx context.Context) error {
	for i := range b.bf.Files {
		if _, err := b.bounds(ctx, &b.bf.Files[i]); err != nil {
			return err
		}
	}
	return nil
}

// levels groups the bucket's files into Levels, level runs in key order.
func (b *compactBucket) levels(ctx context.Context) (*Levels, error) {
	if err := b.decodeBounds(ctx); err != nil {
		return nil, err
	}
	// NewLevels compares min keys by their bytes: map them to the decoded
	// keys (files of a level >= 1 never share a min key).
	minKeys := make(map[string][]any, len(b.bf.Files))
	for i := range b.bf.Files {
		f := &b.bf.Files[i]
		minKeys[string(f.MinKey)] = b.keys[f.FileName][0]
	}
	return NewLevels(b.bf.Files, b.c.numLevels, func(x, y manifest.SerializedRow) int {
		return b.c.keyCmp(minKeys[string(x)], minKeys[string(y)])
	})
}

// partition splits files into sections of sorted runs (IntervalPartition).
func (b *compactBucket) partition(ctx context.Context, files []manifest.DataFileMeta) ([][]SortedRun, error) {
	for i := range files {
		if _, err := b.bounds(ctx, &files[i]); err != nil {
			return nil, err
		}
	}
	parts := kv.IntervalPartition(files,
		func(f manifest.DataFileMeta) []any { return b.keys[f.FileName][0] },
		func(f manifest.DataFileMeta) []any { return b.keys[f.FileName][1] },
		b.c.keyCmp)
	out := make([][]SortedRun, len(parts))
	for i, sec := range parts {
		out[i] = make([]SortedRun, len(sec))
		for j, run := range sec {
			out[i][j] = SortedRun{Files: run}
		}
	}
	return out, nil
}

// newRewriter chooses the rewriter of one unit of bucket b whose levels
// are levels (Java KeyValueFileStoreWrite.createRewriter, in its order):
// the full-compaction changelog rewriter for changelog-producer =
// full-compaction, the lookup rewriter for tables that need lookup
// (deletion vectors, first-row, changelog-producer=lookup, force-lookup),
// else the merge-tree rewriter. close releases what the rewriter holds.
func (c *compactContext) newRewriter(b *compactBucket, levels *Levels) (rw CompactRewriter, close func() error) {
	mt := &mergeTreeRewriter{c: c, b: b}
	if c.core.ChangelogProducer == schema.ChangelogProducerFullCompaction {
		return &fullChangelogRewriter{mergeTreeRewriter: mt, maxLevel: c.numLevels - 1}, func() error { return nil }
	}
	if c.lookup.NeedLookup {
		r := c.newLookupRewriter(b, levels)
		return r, r.close
	}
	return mt, func() error { return nil }
}
