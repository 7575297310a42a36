package lsmwrite

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/google/uuid"
	"golang.org/x/sync/errgroup"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/dv"
	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/metrics"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// Options configure a TableWrite.
type Options struct {
	// CommitUser identifies the writer in the snapshot; default: a new UUID.
	CommitUser string
	// Branch is the branch committed to ("" = main).
	Branch string
	// Now is the clock for file creation times and the commit (tests);
	// time.Now when nil.
	Now func() time.Time
}

// bucketMode is how rows are spread over buckets (Java BucketMode).
type bucketMode uint8

const (
	bucketFixed   bucketMode = iota // HASH_FIXED: bucket = hash(bucket key) mod N
	bucketDynamic                   // HASH_DYNAMIC: HASH index per partition
	bucketUnaware                   // BUCKET_UNAWARE: append tables, all in bucket 0
)

// keepBufCap is the largest record buffer a bucket keeps after a flush;
// larger ones go to the writer's spare buffers (at most maxSpareBufs),
// which a bucket whose buffer is full takes instead of growing its own.
const (
	keepBufCap   = 1024
	maxSpareBufs = 4
)

// slabSize is the number of value slots allocated at once for buffered
// records.
const slabSize = 1 << 14

// TableWrite buffers the rows of one transaction on one table and turns them
// into new files (Java TableWriteImpl over KeyValueFileStoreWrite or
// AppendFileStoreWrite). Not safe for concurrent use.
type TableWrite struct {
	st     storage.Storage
	sch    *schema.TableSchema
	core   *schema.CoreOptions
	base   *snapshot.Snapshot
	opts   Options
	spec   *fileSpec
	mode   bucketMode
	closed bool
	// overwrite, when set, turns the commit into an INSERT OVERWRITE.
	overwrite *overwriteSpec

	partIdx    []int
	partFields []schema.DataField
	partTypes  []schema.DataType
	partWriter *binaryrow.Writer
	partVals   []any

	keyIdx   []int               // trimmed primary key columns
	bucketer *binaryrow.Bucketer // fixed buckets
	hasher   *binaryrow.Bucketer // dynamic buckets: hash of the trimmed key
	notNull  []int               // NOT NULL columns

	mff    *kv.MergeFunctionFactory
	keyCmp kv.Comparator
	seqCmp kv.Comparator

	ignoreDelete       bool
	ignoreUpdateBefore bool

	// lookup is what compaction of the table looks up; writeOnly is
	// write-only (no compaction by the writer).
	lookup    LookupStrategy
	writeOnly bool
	// dvAppend: an append table with deletion vectors (row-level deletes).
	dvAppend bool
	rowEnc   *rowEncoder
	idx      *indexFiles

	partitions map[string]*partitionState
	partOrder  []*partitionState
	bufBytes   int64

	created    []string
	indexNames *dv.IndexFileNamer
	baseIndex  []manifest.IndexManifestEntry // nil until loaded
	indexRead  bool

	slab []any
	perm []int32 // reused sort permutation
	// spare are emptied record buffers of flushed buckets (keepBufCap).
	spare [][]kv.KeyValue
	// background: full buffers are flushed by a goroutine while Write
	// goes on (flush_background.go); inflight is that flush, flushErr
	// the first error of one.
	background bool
	inflight   *flushJob
	flushErr   error
}

// partitionState is what a TableWrite knows of one partition it writes.
type partitionState struct {
	row     manifest.SerializedRow
	path    string
	buckets map[int32]*bucketState
	// restored from the base snapshot
	baseMaxSeq map[int32]int64
	baseTotal  map[int32]int32
	index      *partitionIndex                       // dynamic bucket only
	oldIndex   map[int32]manifest.IndexManifestEntry // dynamic bucket only
	// baseFiles are the live files by bucket (append tables with deletion
	// vectors: the files a delete looks for its rows in).
	baseFiles map[int32][]manifest.DataFileMeta
}

// sortedBuckets lists the partition's buckets written to, ascending.
func (p *partitionState) sortedBuckets() []int32 {
	bks := make([]int32, 0, len(p.buckets))
	for b := range p.buckets {
		bks = append(bks, b)
	}
	slices.Sort(bks)
	return bks
}

