package tests

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/internal/testutil"
	"github.com/lakesql/lakesql/lsmread"
	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// wrTable creates an empty table (schema-0) in a fresh in-memory storage.
func wrTable(t *testing.T, ts *schema.TableSchema) storage.Storage {
	t.Helper()
	ctx := context.Background()
	st, err := storage.Open(ctx, "mem://")
	if err != nil {
		t.Fatal(err)
	}
	if err := snapshot.NewSchemaManager(st, "main").Commit(ctx, ts); err != nil {
		t.Fatal(err)
	}
	return st
}

// wrCommit writes rows in one transaction on the latest snapshot.
func wrCommit(t *testing.T, st storage.Storage, ts *schema.TableSchema, kinds []kv.RowKind, rows [][]any) *snapshot.Snapshot {
	t.Helper()
	ctx := context.Background()
	base, err := snapshot.NewSnapshotManager(st, "main").Latest(ctx)
	if errors.Is(err, snapshot.ErrSnapshotNotFound) {
		base, err = nil, nil
	}
	if err != nil {
		t.Fatal(err)
	}
	w, err := lsmwrite.NewTableWrite(ctx, st, ts, base, lsmwrite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		if err := w.Write(ctx, kinds[i], r); err != nil {
			t.Fatalf("write %v %v: %v", kinds[i], r, err)
		}
	}
	s, err := w.Commit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// wrRead reads a snapshot and returns its splits' rows.
func wrRead(t *testing.T, st storage.Storage, id snapshot.SnapshotID) (*lsmread.Plan, [][][]any) {
	t.Helper()
	ctx := context.Background()
	plan, err := lsmread.OpenTable(st, "main").Plan(ctx, lsmread.ScanSpec{TimeTravel: lsmread.TimeTravel{SnapshotID: id}})
	if err != nil {
		t.Fatalf("plan snapshot %d: %v", id, err)
	}
	r, err := plan.NewReader()
	if err != nil {
		t.Fatal(err)
	}
	out := make([][][]any, len(plan.Splits))
	for i, split := range plan.Splits {
		it, err := r.Read(ctx, split)
		if err != nil {
			t.Fatalf("read split %v: %v", split, err)
		}
		for {
			row, err := it.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("read split %v: %v", split, err)
			}
			out[i] = append(out[i], row)
		}
		if err := it.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return plan, out
}

func wrRowsText(rows [][]any) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fmt.Sprintf("%v", r)
	}
	slices.Sort(out)
	return out
}

// ---- primary-key tables: random histories against a model ----------------

type wrModel map[[2]int32][]any

func wrKey(row []any, partitioned bool) [2]int32 {
	if partitioned {
		return [2]int32{row[cK].(int32), row[cP].(int32)}
	}
	return [2]int32{row[cK].(int32), 0}
}

func (m wrModel) clone() wrModel {
	c := make(wrModel, len(m))
	for k, v := range m {
		c[k] = slices.Clone(v)
	}
	return c
}

