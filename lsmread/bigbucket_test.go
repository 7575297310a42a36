package lsmread_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmread"
	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// This file generates a primary-key table with one large bucket made of
// three overlapping level-0 files and reads it through merge-on-read,
// checking every merged row and measuring peak heap and throughput.
//
// Data files are written with parquet-go directly: internal/datafile has no
// writer yet, and only test data generation uses parquet-go here (the
// layering rule "only internal/datafile imports parquet-go" is about
// non-test code). The layout is Java's KeyValue file layout
// (paimon-format.md §7.1): _KEY_id, _SEQUENCE_NUMBER, _VALUE_KIND, then the
// table columns, each with its Paimon field id.
//
// The table: id BIGINT NOT NULL (primary key), name STRING, amount DOUBLE;
// bucket = 1; deduplicate. For n base keys:
//
//	file A, seq 0..:  +I (k, "n<k>" or NULL when k%7 == 0, k)     k in [0, n)
//	file B, next seq: +U (k, "u<k>", 2k)                           k in [0, n), k%3 == 0
//	file C, next seq: -D (k, "d<k>", -1)                           k in [0, n), k%5 == 0
//	                  +I (k, "c<k>", k+0.5)                        k in [n, n+m)
//
// so the merged result is, in key order: keys k%5 == 0 deleted, k%3 == 0
// updated, the rest as inserted, then the m new keys.

// kvRecord is one row of a KeyValue Parquet file of the generated table.
type kvRecord struct {
	KeyID  int64    `parquet:"_KEY_id,id(1073741823)"`
	Seq    int64    `parquet:"_SEQUENCE_NUMBER,id(2147483646)"`
	Kind   int8     `parquet:"_VALUE_KIND,id(2147483645)"`
	ID     int64    `parquet:"id,id(0)"`
	Name   *string  `parquet:"name,id(1),optional"`
	Amount *float64 `parquet:"amount,id(2),optional"`
}

var bigTableFields = []schema.DataField{
	{ID: 0, Name: "id", Type: schema.DataType{Root: schema.TypeBigInt}},
	{ID: 1, Name: "name", Type: schema.StringType()},
	{ID: 2, Name: "amount", Type: schema.AtomicType(schema.TypeDouble)},
}

// bigTable describes a generated table.
type bigTable struct {
	n, m        int64 // base keys, new keys
	fileRecords int64 // records in the three files
	merged      int64 // rows a merged read returns
	genTime     time.Duration
	bytes       int64 // data file bytes
}

func newBigTable(n, m int64) *bigTable {
	t := &bigTable{n: n, m: m}
	t.merged = n - (n+4)/5 + m
	t.fileRecords = n + (n+2)/3 + (n+4)/5 + m
	return t
}

// expected returns the merged row of key k, and whether k survives.
func (b *bigTable) expected(k int64) (name *string, amount float64, ok bool) {
	if k >= b.n {
		s := "c" + strconv.FormatInt(k, 10)
		return &s, float64(k) + 0.5, true
	}
	if k%5 == 0 {
		return nil, 0, false
	}
	if k%3 == 0 {
		s := "u" + strconv.FormatInt(k, 10)
		return &s, float64(2 * k), true
	}
	if k%7 == 0 {
		return nil, float64(k), true
	}
	s := "n" + strconv.FormatInt(k, 10)
	return &s, float64(k), true
}

// fileStats accumulates a generated file's metadata.
type fileStats struct {
	rows, deletes        int64
	minKey, maxKey       int64
	minSeq, maxSeq       int64
	minName, maxName     *string
	minAmount, maxAmount *float64
	nameNulls            int64
}