// bucketState is the writer of one (partition, bucket).
type bucketState struct {
	bucket    int32
	total     int32
	nextSeq   int64
	buf       []kv.KeyValue
	bytes     int64
	data      *rollingWriter
	changelog *rollingWriter // changelog-producer=input
	deletes   *appendDeletes // rows deleted (append tables with deletion vectors)
}

// NewTableWrite returns a writer of one transaction on the table rooted at
// st whose current schema is sch; base is the snapshot the transaction
// starts from (nil for an empty table). It fails with ErrUnsupported for
// tables CheckWritable rejects.
func NewTableWrite(ctx context.Context, st storage.Storage, sch *schema.TableSchema, base *snapshot.Snapshot, opts Options) (*TableWrite, error) {
	if err := CheckWritable(sch); err != nil {
		return nil, fmt.Errorf("lsmwrite: table cannot be written: %w", err)
	}
	core, err := sch.Options.Core()
	if err != nil {
		return nil, err
	}
	if opts.CommitUser == "" {
		opts.CommitUser = uuid.NewString()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	w := &TableWrite{
		st: st, sch: sch, core: core, base: base, opts: opts,
		partitions: map[string]*partitionState{},
		indexNames: dv.NewIndexFileNamer(),
	}
	pk := sch.IsPrimaryKeyTable()
	switch {
	case core.Bucket > 0:
		w.mode = bucketFixed
	case pk:
		w.mode = bucketDynamic
	default:
		w.mode = bucketUnaware
	}
	types := make([]schema.DataType, len(sch.Fields))
	for i, f := range sch.Fields {
		types[i] = f.Type
		if !f.Type.Nullable {
			w.notNull = append(w.notNull, i)
		}
	}
	w.partIdx = sch.Projection(sch.PartitionKeys)
	w.partFields, err = sch.ProjectedFields(sch.PartitionKeys)
	if err != nil {
		return nil, err
	}
	w.partTypes = make([]schema.DataType, len(w.partFields))
	for i, f := range w.partFields {
		w.partTypes[i] = f.Type
	}
	if w.partWriter, err = binaryrow.NewWriter(w.partTypes); err != nil {
		return nil, fmt.Errorf("lsmwrite: partition: %w", err)
	}
	w.partVals = make([]any, len(w.partIdx))
	trimmed := sch.TrimmedPrimaryKeys()
	w.keyIdx = sch.Projection(trimmed)
	keyFields, err := sch.ProjectedFields(trimmed)
	if err != nil {
		return nil, err
	}
	fnType, err := binaryrow.ParseBucketFunctionType(sch.Options[schema.OptBucketFunctionType])
	if err != nil {
		return nil, err
	}
	switch w.mode {
	case bucketFixed:
		if w.bucketer, err = binaryrow.NewBucketer(types, sch.Projection(sch.BucketKeys()), core.Bucket, fnType); err != nil {
			return nil, fmt.Errorf("lsmwrite: bucket key: %w", err)
		}
	case bucketDynamic:
		if w.hasher, err = binaryrow.NewBucketer(types, w.keyIdx, 1, binaryrow.BucketFunctionDefault); err != nil {
			return nil, fmt.Errorf("lsmwrite: primary key: %w", err)
		}
	}
	if w.writeOnly, err = sch.Options.WriteOnly(); err != nil {
		return nil, err
	}
	w.dvAppend = !pk && core.DeletionVectorsEnabled
	modes, err := parseStatsModes(sch)
	if err != nil {
		return nil, err
	}
	if w.spec, err = newFileSpec(st, sch, core, keyFields, modes, opts.Now, &w.created); err != nil {
		return nil, err
	}
	w.spec.deferSync()
	if pk {
		if w.mff, err = kv.NewMergeFunctionFactory(sch.Options, sch.Fields, sch.PrimaryKeys); err != nil {
			return nil, err
		}
		keyTypes := make([]schema.DataType, len(keyFields))
		for i, f := range keyFields {
			keyTypes[i] = f.Type
		}
		w.keyCmp = kv.NewKeyComparator(keyTypes)
		w.seqCmp = w.mff.SequenceComparator()
		w.ignoreDelete = core.IgnoreDelete
		if w.lookup, err = LookupStrategyOf(core, sch.Options); err != nil {
			return nil, err
		}
		if w.ignoreUpdateBefore, err = boolOption(sch.Options, optIgnoreUpdateBefore); err != nil {
			return nil, err
		}
	}
	return w, nil
}

func boolOption(o schema.Options, key string) (bool, error) {
	v, ok := o[key]
	if !ok {
		return false, nil
	}
	switch {
	case equalFold(v, "true"):
		return true, nil
	case equalFold(v, "false"):
		return false, nil
	}
	return false, fmt.Errorf("%w: table option %s=%s is not a boolean", schema.ErrInvalidOption, key, v)
}

func equalFold(a, b string) bool { return bytes.EqualFold([]byte(a), []byte(b)) }

// CommitUser is the commit user of the snapshot this write produces.
func (w *TableWrite) CommitUser() string { return w.opts.CommitUser }

// Write adds one row (one value per schema field, in the schema value model)
// with its row kind. Append tables accept only +I. The row slice is copied
// (primary-key tables) or written at once (append tables); the caller may
// reuse it.
func (w *TableWrite) Write(ctx context.Context, kind kv.RowKind, row []any) error {
	if w.closed {
		return ErrClosed
	}
	if w.flushErr != nil {
		return w.flushErr
	}
	if len(row) != len(w.sch.Fields) {
		return fmt.Errorf("%w: %d values for %d columns", ErrInvalidRow, len(row), len(w.sch.Fields))
	}
	if kind < kv.Insert || kind > kv.Delete {
		return fmt.Errorf("%w: row kind %d", ErrInvalidRow, int8(kind))
	}
	for _, i := range w.notNull {
		if row[i] == nil {
			return fmt.Errorf("%w: NULL in NOT NULL column %s", ErrInvalidRow, w.sch.Fields[i].Name)
		}
	}
	if !w.spec.pk {
		if kind != kv.Insert && !w.dvAppend {
			return fmt.Errorf("%w: append table %s accepts only inserts, got %v", ErrInvalidRow, "rows", kind)
		}
	} else if !kind.IsAdd() && (w.ignoreDelete || (kind == kv.UpdateBefore && w.ignoreUpdateBefore)) {
		return nil // TableWriteImpl's RowKindFilter
	} else if !kind.IsAdd() {
		if err := w.checkRetract(kind, row); err != nil {
			return err
		}
	}
	p, err := w.partition(ctx, row)
	if err != nil {
		return err
	}
	b, err := w.bucketOf(ctx, p, row)
	if err != nil {
		return err
	}
	bs, err := w.bucketState(p, b)
	if err != nil {
		return err
	}
	if !w.spec.pk && !kind.IsAdd() {
		return w.deleteAppendRow(bs, row)
	}
	seq := bs.nextSeq
	bs.nextSeq++
	if !w.spec.pk {
		return bs.data.writeRow(ctx, seq, row)
	}
	nk := len(w.keyIdx)
	slots := w.alloc(nk + len(row))
	key, value := slots[:nk:nk], slots[nk:]
	for i, k := range w.keyIdx {
		key[i] = row[k]
	}
	copy(value, row)
	if len(bs.buf) == cap(bs.buf) && len(w.spare) > 0 {
		w.growFromSpare(bs)
	}
	bs.buf = append(bs.buf, kv.KeyValue{Key: key, Seq: kv.SeqNum(seq), Kind: kind, Value: value, Level: -1})
	sz := kv.KVOverhead + kv.RowSize(value) + int64(nk)*kv.SlotOverhead
	bs.bytes += sz
	w.bufBytes += sz
	metrics.WriteBufferBytes.Add(sz)
	if w.background {
		return w.flushAhead(ctx)
	}
	if w.bufBytes > w.core.WriteBufferSize {
		return w.flushLargest(ctx)
	}
	return nil
}

// checkRetract refuses a retract record the table's merge engine cannot
// take (partial-update without remove-record-on-delete or sequence groups,
// first-row without ignore-delete, aggregate functions without retraction):
// Java writes it and fails when the key is next merged, by a read or a
// compaction, which would leave the key (and, for tables compacted on
// write, the whole bucket) failing until the table is rewritten. lakesql
// fails the write instead, with the merge engine's message.
func (w *TableWrite) checkRetract(kind kv.RowKind, row []any) error {
	mf := w.mff.New()
	mf.Reset()
	if err := mf.Add(kv.KeyValue{Kind: kind, Value: row, Level: -1}); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidRow, err)
	}
	return nil
}

