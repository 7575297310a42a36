package lsmread_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/lakesql/lakesql/internal/datafile"
	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmread"
	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// readPlanBatches reads every split of a plan as column batches
// (Reader.ReadBatches) and turns their selected rows into rows.
func readPlanBatches(ctx context.Context, plan *lsmread.Plan) ([][]any, error) {
	r, err := plan.NewReader()
	if err != nil {
		return nil, err
	}
	var rows [][]any
	var b datafile.Batch
	for _, split := range plan.Splits {
		it, err := r.ReadBatches(ctx, split)
		if err != nil {
			return nil, err
		}
		for {
			err := it.Next(&b)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				it.Close()
				return nil, err
			}
			for k := range b.Rows() {
				i := k
				if b.Sel != nil {
					i = int(b.Sel[k])
				}
				row := make([]any, len(b.Cols))
				for c := range b.Cols {
					row[c] = b.Cols[c].Value(i)
				}
				rows = append(rows, row)
			}
		}
		if err := it.Close(); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// compareRawAndMerged reads spec with the raw-split rules on and off, with
// the column merge on and off and with a 1-byte split target (every bucket
// cut as far as it can be), as rows and as column batches, and fails
// when any of the reads differ from the row merge's rows (every rule off);
// it returns the plan read with the rules on.
func compareRawAndMerged(t *testing.T, what string, tbl *lsmread.Table, spec lsmread.ScanSpec) (*lsmread.Plan, [][]any) {
	t.Helper()
	ctx := context.Background()
	stretch, ints := true, true
	read := func(raw, columns bool, overrides ...string) (*lsmread.Plan, [][]any, [][]any) {
		defer lsmread.SetReadRawSplits(raw)()
		defer lsmread.SetReadColumnMerge(columns)()
		defer lsmread.SetReadStretch(stretch)()
		defer lsmread.SetReadIntMerge(ints)()
		spec := spec
		if len(overrides) > 0 {
			base := spec.OptionOverrides
			spec.OptionOverrides = map[string]string{}
			for k, v := range base {
				spec.OptionOverrides[k] = v
			}
			for i := 0; i+1 < len(overrides); i += 2 {
				spec.OptionOverrides[overrides[i]] = overrides[i+1]
			}
		}
		plan, err := tbl.Plan(ctx, spec)
		if err != nil {
			t.Fatalf("%s: plan: %v", what, err)
		}
		rows, err := readPlan(ctx, plan)
		if err != nil {
			t.Fatalf("%s: read (raw splits %v, column merge %v): %v", what, raw, columns, err)
		}
		batches, err := readPlanBatches(ctx, plan)
		if err != nil {
			t.Fatalf("%s: batch read (raw splits %v, column merge %v): %v", what, raw, columns, err)
		}
		return plan, rows, batches
	}
	plan, rawRows, rawBatches := read(true, true)
	mergePlan, colRows, colBatches := read(false, true)
	_, mergedRows, mergedBatches := read(false, false)
	// The column merge without its stretches (every record through the heap).
	stretch = false
	_, heapRows, heapBatches := read(false, true)
	stretch = true
	// Keys of one integer column through the general heap (no mergeInts),
	// with and without its stretches.
	ints = false
	_, generalRows, generalBatches := read(false, true)
	stretch = false
	_, generalHeapRows, generalHeapBatches := read(false, true)
	stretch, ints = true, true
	// Every file that needs no merge and every section a split of its own.
	_, tinyRows, tinyBatches := read(true, true, "source.split.target-size", "1b")
	if mergePlan.Stats.RawBuckets != 0 {
		t.Fatalf("%s: %d buckets read raw with the rule off", what, mergePlan.Stats.RawBuckets)
	}
	sameMultiset(t, what+": raw-split rows vs merged rows", rawRows, mergedRows)
	sameMultiset(t, what+": raw-split batches vs merged rows", rawBatches, mergedRows)
	sameSequence(t, what+": column-merged rows vs merged rows", colRows, mergedRows)
	sameMultiset(t, what+": column-merged batches vs merged rows", colBatches, mergedRows)
	sameSequence(t, what+": column-merged batches vs merged batches", colBatches, mergedBatches)
	sameMultiset(t, what+": merged batches vs merged rows", mergedBatches, mergedRows)
	sameSequence(t, what+": column-merged rows without stretches vs merged rows", heapRows, mergedRows)
	sameSequence(t, what+": column-merged batches without stretches vs merged batches", heapBatches, mergedBatches)
	sameSequence(t, what+": column-merged rows on the general heap vs merged rows", generalRows, mergedRows)
	sameSequence(t, what+": column-merged batches on the general heap vs merged batches", generalBatches, mergedBatches)
	sameSequence(t, what+": column-merged rows on the general heap without stretches vs merged rows", generalHeapRows, mergedRows)
	sameSequence(t, what+": column-merged batches on the general heap without stretches vs merged batches", generalHeapBatches, mergedBatches)
	sameMultiset(t, what+": rows of 1-byte splits vs merged rows", tinyRows, mergedRows)
	sameMultiset(t, what+": batches of 1-byte splits vs merged rows", tinyBatches, mergedRows)
	if spec.Filter == nil && spec.Projection == nil {
		if n, ok, err := plan.CountFromStats(ctx); err != nil {
			t.Fatal(err)
		} else if ok && n != int64(len(mergedRows)) {
			t.Errorf("%s: count from statistics %d, merged read %d rows", what, n, len(mergedRows))
		}
	}
	return plan, mergedRows
}

// sameSequence fails when two lists of rows differ, order included (merged
// reads of one plan give each split's rows in key order).
func sameSequence(t *testing.T, what string, got, want [][]any) {
	t.Helper()
	for i := range min(len(got), len(want)) {
		if g, w := canonRow(got[i]), canonRow(want[i]); g != w {
			t.Errorf("%s: row %d is %s, want %s", what, i, g, w)
			return
		}
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d rows, want %d", what, len(got), len(want))
	}
}

// TestRawSplitsEqualMergeFixtures: on every snapshot of every Java-written
// fixture table, reading the buckets that need no merge as they are gives
// the rows merging them gives.
func TestRawSplitsEqualMergeFixtures(t *testing.T) {
	ctx := context.Background()
	rawBuckets := 0
	col0 := lsmread.ColumnMergedSections()
	for _, f := range readableFixtures(t) {
		ids, err := f.table.Snapshots().List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			spec := lsmread.ScanSpec{TimeTravel: lsmread.TimeTravel{SnapshotID: id}}
			if _, err := f.table.Plan(ctx, spec); errors.Is(err, lsmread.ErrUnsupported) || errors.Is(err, manifest.ErrUnsupported) {
				continue
			}
			plan, _ := compareRawAndMerged(t, fmt.Sprintf("%s@%d", f.name, id), f.table, spec)
			rawBuckets += plan.Stats.RawBuckets
		}
	}
	col := lsmread.ColumnMergedSections() - col0
	t.Logf("%d buckets of merging fixture tables read raw, %d sections merged over column batches", rawBuckets, col)
	if col == 0 {
		t.Fatal("no section of a Java-written fixture was merged over column batches")
	}
}