func (m wrModel) rows() [][]any {
	var out [][]any
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// Columns: k INT NOT NULL, p INT NOT NULL, s STRING, n BIGINT, m INT.
const (
	cK = iota
	cP
	cS
	cN
	cM
)

func wrPKSchema(engine, bucket string, partitioned bool, rnd *rand.Rand) *schema.TableSchema {
	opts := map[string]string{"bucket": bucket}
	switch engine {
	case "partial-update":
		opts["merge-engine"] = engine
		opts["partial-update.remove-record-on-delete"] = "true"
	case "aggregation":
		opts["merge-engine"] = engine
		opts["fields.n.aggregate-function"] = "sum"
		opts["fields.m.aggregate-function"] = "max"
		opts["aggregation.remove-record-on-delete"] = "true"
	}
	if bucket == "-1" {
		opts["dynamic-bucket.target-row-num"] = "7"
	}
	if rnd.IntN(2) == 0 {
		opts["write-buffer-size"] = "2 kb" // several flushes per transaction
	}
	if rnd.IntN(3) == 0 {
		opts["changelog-producer"] = "input"
	}
	if rnd.IntN(3) == 0 {
		opts["metadata.stats-mode"] = "full"
		opts["fields.s.stats-mode"] = "none"
	}
	ts := &schema.TableSchema{
		Version: schema.SchemaVersionCurrent,
		Fields: []schema.DataField{
			{ID: 0, Name: "k", Type: schema.AtomicType(schema.TypeInt).WithNullable(false)},
			{ID: 1, Name: "p", Type: schema.AtomicType(schema.TypeInt).WithNullable(false)},
			{ID: 2, Name: "s", Type: schema.StringType()},
			{ID: 3, Name: "n", Type: schema.AtomicType(schema.TypeBigInt)},
			{ID: 4, Name: "m", Type: schema.AtomicType(schema.TypeInt)},
		},
		HighestFieldID: 4,
		PrimaryKeys:    []string{"k"},
		Options:        opts,
	}
	if partitioned {
		ts.PartitionKeys = []string{"p"}
		ts.PrimaryKeys = []string{"p", "k"}
	}
	return ts
}

var wrStrings = []string{"a", "bb", "a longer string than sixteen code points, to be truncated", "ünïcødé", ""}

func wrRandRow(rnd *rand.Rand, k, p int32) []any {
	row := []any{k, p, nil, nil, nil}
	if rnd.IntN(4) > 0 {
		row[cS] = wrStrings[rnd.IntN(len(wrStrings))]
	}
	if rnd.IntN(4) > 0 {
		row[cN] = int64(rnd.IntN(201) - 100)
	}
	if rnd.IntN(4) > 0 {
		row[cM] = int32(rnd.IntN(1000))
	}
	return row
}

// apply applies one record to the model the way the merge engine does. In
// unpartitioned tables p is an ordinary value column (NOT NULL).
func (m wrModel) apply(engine string, partitioned bool, kind kv.RowKind, row []any) {
	key := wrKey(row, partitioned)
	if !kind.IsAdd() {
		delete(m, key)
		return
	}
	old, ok := m[key]
	if !ok || engine == "deduplicate" {
		m[key] = slices.Clone(row)
		return
	}
	if !partitioned {
		old[cP] = row[cP] // partial-update: non-null; aggregation: last_non_null_value
	}
	switch engine {
	case "partial-update":
		for i := cS; i <= cM; i++ {
			if row[i] != nil {
				old[i] = row[i]
			}
		}
	case "aggregation":
		if row[cS] != nil {
			old[cS] = row[cS]
		}
		if row[cN] != nil {
			if old[cN] == nil {
				old[cN] = row[cN]
			} else {
				old[cN] = old[cN].(int64) + row[cN].(int64)
			}
		}
		if row[cM] != nil && (old[cM] == nil || row[cM].(int32) > old[cM].(int32)) {
			old[cM] = row[cM]
		}
	}
}

func TestWriteRoundTripMergeEngines(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("LAKESQL_SEED"); s != "" {
		fmt.Sscan(s, &seed)
	}
	for _, engine := range []string{"deduplicate", "partial-update", "aggregation"} {
		for _, bucket := range []string{"1", "4", "-1"} {
			for _, partitioned := range []bool{false, true} {
				name := fmt.Sprintf("%s/bucket=%s/partitioned=%v", engine, bucket, partitioned)
				t.Run(name, func(t *testing.T) {
					caseSeed := seed + uint64(len(name))*7919 + uint64(name[0])
					defer func() {
						if t.Failed() {
							t.Logf("seed %d (LAKESQL_SEED=%d reproduces the whole test)", caseSeed, seed)
						}
					}()
					wrRunHistory(t, engine, bucket, partitioned, caseSeed)
				})
			}
		}
	}
}

func wrRunHistory(t *testing.T, engine, bucket string, partitioned bool, seed uint64) {
	rnd := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	ts := wrPKSchema(engine, bucket, partitioned, rnd)
	st := wrTable(t, ts)
	model := wrModel{}
	states := map[snapshot.SnapshotID]wrModel{}
	const txns = 6
	for txn := 0; txn < txns; txn++ {
		var kinds []kv.RowKind
		var rows [][]any
		touched := map[[2]int32]string{} // "u" upserts only, "d" one delete
		nops := 1 + rnd.IntN(80)
		for i := 0; i < nops; i++ {
			k := int32(rnd.IntN(30))
			p := int32(rnd.IntN(3))
			row := wrRandRow(rnd, k, p)
			key := wrKey(row, partitioned)
			del := rnd.IntN(4) == 0
			if engine != "deduplicate" {
				// Keep a key's records in one transaction either all
				// upserts or one delete: a merged buffer loses a delete
				// followed by inserts for these engines (as in Java).
				switch touched[key] {
				case "d":
					continue
				case "u":
					del = false
				}
				if del {
					touched[key] = "d"
				} else {
					touched[key] = "u"
				}
			}
			kind := kv.Insert
			switch {
			case del && engine == "deduplicate" && rnd.IntN(2) == 0:
				kind = kv.UpdateBefore
			case del:
				kind = kv.Delete
			case rnd.IntN(2) == 0:
				kind = kv.UpdateAfter
			}
			kinds = append(kinds, kind)
			rows = append(rows, row)
			model.apply(engine, partitioned, kind, row)
		}
		if len(rows) == 0 {
			continue
		}
		s := wrCommit(t, st, ts, kinds, rows)
		if (ts.Options["changelog-producer"] == "input") != (s.ChangelogManifestList != nil) {
			t.Fatalf("snapshot %d: changelog manifest list %v with changelog-producer=%q", s.ID, s.ChangelogManifestList, ts.Options["changelog-producer"])
		}
		states[s.ID] = model.clone()
		wrCheckSnapshot(t, st, ts, s.ID, model)
	}
	for id, m := range states {
		wrCheckSnapshot(t, st, ts, id, m)
	}
	if bucket == "-1" {
		wrCheckDynamicIndex(t, st, ts)
	}
}

func wrCheckSnapshot(t *testing.T, st storage.Storage, ts *schema.TableSchema, id snapshot.SnapshotID, model wrModel) {
	t.Helper()
	plan, splits := wrRead(t, st, id)
	var all [][]any
	types := make([]schema.DataType, len(ts.Fields))
	for i, f := range ts.Fields {
		types[i] = f.Type
	}
	var bucketer *binaryrow.Bucketer
	if plan.Core.Bucket > 0 {
		var err error
		bucketer, err = binaryrow.NewBucketer(types, ts.Projection(ts.BucketKeys()), plan.Core.Bucket, binaryrow.BucketFunctionDefault)
		if err != nil {
			t.Fatal(err)
		}
	}
	for i, rows := range splits {
		split := plan.Splits[i]
		for _, r := range rows {
			if bucketer != nil {
				b, err := bucketer.Bucket(r)
				if err != nil {
					t.Fatal(err)
				}
				if manifest.Bucket(b) != split.Bucket {
					t.Errorf("snapshot %d: row %v in bucket %d, binaryrow says %d", id, r, split.Bucket, b)
				}
			}
			if len(ts.PartitionKeys) > 0 && fmt.Sprint(split.PartitionValues[0]) != fmt.Sprint(r[cP]) {
				t.Errorf("snapshot %d: row %v in partition %v", id, r, split.PartitionValues)
			}
		}
		for _, f := range split.Files {
			if split.TotalBuckets != int32(plan.Core.Bucket) {
				t.Errorf("snapshot %d: file %s has _TOTAL_BUCKETS %d, want %d", id, f.FileName, split.TotalBuckets, plan.Core.Bucket)
			}
		}
		all = append(all, rows...)
	}
	got, want := wrRowsText(all), wrRowsText(model.rows())
	if !slices.Equal(got, want) {
		t.Fatalf("snapshot %d differs from the model:\n got %d rows %v\nwant %d rows %v", id, len(got), got, len(want), want)
	}
}

// wrCheckDynamicIndex checks that every key of the latest snapshot sits in
// one bucket whose HASH index lists its hash, and buckets hold at most
// dynamic-bucket.target-row-num keys.
func wrCheckDynamicIndex(t *testing.T, st storage.Storage, ts *schema.TableSchema) {
	ctx := context.Background()
	s, err := snapshot.NewSnapshotManager(st, "main").Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.IndexManifest == nil {
		t.Fatal("dynamic-bucket table without index manifest")
	}
	data, err := st.ReadAll(ctx, manifest.Path(*s.IndexManifest))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := manifest.ReadIndexManifest(data, *s.IndexManifest)
	if err != nil {
		t.Fatal(err)
	}
	index := map[string]map[int32]bool{} // partition+bucket → hashes
	seen := map[string]bool{}
	for _, e := range entries {
		if e.IndexFile.IndexType != manifest.IndexTypeHash {
			continue
		}
		id := fmt.Sprintf("%x/%d", e.Partition, e.Bucket)
		if seen[id] {
			t.Errorf("two HASH index files for %s", id)
		}
		seen[id] = true
		raw, err := st.ReadAll(ctx, "index/"+e.IndexFile.FileName)
		if err != nil {
			t.Fatal(err)
		}
		hs, err := lsmwrite.DecodeHashIndex(raw)
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(hs)) != e.IndexFile.RowCount || int64(len(raw)) != e.IndexFile.FileSize {
			t.Errorf("index %s: row count %d size %d for %d hashes", e.IndexFile.FileName, e.IndexFile.RowCount, e.IndexFile.FileSize, len(hs))
		}
		if len(hs) > 7 {
			t.Errorf("bucket %s has %d keys, target-row-num is 7", id, len(hs))
		}
		index[id] = map[int32]bool{}
		for _, h := range hs {
			index[id][h] = true
		}
	}
	plan, splits := wrRead(t, st, s.ID)
	keyIdx := ts.Projection(ts.TrimmedPrimaryKeys())
	keyTypes := make([]schema.DataType, len(keyIdx))
	for i, k := range keyIdx {
		keyTypes[i] = ts.Fields[k].Type
	}
	for i, rows := range splits {
		split := plan.Splits[i]
		id := fmt.Sprintf("%x/%d", split.Partition, split.Bucket)
		for _, r := range rows {
			key := make([]any, len(keyIdx))
			for j, k := range keyIdx {
				key[j] = r[k]
			}
			enc, err := binaryrow.Encode(keyTypes, key)
			if err != nil {
				t.Fatal(err)
			}
			if !index[id][binaryrow.HashCode(enc)] {
				t.Errorf("row %v in %s: key hash not in the bucket's HASH index", r, id)
			}
		}
	}
}