// growFromSpare moves a full bucket buffer into the largest spare buffer
// when that one is larger (a buffer grown by append would copy the
// records at every doubling after each flush); the buffer left goes to
// the spares when it is worth keeping.
func (w *TableWrite) growFromSpare(bs *bucketState) {
	best := -1
	for i, b := range w.spare {
		if cap(b) > len(bs.buf) && (best < 0 || cap(b) > cap(w.spare[best])) {
			best = i
		}
	}
	if best < 0 {
		return
	}
	buf := append(w.spare[best][:0], bs.buf...)
	old := bs.buf
	w.spare[best] = w.spare[len(w.spare)-1]
	w.spare[len(w.spare)-1] = nil
	w.spare = w.spare[:len(w.spare)-1]
	bs.buf = buf
	if cap(old) > keepBufCap {
		clear(old)
		w.spare = append(w.spare, old[:0])
	}
}

func (w *TableWrite) alloc(n int) []any {
	if n > slabSize/4 {
		return make([]any, n)
	}
	if len(w.slab) < n {
		w.slab = make([]any, slabSize)
	}
	s := w.slab[:n:n]
	w.slab = w.slab[n:]
	return s
}

// partition returns the state of the row's partition, creating it (and
// restoring what the base snapshot knows of it) on first use.
func (w *TableWrite) partition(ctx context.Context, row []any) (*partitionState, error) {
	for i, k := range w.partIdx {
		w.partVals[i] = row[k]
	}
	enc, err := w.partWriter.EncodeSerialized(w.partVals)
	if err != nil {
		return nil, fmt.Errorf("%w: partition: %w", ErrInvalidRow, err)
	}
	if p, ok := w.partitions[string(enc)]; ok {
		return p, nil
	}
	path, err := schema.PartitionPath(w.partFields, w.partVals, w.core.PartitionDefaultName, w.core.PartitionLegacyName)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidRow, err)
	}
	p := &partitionState{
		row:        manifest.SerializedRow(bytes.Clone(enc)),
		path:       path,
		buckets:    map[int32]*bucketState{},
		baseMaxSeq: map[int32]int64{},
		baseTotal:  map[int32]int32{},
	}
	if err := w.restore(ctx, p); err != nil {
		return nil, err
	}
	w.partitions[string(p.row)] = p
	w.partOrder = append(w.partOrder, p)
	return p, nil
}