func (s *fileStats) add(r *kvRecord) {
	if s.rows == 0 {
		s.minKey, s.minSeq = r.KeyID, r.Seq
	}
	s.rows++
	s.maxKey, s.maxSeq = r.KeyID, r.Seq
	if r.Kind == 1 || r.Kind == 3 {
		s.deletes++
	}
	if r.Name == nil {
		s.nameNulls++
	} else {
		if s.minName == nil || *r.Name < *s.minName {
			v := *r.Name
			s.minName = &v
		}
		if s.maxName == nil || *r.Name > *s.maxName {
			v := *r.Name
			s.maxName = &v
		}
	}
	if a := r.Amount; a != nil {
		if s.minAmount == nil || *a < *s.minAmount {
			v := *a
			s.minAmount = &v
		}
		if s.maxAmount == nil || *a > *s.maxAmount {
			v := *a
			s.maxAmount = &v
		}
	}
}

func ptrAny[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

func i64(v int64) *int64 { return &v }

// meta builds the file's DataFileMeta: keys, key and value statistics.
func (s *fileStats) meta(name string, size int64) (manifest.DataFileMeta, error) {
	keyTypes := []schema.DataType{bigTableFields[0].Type}
	minKey, err := binaryrow.EncodeSerialized(keyTypes, []any{s.minKey})
	if err != nil {
		return manifest.DataFileMeta{}, err
	}
	maxKey, err := binaryrow.EncodeSerialized(keyTypes, []any{s.maxKey})
	if err != nil {
		return manifest.DataFileMeta{}, err
	}
	valTypes := make([]schema.DataType, len(bigTableFields))
	for i, f := range bigTableFields {
		valTypes[i] = f.Type.WithNullable(true)
	}
	minVals, err := binaryrow.EncodeSerialized(valTypes, []any{s.minKey, ptrAny(s.minName), ptrAny(s.minAmount)})
	if err != nil {
		return manifest.DataFileMeta{}, err
	}
	maxVals, err := binaryrow.EncodeSerialized(valTypes, []any{s.maxKey, ptrAny(s.maxName), ptrAny(s.maxAmount)})
	if err != nil {
		return manifest.DataFileMeta{}, err
	}
	source := manifest.FileSourceAppend
	created := time.Now().UnixMilli()
	return manifest.DataFileMeta{
		FileName: name,
		FileSize: size,
		RowCount: s.rows,
		MinKey:   minKey,
		MaxKey:   maxKey,
		KeyStats: manifest.SimpleStats{MinValues: minKey, MaxValues: maxKey, NullCounts: []*int64{i64(0)}},
		ValueStats: manifest.SimpleStats{MinValues: minVals, MaxValues: maxVals,
			NullCounts: []*int64{i64(0), i64(s.nameNulls), i64(0)}},
		MinSequenceNumber: s.minSeq,
		MaxSequenceNumber: s.maxSeq,
		SchemaID:          0,
		Level:             0,
		ExtraFiles:        []string{},
		CreationTime:      &created,
		DeleteRowCount:    &s.deletes,
		FileSource:        &source,
	}, nil
}

// writeKVFile writes bucket-0/<name> from gen, which calls emit for each
// record in key order, and returns its metadata.
func writeKVFile(ctx context.Context, st storage.Storage, name string, gen func(emit func(kvRecord) error) error) (manifest.DataFileMeta, error) {
	w, err := st.Create(ctx, "bucket-0/"+name)
	if err != nil {
		return manifest.DataFileMeta{}, err
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	pw := parquet.NewGenericWriter[kvRecord](bw, parquet.Compression(&parquet.Zstd), parquet.MaxRowsPerRowGroup(1<<20))
	var stats fileStats
	batch := make([]kvRecord, 0, 4096)
	flush := func() error {
		_, err := pw.Write(batch)
		batch = batch[:0]
		return err
	}
	err = gen(func(r kvRecord) error {
		stats.add(&r)
		batch = append(batch, r)
		if len(batch) == cap(batch) {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err == nil {
		err = pw.Close()
	}
	if err == nil {
		err = bw.Flush()
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return manifest.DataFileMeta{}, fmt.Errorf("write %s: %w", name, err)
	}
	f, err := st.Open(ctx, "bucket-0/"+name)
	if err != nil {
		return manifest.DataFileMeta{}, err
	}
	size := f.Size()
	if err := f.Close(); err != nil {
		return manifest.DataFileMeta{}, err
	}
	return stats.meta(name, size)
}

// generate writes the table into st: schema-0, three level-0 data files in
// bucket-0, one manifest, the manifest lists and snapshot-1.
func (b *bigTable) generate(ctx context.Context, st storage.Storage) error {
	start := time.Now()
	if err := writeBigTableSchema(ctx, st); err != nil {
		return err
	}
	str := func(prefix string, k int64) *string {
		s := prefix + strconv.FormatInt(k, 10)
		return &s
	}
	f64 := func(v float64) *float64 { return &v }
	var seq int64
	gens := []func(emit func(kvRecord) error) error{
		func(emit func(kvRecord) error) error { // A: inserts
			for k := range b.n {
				name := str("n", k)
				if k%7 == 0 {
					name = nil
				}
				if err := emit(kvRecord{KeyID: k, Seq: seq, Kind: 0, ID: k, Name: name, Amount: f64(float64(k))}); err != nil {
					return err
				}
				seq++
			}
			return nil
		},
		func(emit func(kvRecord) error) error { // B: updates
			for k := int64(0); k < b.n; k += 3 {
				if err := emit(kvRecord{KeyID: k, Seq: seq, Kind: 2, ID: k, Name: str("u", k), Amount: f64(float64(2 * k))}); err != nil {
					return err
				}
				seq++
			}
			return nil
		},
		func(emit func(kvRecord) error) error { // C: deletes, then new keys
			for k := int64(0); k < b.n; k += 5 {
				if err := emit(kvRecord{KeyID: k, Seq: seq, Kind: 3, ID: k, Name: str("d", k), Amount: f64(-1)}); err != nil {
					return err
				}
				seq++
			}
			for k := b.n; k < b.n+b.m; k++ {
				if err := emit(kvRecord{KeyID: k, Seq: seq, Kind: 0, ID: k, Name: str("c", k), Amount: f64(float64(k) + 0.5)}); err != nil {
					return err
				}
				seq++
			}
			return nil
		},
	}
	total, bytes, err := writeKVSnapshot(ctx, st, gens)
	if err != nil {
		return err
	}
	b.bytes = bytes
	if total != b.fileRecords {
		return fmt.Errorf("generated %d records, want %d", total, b.fileRecords)
	}
	b.genTime = time.Since(start)
	return nil
}

// writeBigTableSchema writes schema-0 of the generated table.
func writeBigTableSchema(ctx context.Context, st storage.Storage) error {
	sch := &schema.TableSchema{
		Version:        schema.SchemaVersionCurrent,
		ID:             0,
		Fields:         bigTableFields,
		HighestFieldID: 2,
		PartitionKeys:  []string{},
		PrimaryKeys:    []string{"id"},
		Options:        schema.Options{"bucket": "1", "file.format": "parquet"},
		TimeMillis:     time.Now().UnixMilli(),
	}
	data, err := schema.EncodeTableSchema(sch)
	if err != nil {
		return err
	}
	return st.WriteAll(ctx, snapshot.SchemaPath(snapshot.MainBranch, 0), data)
}

// writeKVSnapshot writes one level-0 data file in bucket-0 per generator,
// one manifest, the manifest lists and snapshot-1, and returns the records
// and bytes written.
func writeKVSnapshot(ctx context.Context, st storage.Storage, gens []func(emit func(kvRecord) error) error) (total, bytes int64, err error) {
	pf := manifest.NewPathFactory()
	var entries []manifest.ManifestEntry
	for i, gen := range gens {
		name := fmt.Sprintf("data-%s-%d.parquet", pf.UUID(), i)
		meta, err := writeKVFile(ctx, st, name, gen)
		if err != nil {
			return 0, 0, err
		}
		total += meta.RowCount
		bytes += meta.FileSize
		entries = append(entries, manifest.ManifestEntry{
			Kind: manifest.FileKindAdd, Partition: manifest.EmptyRow, Bucket: 0, TotalBuckets: 1, File: meta,
		})
	}
	mdata, err := manifest.WriteManifest(entries)
	if err != nil {
		return 0, 0, err
	}
	mname := pf.NewManifestName()
	if err := st.WriteAll(ctx, manifest.Path(mname), mdata); err != nil {
		return 0, 0, err
	}
	meta := manifest.NewManifestFileMeta(mname, int64(len(mdata)), entries, 0, manifest.EmptyStats())
	base, err := manifest.WriteManifestList(nil)
	if err != nil {
		return 0, 0, err
	}
	delta, err := manifest.WriteManifestList([]manifest.ManifestFileMeta{meta})
	if err != nil {
		return 0, 0, err
	}
	baseName, deltaName := pf.NewManifestListName(), pf.NewManifestListName()
	if err := st.WriteAll(ctx, manifest.Path(baseName), base); err != nil {
		return 0, 0, err
	}
	if err := st.WriteAll(ctx, manifest.Path(deltaName), delta); err != nil {
		return 0, 0, err
	}
	baseSize, deltaSize := int64(len(base)), int64(len(delta))
	snap := &snapshot.Snapshot{
		Version:               snapshot.CurrentSnapshotVersion,
		ID:                    1,
		SchemaID:              0,
		BaseManifestList:      baseName,
		BaseManifestListSize:  &baseSize,
		DeltaManifestList:     deltaName,
		DeltaManifestListSize: &deltaSize,
		CommitUser:            "lakesql-test",
		CommitIdentifier:      snapshot.BatchCommitIdentifier,
		CommitKind:            snapshot.CommitKindAppend,
		TimeMillis:            time.Now().UnixMilli(),
		TotalRecordCount:      total,
		DeltaRecordCount:      total,
	}
	sdata, err := snapshot.EncodeSnapshot(snap)
	if err != nil {
		return 0, 0, err
	}
	if err := st.CreateIfNotExists(ctx, snapshot.NewSnapshotManager(st, snapshot.MainBranch).Path(1), sdata); err != nil {
		return 0, 0, err
	}
	return total, bytes, nil
}

// heapSampler records the peak HeapInuse while it runs.
type heapSampler struct {
	stop chan struct{}
	wg   sync.WaitGroup
	mu   sync.Mutex
	peak uint64
}

func startHeapSampler(every time.Duration) *heapSampler {
	h := &heapSampler{stop: make(chan struct{})}
	h.sample()
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-h.stop:
				return
			case <-tick.C:
				h.sample()
			}
		}
	}()
	return h
}

func (h *heapSampler) sample() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	h.mu.Lock()
	h.peak = max(h.peak, ms.HeapInuse)
	h.mu.Unlock()
}

// Stop ends sampling and returns the peak HeapInuse in bytes.
func (h *heapSampler) Stop() uint64 {
	close(h.stop)
	h.wg.Wait()
	h.sample()
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.peak
}

// readResult is what a measured read saw.
type readResult struct {
	rows     int64
	elapsed  time.Duration
	peakHeap uint64 // peak HeapInuse during the read
	baseHeap uint64 // HeapInuse before the read
}

// readBigTable reads the generated table through lsmread, checking every
// row against the model, and measures the read.
func readBigTable(t testing.TB, st storage.Storage, b *bigTable, projection []string) readResult {
	t.Helper()
	ctx := context.Background()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	res := readResult{baseHeap: ms.HeapInuse}
	h := startHeapSampler(5 * time.Millisecond)
	start := time.Now()
	tbl := lsmread.OpenTable(st, "")
	plan, err := tbl.Plan(ctx, lsmread.ScanSpec{Projection: projection})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Splits) != 1 || len(plan.Splits[0].Files) != 3 || plan.Splits[0].Mode != lsmread.ReadMerge {
		t.Fatalf("want one merge split of 3 files, got %v", plan.Splits)
	}
	r, err := plan.NewReader()
	if err != nil {
		t.Fatal(err)
	}
	it, err := r.Read(ctx, plan.Splits[0])
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	// The merged rows come in key order: walk the model alongside.
	next := int64(0)
	bad := 0
	for {
		row, err := it.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		res.rows++
		id, ok := row[0].(int64)
		if !ok {
			t.Fatalf("row %d: id %v (%T)", res.rows, row[0], row[0])
		}
		for next < id {
			if _, _, ok := b.expected(next); ok {
				t.Fatalf("key %d missing (next row has key %d)", next, id)
			}
			next++
		}
		if id != next {
			t.Fatalf("row %d: key %d out of order (want ≥ %d)", res.rows, id, next)
		}
		next++
		name, amount, ok := b.expected(id)
		if !ok {
			t.Fatalf("deleted key %d read: %v", id, row)
		}
		if len(row) == 3 {
			gotName, _ := row[1].(string)
			nameOK := (name == nil && row[1] == nil) || (name != nil && row[1] != nil && gotName == *name)
			gotAmount, _ := row[2].(float64)
			if !nameOK || gotAmount != amount {
				if bad++; bad < 10 {
					t.Errorf("key %d: got %v, want (%v, %v)", id, row, ptrAny(name), amount)
				}
			}
		}
	}
	res.elapsed = time.Since(start)
	res.peakHeap = h.Stop()
	for ; next < b.n+b.m; next++ {
		if _, _, ok := b.expected(next); ok {
			t.Fatalf("key %d missing at the end", next)
		}
	}
	if res.rows != b.merged {
		t.Fatalf("merged %d rows, want %d", res.rows, b.merged)
	}
	if bad > 0 {
		t.Fatalf("%d rows with wrong values", bad)
	}
	return res
}