// ---- append tables ----------------------------------------------------------

func TestWriteRoundTripAppend(t *testing.T) {
	for _, c := range []struct {
		name string
		opts map[string]string
	}{
		{"unaware", map[string]string{}},
		{"bucketed", map[string]string{"bucket": "3", "bucket-key": "k"}},
		{"unaware-small-files", map[string]string{"target-file-size": "1 b"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := &schema.TableSchema{
				Version: schema.SchemaVersionCurrent,
				Fields: []schema.DataField{
					{ID: 0, Name: "id", Type: schema.AtomicType(schema.TypeBigInt).WithNullable(false)},
					{ID: 1, Name: "k", Type: schema.AtomicType(schema.TypeInt)},
					{ID: 2, Name: "dt", Type: schema.StringType()},
					{ID: 3, Name: "v", Type: schema.StringType()},
				},
				HighestFieldID: 3,
				PartitionKeys:  []string{"dt"},
				Options:        c.opts,
			}
			st := wrTable(t, ts)
			types := []schema.DataType{ts.Fields[0].Type, ts.Fields[1].Type, ts.Fields[2].Type, ts.Fields[3].Type}
			var bucketer *binaryrow.Bucketer
			if c.opts["bucket"] != "" {
				var err error
				if bucketer, err = binaryrow.NewBucketer(types, []int{1}, 3, binaryrow.BucketFunctionDefault); err != nil {
					t.Fatal(err)
				}
			}
			rnd := rand.New(rand.NewPCG(1, 2))
			var written [][]any
			id := int64(0)
			for txn := 0; txn < 3; txn++ {
				var rows [][]any
				var kinds []kv.RowKind
				for i := 0; i < 2500; i++ {
					var dt any = []string{"2024-01-01", "2024-01-02", ""}[rnd.IntN(3)]
					if rnd.IntN(20) == 0 {
						dt = nil
					}
					row := []any{id, int32(rnd.IntN(50)), dt, fmt.Sprintf("v%d", id)}
					id++
					rows = append(rows, row)
					kinds = append(kinds, kv.Insert)
				}
				s := wrCommit(t, st, ts, kinds, rows)
				written = append(written, rows...)
				plan, splits := wrRead(t, st, s.ID)
				var all [][]any
				for i, rs := range splits {
					split := plan.Splits[i]
					if bucketer == nil && (split.Bucket != 0 || split.TotalBuckets != -1) {
						t.Errorf("unaware split in bucket %d total %d", split.Bucket, split.TotalBuckets)
					}
					// Each file holds its rows in arrival order; lsmread
					// may order the files of a split differently, so the
					// split is at most one ascending run per file.
					last, runs := int64(-1), 0
					for _, r := range rs {
						if r[0].(int64) <= last || runs == 0 {
							runs++
						}
						last = r[0].(int64)
						if bucketer != nil {
							if b, _ := bucketer.Bucket(r); manifest.Bucket(b) != split.Bucket {
								t.Errorf("row %v in bucket %d, binaryrow says %d", r, split.Bucket, b)
							}
						}
						want := "__DEFAULT_PARTITION__"
						if r[2] != nil && r[2] != "" {
							want = r[2].(string)
						}
						if !strings.Contains(split.PartitionPath, "dt="+want+"/") {
							t.Errorf("row %v in partition %s", r, split.PartitionPath)
						}
					}
					if runs > len(split.Files) {
						t.Errorf("split %v: %d ascending runs in %d files", split, runs, len(split.Files))
					}
					all = append(all, rs...)
				}
				if !slices.Equal(wrRowsText(all), wrRowsText(written)) {
					t.Fatalf("snapshot %d: %d rows read, %d written", s.ID, len(all), len(written))
				}
				wrCheckSequenceNumbers(t, st, s)
			}
		})
	}
}