// restore reads the live files (and, for dynamic buckets, the HASH index
// files) of a partition in the base snapshot.
func (w *TableWrite) restore(ctx context.Context, p *partitionState) error {
	if w.mode == bucketDynamic {
		p.index = newPartitionIndex(w.core.DynamicBucketTargetRowNum)
		p.oldIndex = map[int32]manifest.IndexManifestEntry{}
	}
	if w.base == nil {
		if p.index != nil {
			p.index.finishLoad()
		}
		return nil
	}
	live, err := snapshot.LiveEntries(ctx, w.st, w.base, func(part []byte, _ int32) bool {
		return bytes.Equal(part, p.row)
	})
	if err != nil {
		return fmt.Errorf("lsmwrite: restore partition %q: %w", p.path, err)
	}
	if w.dvAppend {
		p.baseFiles = map[int32][]manifest.DataFileMeta{}
	}
	for _, e := range live {
		b := int32(e.Bucket)
		if p.baseFiles != nil {
			p.baseFiles[b] = append(p.baseFiles[b], e.File)
		}
		if cur, ok := p.baseMaxSeq[b]; !ok || e.File.MaxSequenceNumber > cur {
			p.baseMaxSeq[b] = e.File.MaxSequenceNumber
		}
		p.baseTotal[b] = e.TotalBuckets
	}
	if p.index == nil {
		return nil
	}
	entries, err := w.baseIndexEntries(ctx)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Kind != manifest.FileKindAdd || e.IndexFile.IndexType != manifest.IndexTypeHash || !bytes.Equal(e.Partition, p.row) {
			continue
		}
		path := dv.IndexFilePath(e.IndexFile.FileName)
		if e.IndexFile.ExternalPath != nil {
			return fmt.Errorf("%w: HASH index file %s at external path %s", ErrUnsupported, e.IndexFile.FileName, *e.IndexFile.ExternalPath)
		}
		if w.core.IndexFileInDataFileDir {
			path = p.path + BucketDir(e.Bucket) + "/" + e.IndexFile.FileName
		}
		data, err := w.st.ReadAll(ctx, path)
		if err != nil {
			return fmt.Errorf("lsmwrite: read HASH index %s: %w", path, err)
		}
		hashes, err := DecodeHashIndex(data)
		if err != nil {
			return fmt.Errorf("lsmwrite: %s: %w", path, err)
		}
		p.index.load(int32(e.Bucket), hashes)
		p.oldIndex[int32(e.Bucket)] = e
	}
	p.index.finishLoad()
	return nil
}