func runBigBucket(t testing.TB, n, m int64) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := storage.Open(ctx, "file://"+dir+"?fsync=false")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	b := newBigTable(n, m)
	if err := b.generate(ctx, st); err != nil {
		t.Fatal(err)
	}
	t.Logf("generated %d records in 3 overlapping level-0 files (%.1f MB) in %v; %d merged rows",
		b.fileRecords, float64(b.bytes)/(1<<20), b.genTime.Round(time.Millisecond), b.merged)
	// The full read runs twice: the first one starts with the generator's
	// leftovers (parquet-go buffer pools) in the heap.
	for _, proj := range [][]string{nil, {"id"}, nil} {
		res := readBigTable(t, st, b, proj)
		secs := res.elapsed.Seconds()
		t.Logf("merge read (projection %v): %d records → %d rows in %.2fs: %.0f records/s, %.0f rows/s; heap in use: %.1f MB before, peak %.1f MB",
			proj, b.fileRecords, res.rows, secs, float64(b.fileRecords)/secs, float64(res.rows)/secs,
			float64(res.baseHeap)/(1<<20), float64(res.peakHeap)/(1<<20))
		if math.IsNaN(secs) {
			t.Fatal("no time measured")
		}
	}
}

// TestBucketMergeRead merges a generated 200k-record bucket of three
// overlapping level-0 files and checks every row. Always runs; it makes no
// timing assertion.
func TestBucketMergeRead(t *testing.T) {
	runBigBucket(t, 120_000, 16_000) // 120k + 40k + 24k + 16k = 200k records
}