// wrCheckSequenceNumbers checks that the files of every bucket have disjoint
// sequence ranges that follow each other without gaps (per commit).
func wrCheckSequenceNumbers(t *testing.T, st storage.Storage, s *snapshot.Snapshot) {
	t.Helper()
	live, err := snapshot.LiveEntries(context.Background(), st, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	byBucket := map[string][]manifest.DataFileMeta{}
	for _, e := range live {
		id := fmt.Sprintf("%x/%d", e.Partition, e.Bucket)
		byBucket[id] = append(byBucket[id], e.File)
	}
	for id, files := range byBucket {
		slices.SortFunc(files, func(a, b manifest.DataFileMeta) int { return int(a.MinSequenceNumber - b.MinSequenceNumber) })
		next := int64(0)
		for _, f := range files {
			if f.MinSequenceNumber != next || f.MaxSequenceNumber-f.MinSequenceNumber+1 != f.RowCount {
				t.Errorf("bucket %s: file %s has sequence numbers %d..%d for %d rows, want to start at %d",
					id, f.FileName, f.MinSequenceNumber, f.MaxSequenceNumber, f.RowCount, next)
			}
			next = f.MaxSequenceNumber + 1
		}
	}
}

// ---- continuing a Java-written table -----------------------------------------

func wrCopyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestWriteContinuesJavaTable(t *testing.T) {
	ctx := context.Background()
	src, ok := testutil.FixtureTables(t)["pk_table_scan_and_read_mor"]
	if !ok {
		t.Fatal("fixture pk_table_scan_and_read_mor missing")
	}
	dir := t.TempDir()
	wrCopyDir(t, src, dir)
	st, err := storage.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	tbl := lsmread.OpenTable(st, "main")
	ts, err := tbl.LatestSchema(ctx)
	if err != nil {
		t.Fatal(err)
	}
	base, err := tbl.Snapshots().Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, before := wrRead(t, st, base.ID)
	liveBefore, err := snapshot.LiveEntries(ctx, st, base, nil)
	if err != nil {
		t.Fatal(err)
	}
	maxSeq := map[string]int64{}
	for _, e := range liveBefore {
		id := fmt.Sprintf("%x/%d", e.Partition, e.Bucket)
		maxSeq[id] = max(maxSeq[id], e.File.MaxSequenceNumber)
	}

	w, err := lsmwrite.NewTableWrite(ctx, st, ts, base, lsmwrite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	writes := []struct {
		kind kv.RowKind
		row  []any
	}{
		{kv.UpdateAfter, []any{"Bob", int32(10), int32(0), 99.5}},
		{kv.Delete, []any{"Emily", int32(10), int32(0), 13.1}},
		{kv.Insert, []any{"Zed", int32(20), int32(1), 1.5}},
		{kv.Insert, []any{"Yan", int32(10), int32(1), nil}},
	}
	for _, x := range writes {
		if err := w.Write(ctx, x.kind, x.row); err != nil {
			t.Fatal(err)
		}
	}
	s, err := w.Commit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.ID != base.ID+1 {
		t.Fatalf("new snapshot %d after %d", s.ID, base.ID)
	}

	// The new files continue each bucket's sequence numbers.
	live, err := snapshot.LiveEntries(ctx, st, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	old := map[string]bool{}
	for _, e := range liveBefore {
		old[e.File.FileName] = true
	}
	newFiles := 0
	for _, e := range live {
		if old[e.File.FileName] {
			continue
		}
		newFiles++
		id := fmt.Sprintf("%x/%d", e.Partition, e.Bucket)
		want := int64(0)
		if m, ok := maxSeq[id]; ok {
			want = m + 1
		}
		if e.File.MinSequenceNumber != want {
			t.Errorf("new file %s in %s starts at sequence %d, want %d", e.File.FileName, id, e.File.MinSequenceNumber, want)
		}
		if e.TotalBuckets != 2 || e.File.Level != 0 || e.File.SchemaID != 0 {
			t.Errorf("new file %s: total buckets %d level %d schema %d", e.File.FileName, e.TotalBuckets, e.File.Level, e.File.SchemaID)
		}
	}
	if newFiles != 3 { // f1=10 bucket 0 (Bob, Emily), f1=10 bucket 1 (Yan), f1=20 bucket 1 (Zed)
		t.Errorf("%d new files, want 3", newFiles)
	}

	// Old snapshot unchanged, new snapshot = old + the changes.
	_, again := wrRead(t, st, base.ID)
	flat := func(splits [][][]any) [][]any {
		var out [][]any
		for _, s := range splits {
			out = append(out, s...)
		}
		return out
	}
	if !slices.Equal(wrRowsText(flat(before)), wrRowsText(flat(again))) {
		t.Fatalf("snapshot %d changed", base.ID)
	}
	var want [][]any
	for _, r := range flat(before) {
		switch r[0] {
		case "Bob":
			want = append(want, []any{"Bob", int32(10), int32(0), 99.5})
		case "Emily":
		default:
			want = append(want, r)
		}
	}
	want = append(want, writes[2].row, writes[3].row)
	_, after := wrRead(t, st, s.ID)
	if got := wrRowsText(flat(after)); !slices.Equal(got, wrRowsText(want)) {
		t.Fatalf("snapshot %d:\n got %v\nwant %v", s.ID, got, wrRowsText(want))
	}
}