func (w *TableWrite) baseIndexEntries(ctx context.Context) ([]manifest.IndexManifestEntry, error) {
	if w.indexRead || w.base == nil || w.base.IndexManifest == nil {
		return w.baseIndex, nil
	}
	name := *w.base.IndexManifest
	data, err := w.st.ReadAll(ctx, manifest.Path(name))
	if err != nil {
		return nil, fmt.Errorf("lsmwrite: read index manifest %s: %w", name, err)
	}
	entries, err := manifest.ReadIndexManifest(data, name)
	if err != nil {
		return nil, err
	}
	w.baseIndex, w.indexRead = entries, true
	return entries, nil
}

// bucketOf assigns the row's bucket.
func (w *TableWrite) bucketOf(_ context.Context, p *partitionState, row []any) (int32, error) {
	switch w.mode {
	case bucketFixed:
		b, err := w.bucketer.Bucket(row)
		if err != nil {
			return 0, fmt.Errorf("%w: bucket key: %w", ErrInvalidRow, err)
		}
		return int32(b), nil
	case bucketDynamic:
		h, err := w.hasher.Hash(row)
		if err != nil {
			return 0, fmt.Errorf("%w: primary key: %w", ErrInvalidRow, err)
		}
		return p.index.assign(h), nil
	}
	return 0, nil
}

// totalBuckets is the _TOTAL_BUCKETS this table writes: the bucket count
// for fixed buckets, -1 for dynamic and unaware buckets (Java writes
// options.bucket(), AbstractFileStoreWrite).
func (w *TableWrite) totalBuckets() int32 {
	if w.mode == bucketFixed {
		return int32(w.core.Bucket)
	}
	return -1
}

func (w *TableWrite) bucketState(p *partitionState, b int32) (*bucketState, error) {
	if bs, ok := p.buckets[b]; ok {
		return bs, nil
	}
	total := w.totalBuckets()
	if t, ok := p.baseTotal[b]; ok && t != total && !w.replaces(p.row) {
		where := "table"
		if p.path != "" {
			where = "partition " + p.path
		}
		return nil, fmt.Errorf("%w: %s bucket %d was written with %d buckets, the table now has bucket=%d; rescale it first (CALL sys.rescale, or INSERT OVERWRITE of the partition)",
			ErrBucketCount, where, b, t, w.core.Bucket)
	}
	bs := &bucketState{bucket: b, total: total}
	if m, ok := p.baseMaxSeq[b]; ok {
		bs.nextSeq = m + 1
	}
	names := &dataFilePathFactory{
		dir:             p.path + BucketDir(manifest.Bucket(b)) + "/",
		uuid:            uuid.NewString(),
		dataPrefix:      w.core.DataFilePrefix,
		changelogPrefix: w.core.ChangelogFilePrefix,
		format:          "parquet",
	}
	bs.data = newRollingWriter(w.spec, names, false)
	if w.spec.pk && w.core.ChangelogProducer == schema.ChangelogProducerInput {
		bs.changelog = newRollingWriter(w.spec, names, true)
	}
	p.buckets[b] = bs
	return bs, nil
}