// rawHistoryEngine is a table shape of TestRawSplitsEqualMergeRandom.
type rawHistoryEngine struct {
	name    string
	options map[string]string
	deletes bool // the history deletes keys (-D)
	model   bool // deduplicate without a sequence field: compare with a map
	// pk is the primary key (nil: k); a key of s (a nullable STRING) has
	// NULL key parts.
	pk []string
}

// TestRawSplitsEqualMergeRandom writes random histories (upserts, deletes
// where the engine allows them, flushes inside a commit, full and minor
// compactions) to primary-key tables of several merge engines and checks,
// after every commit, that reading raw-convertible buckets and single-file
// sections as they are equals merging them (rows and batches, whole reads
// and random projections with filters), and for deduplicate a model.
func TestRawSplitsEqualMergeRandom(t *testing.T) {
	seed := testSeed(t)
	engines := []rawHistoryEngine{
		{name: "deduplicate", options: map[string]string{}, deletes: true, model: true},
		{name: "sequence-field", options: map[string]string{"sequence.field": "q"}, deletes: true},
		{name: "partial-update", options: map[string]string{"merge-engine": "partial-update"}},
		{name: "aggregation", options: map[string]string{"merge-engine": "aggregation",
			"fields.v.aggregate-function": "sum", "fields.s.aggregate-function": "last_non_null_value", "fields.q.aggregate-function": "max"}},
		{name: "lookup-changelog", options: map[string]string{"changelog-producer": "lookup"}, deletes: true, model: true},
		{name: "deduplicate-two-column-key", options: map[string]string{}, deletes: true, model: true, pk: []string{"k", "s"}},
		{name: "deduplicate-string-key", options: map[string]string{}, deletes: true, model: true, pk: []string{"s"}},
		{name: "deduplicate-bigint-int-key", options: map[string]string{}, deletes: true, model: true, pk: []string{"v", "q"}},
		{name: "deduplicate-ignore-delete", options: map[string]string{"ignore-delete": "true"}, deletes: true, pk: []string{"k", "q"}},
		{name: "deduplicate-ignore-delete-int-key", options: map[string]string{"ignore-delete": "true"}, deletes: true},
		{name: "deduplicate-nullable-bigint-key", options: map[string]string{}, deletes: true, model: true, pk: []string{"v"}},
	}
	rawBuckets, rawSections := 0, 0
	col0, str0, int0 := lsmread.ColumnMergedSections(), lsmread.StretchedRecords(), lsmread.IntMergedSections()
	for ei, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, uint64(ei)))
			b, s := rawHistory(t, rng, eng)
			rawBuckets += b
			rawSections += s
		})
	}
	colSections := lsmread.ColumnMergedSections() - col0
	t.Logf("seed %d: %d buckets read raw, %d single-file sections of merged buckets read raw, %d sections merged over column batches",
		seed, rawBuckets, rawSections, colSections)
	if rawBuckets == 0 || rawSections == 0 {
		t.Fatalf("seed %d: the raw-split rules never applied (%d raw buckets, %d raw sections)", seed, rawBuckets, rawSections)
	}
	if colSections == 0 {
		t.Fatalf("seed %d: no section was merged over column batches", seed)
	}
	if n := lsmread.IntMergedSections() - int0; n == 0 {
		t.Fatalf("seed %d: no section was merged on integer keys", seed)
	}
	if n := lsmread.StretchedRecords() - str0; n == 0 {
		t.Fatalf("seed %d: the column merge placed no record in a stretch", seed)
	} else {
		t.Logf("seed %d: %d records placed in stretches", seed, n)
	}
}

