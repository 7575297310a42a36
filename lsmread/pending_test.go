package lsmread_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmread"
	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/snapshot"
)

// pendingTable writes a deduplicate table (k INT key, v INT) with the
// committed rows and returns it.
func pendingTable(t testing.TB, ctx context.Context, pk bool, committed map[int32]int32) (*lsmread.Table, *schema.TableSchema) {
	t.Helper()
	st, err := storage.Open(ctx, "mem://")
	if err != nil {
		t.Fatal(err)
	}
	ts := &schema.TableSchema{
		Version: schema.SchemaVersionCurrent,
		Fields: []schema.DataField{
			{ID: 0, Name: "k", Type: schema.AtomicType(schema.TypeInt).WithNullable(!pk)},
			{ID: 1, Name: "v", Type: schema.AtomicType(schema.TypeInt)},
		},
		HighestFieldID: 1,
		Options:        map[string]string{"bucket": "2"},
	}
	if pk {
		ts.PrimaryKeys = []string{"k"}
	} else {
		ts.Options = map[string]string{"bucket": "-1"}
	}
	if err := snapshot.NewSchemaManager(st, "main").Commit(ctx, ts); err != nil {
		t.Fatal(err)
	}
	w, err := lsmwrite.NewTableWrite(ctx, st, ts, nil, lsmwrite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range committed {
		if err := w.Write(ctx, kv.Insert, []any{k, v}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	return lsmread.OpenTable(st, ""), ts
}

func drain(t testing.TB, it lsmread.RowIterator) []string {
	t.Helper()
	var out []string
	for {
		row, err := it.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprint(row))
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// TestReadPendingModel: a primary-key table read with random pending
// upserts and deletes returns what a model of the transaction holds, with
// and without a filter and a projection; records added after ReadPending
// are not seen.
func TestReadPendingModel(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(8) {
		rng := rand.New(rand.NewPCG(seed, 3))
		committed := map[int32]int32{}
		for range rng.IntN(40) {
			committed[rng.Int32N(50)] = rng.Int32N(100)
		}
		tbl, ts := pendingTable(t, ctx, true, committed)
		model := maps(committed)
		p := kv.NewPendingWrites(ts)
		for range rng.IntN(60) {
			k := rng.Int32N(60)
			if rng.IntN(4) == 0 {
				p.Add(kv.Delete, []any{k, nil}, true)
				delete(model, k)
			} else {
				v := rng.Int32N(100)
				p.Add(kv.Insert, []any{k, v}, false)
				model[k] = v
			}
		}
		p.StatementDone()
		var want, wantFiltered, wantProjected []string
		for k, v := range model {
			want = append(want, fmt.Sprint([]any{k, v}))
			if v >= 50 {
				wantFiltered = append(wantFiltered, fmt.Sprint([]any{v}))
			}
			wantProjected = append(wantProjected, fmt.Sprint([]any{v}))
		}
		slices.Sort(want)
		slices.Sort(wantFiltered)
		slices.Sort(wantProjected)

		it, plan, err := tbl.ReadPending(ctx, lsmread.ScanSpec{}, p)
		if err != nil {
			t.Fatal(err)
		}
		if plan.Snapshot == nil || plan.Snapshot.ID != 1 {
			t.Fatalf("seed %d: the plan read snapshot %v, want 1", seed, plan.Snapshot)
		}
		p.Add(kv.Insert, []any{int32(999), int32(1)}, false) // after the read began: not seen
		if got := drain(t, it); !slices.Equal(got, want) {
			t.Errorf("seed %d: rows\n got %v\nwant %v", seed, got, want)
		}
		p.DiscardStatement() // drops the record added after the read began
		ge := lsmread.Leaf{Field: 1, Name: "v", Type: ts.Fields[1].Type, Op: lsmread.OpGtEq, Literals: []any{int32(50)}}
		it, _, err = tbl.ReadPending(ctx, lsmread.ScanSpec{Filter: ge, Projection: []string{"v"}}, p)
		if err != nil {
			t.Fatal(err)
		}
		if got := drain(t, it); !slices.Equal(got, wantFiltered) {
			t.Errorf("seed %d: v >= 50\n got %v\nwant %v", seed, got, wantFiltered)
		}
		it, _, err = tbl.ReadPending(ctx, lsmread.ScanSpec{Projection: []string{"v"}}, p)
		if err != nil {
			t.Fatal(err)
		}
		if got := drain(t, it); !slices.Equal(got, wantProjected) {
			t.Errorf("seed %d: projected\n got %v\nwant %v", seed, got, wantProjected)
		}
		// LookupKey sees the committed table only.
		for k := range int32(50) {
			found, _, err := tbl.LookupKey(ctx, ts, []any{k, nil})
			if err != nil {
				t.Fatal(err)
			}
			v, ok := committed[k]
			if ok != (found != nil) || ok && found[1] != v {
				t.Fatalf("seed %d: LookupKey(%d) = %v, committed %v %v", seed, k, found, v, ok)
			}
		}
	}
}

// TestReadPendingAppend: an append table's pending rows follow its
// committed rows.
func TestReadPendingAppend(t *testing.T) {
	ctx := context.Background()
	tbl, ts := pendingTable(t, ctx, false, map[int32]int32{1: 10, 2: 20})
	p := kv.NewPendingWrites(ts)
	p.Add(kv.Insert, []any{int32(1), int32(10)}, false)
	p.Add(kv.Insert, []any{nil, int32(30)}, false)
	it, _, err := tbl.ReadPending(ctx, lsmread.ScanSpec{}, p)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"[1 10]", "[1 10]", "[2 20]", "[<nil> 30]"}
	slices.Sort(want)
	if got := drain(t, it); !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func maps(m map[int32]int32) map[int32]int32 {
	out := make(map[int32]int32, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// TestReadPendingKeyFilter: with pending writes, a filter on the key plans
// the committed read with that filter (one bucket for k = x instead of
// both), and the rows still equal the model's for key, mixed and non-key
// filters.
func TestReadPendingKeyFilter(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(8) {
		rng := rand.New(rand.NewPCG(seed, 5))
		committed := map[int32]int32{}
		for k := range int32(40) {
			committed[k] = rng.Int32N(100)
		}
		tbl, ts := pendingTable(t, ctx, true, committed)
		model := maps(committed)
		p := kv.NewPendingWrites(ts)
		for range 1 + rng.IntN(40) {
			k := rng.Int32N(50)
			if rng.IntN(4) == 0 {
				p.Add(kv.Delete, []any{k, nil}, true)
				delete(model, k)
			} else {
				v := rng.Int32N(100)
				p.Add(kv.Insert, []any{k, v}, false)
				model[k] = v
			}
		}
		p.StatementDone()
		leaf := func(f int, op lsmread.Op, v int32) lsmread.Leaf {
			return lsmread.Leaf{Field: f, Name: ts.Fields[f].Name, Type: ts.Fields[f].Type, Op: op, Literals: []any{v}}
		}
		x := rng.Int32N(50)
		for _, c := range []struct {
			name   string
			filter lsmread.Predicate
			match  func(k, v int32) bool
		}{
			{"k = x", leaf(0, lsmread.OpEq, x), func(k, v int32) bool { return k == x }},
			{"k >= x AND v >= 50", lsmread.And{leaf(0, lsmread.OpGtEq, x), leaf(1, lsmread.OpGtEq, 50)}, func(k, v int32) bool { return k >= x && v >= 50 }},
			{"k = x OR v < 10", lsmread.Or{leaf(0, lsmread.OpEq, x), leaf(1, lsmread.OpLt, 10)}, func(k, v int32) bool { return k == x || v < 10 }},
		} {
			var want []string
			for k, v := range model {
				if c.match(k, v) {
					want = append(want, fmt.Sprint([]any{k, v}))
				}
			}
			slices.Sort(want)
			it, plan, err := tbl.ReadPending(ctx, lsmread.ScanSpec{Filter: c.filter}, p)
			if err != nil {
				t.Fatal(err)
			}
			if got := drain(t, it); !slices.Equal(got, want) {
				t.Errorf("seed %d: %s (x = %d)\n got %v\nwant %v", seed, c.name, x, got, want)
			}
			if c.name == "k = x" && len(plan.Splits) != 1 {
				t.Errorf("seed %d: k = %d read %d splits with pending writes, want the key's bucket only", seed, x, len(plan.Splits))
			}
		}
	}
}

// TestReadPendingSpilledKeyFilter: after the pending records spilled (an
// 8 kb limit), a read whose filter pins keys (IN, a range) reads the spill
// file and equals the model; a read needing more than the limit of spilled
// records fails with kv.ErrSpilled.
func TestReadPendingSpilledKeyFilter(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(6) {
		rng := rand.New(rand.NewPCG(seed, 5))
		committed := map[int32]int32{}
		for range 200 {
			committed[rng.Int32N(2000)] = rng.Int32N(100)
		}
		tbl, ts := pendingTable(t, ctx, true, committed)
		model := maps(committed)
		p := kv.NewPendingWrites(ts)
		p.SetLimit(8 << 10)
		defer p.Close()
		for range 3000 {
			k := rng.Int32N(2000)
			if rng.IntN(5) == 0 {
				if err := p.Add(kv.Delete, []any{k, nil}, true); err != nil {
					t.Fatal(err)
				}
				delete(model, k)
			} else {
				v := rng.Int32N(100)
				if err := p.Add(kv.Insert, []any{k, v}, false); err != nil {
					t.Fatal(err)
				}
				model[k] = v
			}
		}
		p.StatementDone()
		if !p.Spilled() {
			t.Fatal("3000 records did not spill past 8 kb")
		}
		keyType := ts.Fields[0].Type
		var in []any
		for range 20 {
			in = append(in, rng.Int32N(2000))
		}
		lo := rng.Int32N(1990)
		for _, c := range []struct {
			name   string
			filter lsmread.Predicate
			keep   func(int32) bool
		}{
			{"IN", lsmread.Leaf{Field: 0, Name: "k", Type: keyType, Op: lsmread.OpIn, Literals: in},
				func(k int32) bool { return slices.Contains(in, any(k)) }},
			{"range", lsmread.And{
				lsmread.Leaf{Field: 0, Name: "k", Type: keyType, Op: lsmread.OpGtEq, Literals: []any{lo}},
				lsmread.Leaf{Field: 0, Name: "k", Type: keyType, Op: lsmread.OpLt, Literals: []any{lo + 10}},
			}, func(k int32) bool { return k >= lo && k < lo+10 }},
		} {
			var want []string
			for k, v := range model {
				if c.keep(k) {
					want = append(want, fmt.Sprint([]any{k, v}))
				}
			}
			slices.Sort(want)
			it, _, err := tbl.ReadPending(ctx, lsmread.ScanSpec{Filter: c.filter}, p)
			if err != nil {
				t.Fatalf("seed %d %s: %v", seed, c.name, err)
			}
			if got := drain(t, it); !slices.Equal(got, want) {
				t.Errorf("seed %d %s:\n got %v\nwant %v", seed, c.name, got, want)
			}
		}
		if _, _, err := tbl.ReadPending(ctx, lsmread.ScanSpec{}, p); !errors.Is(err, kv.ErrSpilled) {
			t.Errorf("seed %d: a whole read of 3000 spilled records with an 8 kb limit: %v, want ErrSpilled", seed, err)
		}
	}
}

// BenchmarkReadPendingKeyIn: a DELETE … WHERE k IN (1000 keys) after a
// transaction buffered 200k upserts (the bench's CDC batch): the read of
// the committed rows and the pending records of those keys.
func BenchmarkReadPendingKeyIn(b *testing.B) {
	ctx := context.Background()
	committed := map[int32]int32{}
	for k := range int32(20000) {
		committed[k] = k % 100
	}
	tbl, ts := pendingTable(b, ctx, true, committed)
	p := kv.NewPendingWrites(ts)
	for k := range int32(200000) {
		if err := p.Add(kv.Insert, []any{k * 3 % 400000, k % 7}, false); err != nil {
			b.Fatal(err)
		}
	}
	p.StatementDone()
	in := make([]any, 1000)
	for i := range in {
		in[i] = int32(i * 397 % 400000)
	}
	spec := lsmread.ScanSpec{Filter: lsmread.NewInLeaf(0, "k", ts.Fields[0].Type, lsmread.OpIn, in)}
	b.ReportAllocs()
	for b.Loop() {
		it, _, err := tbl.ReadPending(ctx, spec, p)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for {
			if _, err := it.Next(); err != nil {
				break
			}
			n++
		}
		it.Close()
		if n == 0 {
			b.Fatal("no rows")
		}
	}
}