// flushLargest flushes the largest bucket buffer (Java flushes the largest
// writer when the shared write buffer pool is exhausted) and, in parallel
// with it, the next largest ones up to GOMAXPROCS that hold at least half
// as much: one bucket at a time left the other cores idle, while flushing
// smaller buckets early would only make more, smaller level-0 files.
func (w *TableWrite) flushLargest(ctx context.Context) error {
	var all []*bucketState
	for _, p := range w.partOrder {
		for _, bs := range p.buckets {
			if bs.bytes > 0 {
				all = append(all, bs)
			}
		}
	}
	slices.SortFunc(all, func(a, b *bucketState) int { return cmp.Compare(b.bytes, a.bytes) })
	if len(all) == 0 {
		return nil
	}
	pick := all[:1]
	for len(pick) < min(len(all), runtime.GOMAXPROCS(0)) && all[len(pick)].bytes*2 >= all[0].bytes {
		pick = all[:len(pick)+1]
	}
	if len(pick) == 1 {
		return w.flush(ctx, pick[0])
	}
	return w.flushBuckets(ctx, pick)
}

// flush sorts a bucket's buffer by (key, sequence fields, sequence number),
// merges the records of each key with the table's merge function (wrapped
// by the reducer, as Java's MergeTreeWriter does), and writes one run of
// level-0 files (plus changelog files of the raw input with
// changelog-producer=input).
func (w *TableWrite) flush(ctx context.Context, bs *bucketState) error {
	var err error
	w.perm, err = w.flushBucket(ctx, bs, w.perm)
	w.flushed(bs)
	return err
}

// flushed accounts for a flushed bucket's buffer. A large buffer goes to
// the spares (or is dropped): many buckets (one per partition and bucket)
// each keeping the largest buffer they had would hold memory growing with
// the statement.
func (w *TableWrite) flushed(bs *bucketState) {
	w.bufBytes -= bs.bytes
	metrics.WriteBufferBytes.Add(-bs.bytes)
	bs.bytes = 0
	if len(bs.buf) == 0 && cap(bs.buf) > keepBufCap {
		if len(w.spare) < maxSpareBufs && !w.closed {
			w.spare = append(w.spare, bs.buf)
		}
		bs.buf = nil
	}
}

// flushBucket sorts, merges and writes one bucket's buffer with the sort
// permutation perm (returned for reuse). It touches only bs, so buckets
// flush in parallel (Prepare); the caller accounts the bytes (flushed).
func (w *TableWrite) flushBucket(ctx context.Context, bs *bucketState, perm []int32) ([]int32, error) {
	if len(bs.buf) == 0 {
		return perm, nil
	}
	perm = w.sortBuffer(bs.buf, perm)
	if err := w.writeSorted(ctx, bs, bs.buf, perm); err != nil {
		return perm, err
	}
	clear(bs.buf)
	bs.buf = bs.buf[:0]
	return perm, nil
}

// writeSorted writes buf, a buffer of bs in the order of perm, to bs's
// files.
func (w *TableWrite) writeSorted(ctx context.Context, bs *bucketState, buf []kv.KeyValue, perm []int32) error {
	if bs.changelog != nil {
		for _, i := range perm {
			if err := bs.changelog.writeKV(ctx, buf[i]); err != nil {
				return err
			}
		}
		if err := bs.changelog.closeCurrent(); err != nil {
			return err
		}
	}
	r := w.mff.NewReader([]kv.RecordReader{&sortedRun{buf: buf, perm: perm}}, w.keyCmp)
	for {
		rec, ok, err := r.Next()
		if err != nil {
			_ = r.Close()
			return fmt.Errorf("lsmwrite: merge write buffer: %w", err)
		}
		if !ok {
			break
		}
		if err := bs.data.writeKV(ctx, rec); err != nil {
			_ = r.Close()
			return err
		}
	}
	if err := r.Close(); err != nil {
		return err
	}
	return bs.data.closeCurrent()
}