// TestBigBucketMergeRead is the same with a 10M-record bucket, run only with
// LAKESQL_BIG=1 (it writes ~100 MB and takes tens of seconds). It reports
// peak heap and throughput: a merge-on-read holds one batch per sorted run,
// so the peak must not grow with the bucket.
func TestBigBucketMergeRead(t *testing.T) {
	if os.Getenv("LAKESQL_BIG") != "1" {
		t.Skip("set LAKESQL_BIG=1 to merge a 10M-record bucket")
	}
	runBigBucket(t, 6_000_000, 800_000) // 6M + 2M + 1.2M + 0.8M = 10M records
}

// BenchmarkBucketMergeRead merges a generated 1M-record bucket (three
// overlapping level-0 files) per iteration and reports rows/s and the peak
// heap in use.
func BenchmarkBucketMergeRead(b *testing.B) {
	ctx := context.Background()
	st, err := storage.Open(ctx, "file://"+b.TempDir()+"?fsync=false")
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	bt := newBigTable(600_000, 80_000) // 1M records
	if err := bt.generate(ctx, st); err != nil {
		b.Fatal(err)
	}
	var rows int64
	var peak uint64
	b.ResetTimer()
	for b.Loop() {
		res := readBigTable(b, st, bt, nil)
		rows += res.rows
		peak = res.peakHeap // the last read: the first starts with the generator's leftovers
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
}

// TestGeneratedMergeFilters: filters on the generated overlapping bucket
// equal the filtered merged read. Value filters must apply after the merge
// (a deleted key's -D record matches amount = -1, an old version matches
// name = 'n6'), while key filters may prune whole files (id >= n reads only
// file C).
func TestGeneratedMergeFilters(t *testing.T) {
	ctx := context.Background()
	st, err := storage.Open(ctx, "file://"+t.TempDir()+"?fsync=false")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	b := newBigTable(3000, 500)
	if err := b.generate(ctx, st); err != nil {
		t.Fatal(err)
	}
	res := readBigTable(t, st, b, nil) // checks the merged rows against the model
	tbl := lsmread.OpenTable(st, "")
	_, full := mustRead(t, tbl, lsmread.ScanSpec{})
	if int64(len(full)) != res.rows {
		t.Fatalf("full read %d rows, measured read %d", len(full), res.rows)
	}
	f := bigTableFields
	leaf := func(i int, op lsmread.Op, lits ...any) lsmread.Leaf {
		return lsmread.Leaf{Field: i, Name: f[i].Name, Type: f[i].Type, Op: op, Literals: lits}
	}
	preds := []struct {
		p         lsmread.Predicate
		wantRows  int
		wantPrune bool // files pruned by key statistics
	}{
		{leaf(0, lsmread.OpGtEq, int64(3000)), 500, true},
		{leaf(0, lsmread.OpLt, int64(10)), 8, false},
		{leaf(2, lsmread.OpEq, float64(-1)), 0, false},
		{leaf(1, lsmread.OpEq, "d5"), 0, false},
		{leaf(1, lsmread.OpEq, "n6"), 0, false}, // updated to u6
		{leaf(1, lsmread.OpEq, "u6"), 1, false}, // the update
		{leaf(1, lsmread.OpEq, "n7"), 0, false}, // NULL name
		{leaf(1, lsmread.OpIsNull), -1, false},  // keys k%7 == 0, not updated or deleted
		{leaf(2, lsmread.OpGt, float64(5000)), -1, false},
		{lsmread.And{leaf(0, lsmread.OpGt, int64(2990)), leaf(2, lsmread.OpLt, float64(3000))}, -1, false},
		{lsmread.Or{leaf(1, lsmread.OpEq, "c3001"), leaf(0, lsmread.OpEq, int64(1))}, 2, false},
	}
	for _, c := range preds {
		plan, got := mustRead(t, tbl, lsmread.ScanSpec{Filter: c.p})
		want := filterRows(c.p, full)
		sameMultiset(t, c.p.String(), got, want)
		if c.wantRows >= 0 && len(want) != c.wantRows {
			t.Errorf("%s: the model has %d rows, want %d", c.p, len(want), c.wantRows)
		}
		if c.wantPrune && plan.Stats.FilesPruned == 0 {
			t.Errorf("%s: no file pruned by key statistics", c.p)
		}
	}
	// Every file is at level 0: a read-optimized scan (top level only)
	// reads nothing.
	_, ro := mustRead(t, tbl, lsmread.ScanSpec{ReadOptimized: true})
	if len(ro) != 0 {
		t.Errorf("read-optimized read %d rows of level-0 files", len(ro))
	}
}