func rawHistory(t *testing.T, rng *rand.Rand, eng rawHistoryEngine) (rawBuckets, rawSections int) {
	ctx := context.Background()
	sections0 := lsmread.RawSectionsRead()
	defer func() { rawSections = int(lsmread.RawSectionsRead() - sections0) }()
	st, err := storage.Open(ctx, "file://"+t.TempDir()+"?fsync=false")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	opts := map[string]string{"bucket": "2", "write-only": "true"}
	for k, v := range eng.options {
		opts[k] = v
	}
	ts := &schema.TableSchema{
		Version: schema.SchemaVersionCurrent,
		Fields: []schema.DataField{
			{ID: 0, Name: "k", Type: schema.AtomicType(schema.TypeInt).WithNullable(false)},
			{ID: 1, Name: "v", Type: schema.AtomicType(schema.TypeBigInt)},
			{ID: 2, Name: "s", Type: schema.StringType()},
			{ID: 3, Name: "q", Type: schema.AtomicType(schema.TypeInt)},
		},
		HighestFieldID: 3,
		PrimaryKeys:    []string{"k"},
		Options:        opts,
	}
	if eng.pk != nil {
		ts.PrimaryKeys = eng.pk
	}
	keyOf := func(row []any) string {
		var parts []any
		for _, name := range ts.PrimaryKeys {
			parts = append(parts, row[ts.FieldIndex(name)])
		}
		return fmt.Sprint(parts...)
	}
	if err := snapshot.NewSchemaManager(st, "main").Commit(ctx, ts); err != nil {
		t.Fatal(err)
	}
	tbl := lsmread.OpenTable(st, "")
	model := map[string][]any{}
	modelValid := eng.model
	var base *snapshot.Snapshot
	for step := range 14 {
		w, err := lsmwrite.NewTableWrite(ctx, st, ts, base, lsmwrite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		// Now and then a second writer from the same snapshot writes
		// some of the rows: both number their records from the same
		// sequence number, so the two commits' files have overlapping
		// sequence-number ranges and a key both write has records whose
		// order is their sequence numbers, not their files' (which of the
		// two wins is then the merge's to say, not the model's).
		var w2 *lsmwrite.TableWrite
		if rng.IntN(5) == 0 {
			if w2, err = lsmwrite.NewTableWrite(ctx, st, ts, base, lsmwrite.Options{}); err != nil {
				t.Fatal(err)
			}
			modelValid = false
		}
		// Each commit writes keys of a window of the key space, so that
		// files of some key ranges have no overlapping file (single-file
		// sections), level-0 ones and retracting ones included.
		lo, width := rng.IntN(200), 1+rng.IntN(30)
		for range 1 + rng.IntN(40) {
			k := int32(lo + rng.IntN(width))
			row := []any{k, int64(rng.IntN(100)), fmt.Sprintf("s%d", rng.IntN(20)), int32(rng.IntN(10))}
			if rng.IntN(5) == 0 {
				row[1+rng.IntN(3)] = nil
			}
			kind := kv.Insert
			if eng.deletes && rng.IntN(5) == 0 {
				kind = kv.Delete
			}
			ww := w
			if w2 != nil && rng.IntN(2) == 0 {
				ww = w2
			}
			if err := ww.Write(ctx, kind, row); err != nil {
				t.Fatal(err)
			}
			if kind == kv.Delete {
				delete(model, keyOf(row))
			} else {
				model[keyOf(row)] = append([]any(nil), row...)
			}
			if rng.IntN(15) == 0 {
				if err := w.Flush(ctx); err != nil {
					t.Fatal(err)
				}
			}
		}
		if base, err = w.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if w2 != nil {
			if base, err = w2.Commit(ctx); err != nil {
				t.Fatal(err)
			}
		}
		switch rng.IntN(4) {
		case 0:
			if _, err := lsmwrite.Compact(ctx, snapshot.OpenTable(st, ""), lsmwrite.CompactRequest{Full: true}); err != nil {
				t.Fatal(err)
			}
		case 1:
			if _, err := lsmwrite.Compact(ctx, snapshot.OpenTable(st, ""), lsmwrite.CompactRequest{}); err != nil {
				t.Fatal(err)
			}
		}
		if base, err = snapshot.OpenTable(st, "").Snapshots().Latest(ctx); errors.Is(err, snapshot.ErrSnapshotNotFound) {
			continue // only deletes an ignore-delete table dropped so far
		} else if err != nil {
			t.Fatal(err)
		}
		what := fmt.Sprintf("%s step %d", eng.name, step)
		plan, rows := compareRawAndMerged(t, what, tbl, lsmread.ScanSpec{})
		rawBuckets += plan.Stats.RawBuckets
		if modelValid {
			want := make([][]any, 0, len(model))
			for _, r := range model {
				want = append(want, r)
			}
			sameMultiset(t, what+": read vs model", rows, want)
		}
		// A projection with a filter on a value column (pruned by value
		// statistics in raw buckets, by key statistics only when merged).
		lit := int64(rng.IntN(100))
		spec := lsmread.ScanSpec{Projection: []string{"s", "k"},
			Filter: lsmread.Leaf{Field: 1, Name: "v", Type: ts.Fields[1].Type, Op: lsmread.OpGtEq, Literals: []any{lit}}}
		compareRawAndMerged(t, fmt.Sprintf("%s, v >= %d", what, lit), tbl, spec)
	}
	return rawBuckets, rawSections
}