// Prepare flushes every buffer, closes every file and returns the changes
// to commit: Kind APPEND, one ADD entry per new data file, the changelog
// files, and for dynamic buckets the HASH index changes (DELETE of the old
// index file and ADD of a full new one for every bucket that got new keys).
// The TableWrite is closed afterwards; on error call Abort.
func (w *TableWrite) Prepare(ctx context.Context) (*snapshot.CommitChanges, error) {
	if w.closed {
		return nil, ErrClosed
	}
	w.closed = true
	if err := w.waitFlush(); err != nil {
		return nil, err
	}
	ch := &snapshot.CommitChanges{
		Kind:             snapshot.CommitKindAppend,
		CommitUser:       w.opts.CommitUser,
		CommitIdentifier: snapshot.BatchCommitIdentifier,
		Durable:          w.spec.waitDurable,
	}
	if err := w.flushAll(ctx); err != nil {
		return nil, err
	}
	for _, p := range w.partOrder {
		for _, b := range p.sortedBuckets() {
			bs := p.buckets[b]
			for _, f := range bs.data.files {
				ch.Entries = append(ch.Entries, manifest.ManifestEntry{
					Kind: manifest.FileKindAdd, Partition: p.row, Bucket: manifest.Bucket(b), TotalBuckets: bs.total, File: f,
				})
			}
			if bs.changelog != nil {
				for _, f := range bs.changelog.files {
					ch.ChangelogEntries = append(ch.ChangelogEntries, manifest.ManifestEntry{
						Kind: manifest.FileKindAdd, Partition: p.row, Bucket: manifest.Bucket(b), TotalBuckets: bs.total, File: f,
					})
				}
			}
		}
		if w.dvAppend {
			changes, err := w.resolveAppendDeletes(ctx, p)
			if err != nil {
				return nil, err
			}
			ch.IndexChanges = append(ch.IndexChanges, changes...)
		}
		if p.index != nil {
			changes, err := w.writeHashIndex(ctx, p)
			if err != nil {
				return nil, err
			}
			ch.IndexChanges = append(ch.IndexChanges, changes...)
		}
	}
	return ch, nil
}

// flushAll flushes every bucket's buffer (primary-key tables) or closes its
// current file (append tables), buckets in parallel (up to GOMAXPROCS):
// sorting, merging, encoding and compressing one bucket is independent of
// the others.
func (w *TableWrite) flushAll(ctx context.Context) error {
	var all []*bucketState
	for _, p := range w.partOrder {
		for _, b := range p.sortedBuckets() {
			all = append(all, p.buckets[b])
		}
	}
	return w.flushBuckets(ctx, all)
}

// flushBuckets flushes the buffers of bss (primary-key tables) or closes
// their current files (append tables), in parallel up to GOMAXPROCS.
func (w *TableWrite) flushBuckets(ctx context.Context, bss []*bucketState) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for _, bs := range bss {
		g.Go(func() error {
			if !w.spec.pk {
				return bs.data.closeCurrent()
			}
			_, err := w.flushBucket(gctx, bs, nil)
			return err
		})
	}
	err := g.Wait()
	for _, bs := range bss {
		w.flushed(bs)
	}
	return err
}

// writeHashIndex writes a full HASH index file for every bucket of p that
// got new keys (Java DynamicBucketIndexMaintainer.prepareCommit).
func (w *TableWrite) writeHashIndex(ctx context.Context, p *partitionState) ([]manifest.IndexManifestEntry, error) {
	bks := make([]int32, 0, len(p.index.changed))
	for b := range p.index.changed {
		bks = append(bks, b)
	}
	slices.Sort(bks)
	var out []manifest.IndexManifestEntry
	for _, b := range bks {
		hashes := p.index.hashes[b]
		data := EncodeHashIndex(hashes)
		name := w.indexNames.Next()
		path := dv.IndexFilePath(name)
		if w.core.IndexFileInDataFileDir {
			path = p.path + BucketDir(manifest.Bucket(b)) + "/" + name
		}
		if err := w.st.WriteAll(ctx, path, data); err != nil {
			return nil, fmt.Errorf("lsmwrite: write HASH index %s: %w", path, err)
		}
		w.created = append(w.created, path)
		if old, ok := p.oldIndex[b]; ok {
			old.Kind = manifest.FileKindDelete
			out = append(out, old)
		}
		out = append(out, manifest.IndexManifestEntry{
			Kind: manifest.FileKindAdd, Partition: p.row, Bucket: manifest.Bucket(b),
			IndexFile: manifest.IndexFileMeta{
				IndexType: manifest.IndexTypeHash, FileName: name, FileSize: int64(len(data)), RowCount: int64(len(hashes)),
			},
		})
	}
	return out, nil
}

