package lsmread_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmread"
	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/snapshot"
)

// TestNarrowByPartitionEqualsWalk: Narrow of a planned table with many
// partitions (two partition fields) and buckets, some buckets packed into
// several splits, by random point predicates (one key, IN lists, keys of
// partitions that do not exist, partitions not pinned, extra non-key
// conditions) gives the same splits, files and figures with the binary
// search of the keys' partitions as looking at every split, and reads the
// same rows.
func TestNarrowByPartitionEqualsWalk(t *testing.T) {
	ctx := context.Background()
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(seed, 77))
	st, err := storage.Open(ctx, "file://"+t.TempDir()+"?fsync=false")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	notNull := func(ty schema.TypeRoot) schema.DataType { return schema.AtomicType(ty).WithNullable(false) }
	ts := &schema.TableSchema{
		Version: schema.SchemaVersionCurrent,
		Fields: []schema.DataField{
			{ID: 0, Name: "k", Type: notNull(schema.TypeInt)},
			{ID: 1, Name: "p1", Type: notNull(schema.TypeInt)},
			{ID: 2, Name: "p2", Type: schema.StringType().WithNullable(false)},
			{ID: 3, Name: "v", Type: schema.AtomicType(schema.TypeBigInt)},
		},
		HighestFieldID: 3,
		PartitionKeys:  []string{"p1", "p2"},
		PrimaryKeys:    []string{"k", "p1", "p2"},
		Options:        map[string]string{"bucket": "3", "write-only": "true", "source.split.target-size": "1 b", "source.split.open-file-cost": "1 b"},
	}
	if err := snapshot.NewSchemaManager(st, "main").Commit(ctx, ts); err != nil {
		t.Fatal(err)
	}
	p2s := []string{"a", "b", "c", "dd"}
	var base *snapshot.Snapshot
	for range 4 {
		w, err := lsmwrite.NewTableWrite(ctx, st, ts, base, lsmwrite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for range 300 {
			row := []any{int32(rng.IntN(40)), int32(rng.IntN(6) - 2), p2s[rng.IntN(len(p2s))], int64(rng.IntN(100))}
			if err := w.Write(ctx, kv.Insert, row); err != nil {
				t.Fatal(err)
			}
			if rng.IntN(100) == 0 {
				if err := w.Flush(ctx); err != nil {
					t.Fatal(err)
				}
			}
		}
		if base, err = w.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	tbl := lsmread.OpenTable(st, "")
	plan, err := tbl.Plan(ctx, lsmread.ScanSpec{})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Splits) < 60 {
		t.Fatalf("only %d splits: the table is too small to test", len(plan.Splits))
	}
	leaf := func(f int, op lsmread.Op, lits ...any) lsmread.Leaf {
		return lsmread.Leaf{Field: f, Name: ts.Fields[f].Name, Type: ts.Fields[f].Type, Op: op, Literals: lits}
	}
	key := func() any { return int32(rng.IntN(45)) }
	p1 := func() any { return int32(rng.IntN(8) - 3) } // -3 and 4 are no partition
	p2 := func() any { return []string{"a", "b", "c", "dd", "e"}[rng.IntN(5)] }
	some := func(f func() any) []any {
		out := make([]any, 1+rng.IntN(4))
		for i := range out {
			out[i] = f()
		}
		return out
	}
	describe := func(np *lsmread.Plan) string {
		s := fmt.Sprintf("stats %+v;", np.Stats)
		for _, sp := range np.Splits {
			s += fmt.Sprintf(" [%v b%d", sp.PartitionValues, sp.Bucket)
			for _, f := range sp.Files {
				s += " " + f.FileName
			}
			s += "]"
		}
		return s
	}
	narrowed := 0
	for i := range 400 {
		var pred lsmread.Predicate
		switch rng.IntN(5) {
		case 0: // one key
			pred = lsmread.And{leaf(0, lsmread.OpEq, key()), leaf(1, lsmread.OpEq, p1()), leaf(2, lsmread.OpEq, p2())}
		case 1: // IN lists
			pred = lsmread.And{leaf(0, lsmread.OpIn, some(key)...), leaf(1, lsmread.OpIn, some(p1)...), leaf(2, lsmread.OpIn, some(p2)...)}
		case 2: // a partition field not pinned
			pred = lsmread.And{leaf(0, lsmread.OpEq, key()), leaf(1, lsmread.OpEq, p1())}
		case 3: // with a non-key condition
			pred = lsmread.And{leaf(0, lsmread.OpEq, key()), leaf(2, lsmread.OpEq, p2()), leaf(1, lsmread.OpIn, some(p1)...), leaf(3, lsmread.OpGt, int64(rng.IntN(100)))}
		default: // OR of points
			pred = lsmread.Or{
				lsmread.And{leaf(0, lsmread.OpEq, key()), leaf(1, lsmread.OpEq, p1()), leaf(2, lsmread.OpEq, p2())},
				lsmread.And{leaf(0, lsmread.OpEq, key()), leaf(1, lsmread.OpEq, p1()), leaf(2, lsmread.OpEq, p2())},
			}
		}
		restore := lsmread.SetNarrowByPartition(false)
		walked, err := plan.Narrow(ctx, pred)
		restore()
		if err != nil {
			t.Fatal(err)
		}
		indexed, err := plan.Narrow(ctx, pred)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := describe(walked), describe(indexed); a != b {
			t.Fatalf("seed %d, case %d, %v:\nevery split: %s\nby partition: %s", seed, i, pred, a, b)
		}
		if indexed.Stats.FilesPruned < indexed.Stats.FilesTotal {
			narrowed++
		}
		if i%20 == 0 {
			a, err := readPlan(ctx, walked)
			if err != nil {
				t.Fatal(err)
			}
			b, err := readPlan(ctx, indexed)
			if err != nil {
				t.Fatal(err)
			}
			sameMultiset(t, fmt.Sprintf("seed %d, case %d, %v", seed, i, pred), b, a)
		}
	}
	if narrowed < 100 {
		t.Fatalf("seed %d: only %d of 400 narrowed plans kept a split", seed, narrowed)
	}
}