// Abort closes open files and deletes every file written so far (best
// effort; the first error is returned). The TableWrite is closed afterwards.
func (w *TableWrite) Abort(ctx context.Context) error {
	w.closed = true
	_ = w.waitFlush() // its files are deleted below
	metrics.WriteBufferBytes.Add(-w.bufBytes)
	w.bufBytes = 0
	for _, p := range w.partOrder {
		for _, bs := range p.buckets {
			bs.data.abort()
			if bs.changelog != nil {
				bs.changelog.abort()
			}
			clear(bs.buf)
			bs.buf = nil
		}
	}
	w.spare = nil
	ctx = context.WithoutCancel(ctx) // a canceled statement still takes its files back
	var first error
	for _, path := range w.created {
		if err := w.st.Delete(ctx, path); err != nil && !errors.Is(err, storage.ErrNotExist) && first == nil {
			first = fmt.Errorf("lsmwrite: abort: delete %s: %w", path, err)
		}
	}
	w.created = nil
	return first
}

// Commit prepares the changes and commits them with snapshot.Committer,
// configured from the table's options (manifest codec, partition and key
// types, commit.max-retries, manifest sizes). A lost race is retried inside
// the committer; a real conflict returns an error wrapping
// snapshot.ErrConflict, and the files written are deleted then. Empty
// changes create no snapshot and return the latest one.
func (w *TableWrite) Commit(ctx context.Context) (*snapshot.Snapshot, error) {
	return w.CommitIf(ctx, nil)
}

// CommitIf is Commit with a check run before every commit attempt on the
// snapshot the attempt builds on (nil: the table is empty); an error from
// check aborts the commit and deletes the files written. sys.rescale uses
// it to give up when rows were committed since it read the partition
// (Java: commit.strict-mode.last-safe-snapshot).
func (w *TableWrite) CommitIf(ctx context.Context, check func(ctx context.Context, latest *snapshot.Snapshot) error) (*snapshot.Snapshot, error) {
	ch, err := w.Prepare(ctx)
	if err != nil {
		_ = w.Abort(ctx)
		return nil, err
	}
	w.applyOverwrite(ch)
	var keyTypes []schema.DataType
	if w.spec.pk {
		keyTypes = w.spec.keyTypes
	}
	co, err := commitOptions(w.core, w.opts.Branch, w.partTypes, keyTypes, w.opts.Now, w.mode == bucketUnaware)
	if err != nil {
		_ = w.Abort(ctx)
		return nil, err
	}
	co.SchemaTimeMillis = w.sch.TimeMillis
	var s *snapshot.Snapshot
	if check == nil {
		s, err = snapshot.NewCommitter(w.st, co).Commit(ctx, w.sch.ID, ch)
	} else {
		s, err = snapshot.NewCommitter(w.st, co).CommitEach(ctx, w.sch.ID, func(ctx context.Context, latest *snapshot.Snapshot) (*snapshot.CommitChanges, error) {
			if err := check(ctx, latest); err != nil {
				return nil, err
			}
			return ch, nil
		})
	}
	if err != nil {
		abandonFailed(ctx, w.st, w.opts.Branch, w.sch.ID, err, func() { _ = w.Abort(ctx) })
		return nil, err
	}
	if s != nil && w.needsLevel0Compaction() {
		return w.compactLevel0After(ctx, s, w.Buckets())
	}
	return s, nil
}

// Buckets lists the (partition, bucket) pairs the write has written to, in
// partition then bucket order: after a commit, the buckets automatic
// compaction looks at.
func (w *TableWrite) Buckets() []BucketRef {
	var out []BucketRef
	for _, p := range w.partOrder {
		for _, b := range p.sortedBuckets() {
			out = append(out, BucketRef{Partition: string(p.row), Bucket: manifest.Bucket(b)})
		}
	}
	return out
}
