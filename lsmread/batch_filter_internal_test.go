package lsmread

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/lakesql/lakesql/internal/schema"
)

// TestFilterBatchModel: filterBatch keeps exactly the rows for which Test
// is True, for random leaves (every comparison, IS [NOT] NULL, IN, literals
// drawn from the column so that equal values occur, literals of another
// type), AND and OR over BIGINT, INT, DECIMAL(10,2), string and DOUBLE
// columns with NULLs, with and without a selection.
func TestFilterBatchModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 5))
	types := []schema.DataType{
		schema.AtomicType(schema.TypeBigInt),
		schema.AtomicType(schema.TypeInt),
		schema.DecimalType(10, 2),
		schema.StringType(),
		schema.AtomicType(schema.TypeDouble),
	}
	for trial := range 300 {
		n := 1 + rng.IntN(60)
		var b Batch
		b.Reset(types, n)
		for i := range n {
			x := rng.IntN(9) - 4
			vals := []any{int64(x), int32(x), schema.Decimal{Compact: int64(x * 50), Scale: 2}, fmt.Sprint("s", x), float64(x) / 2}
			for c := range types {
				if rng.IntN(6) == 0 {
					b.Cols[c].SetNull(i)
				} else if err := b.Cols[c].Set(i, vals[c]); err != nil {
					t.Fatal(err)
				}
			}
		}
		leaf := func() Predicate {
			f := rng.IntN(len(types))
			op := Op(rng.IntN(int(OpNotIn) + 1))
			lit := b.Cols[f].Value(rng.IntN(n))
			if rng.IntN(8) == 0 {
				lit = "other type"
			}
			if op == OpIn || op == OpNotIn {
				return NewInLeaf(f, "c", types[f], op, []any{lit, b.Cols[f].Value(rng.IntN(n))})
			}
			return Leaf{Field: f, Name: "c", Type: types[f], Op: op, Literals: []any{lit}}
		}
		var pred func(depth int) Predicate
		pred = func(depth int) Predicate {
			if depth > 1 || rng.IntN(2) == 0 {
				return leaf()
			}
			ps := []Predicate{pred(depth + 1), pred(depth + 1), pred(depth + 1)}[:2+rng.IntN(2)]
			if rng.IntN(2) == 0 {
				return And(ps)
			}
			return Or(ps)
		}
		p := pred(0)
		var sel []int32
		if rng.IntN(2) == 0 {
			sel = []int32{}
			for k := range int32(n) {
				if rng.IntN(3) > 0 {
					sel = append(sel, k)
				}
			}
		}
		var want []int32
		each(n, sel, func(k int32) {
			if Test(p, func(f int) (any, bool) { return b.Cols[f].Value(int(k)), true }) == True {
				want = append(want, k)
			}
		})
		got := filterBatch(p, &b, sel, nil)
		if !slices.Equal(got, want) && (len(got) > 0 || len(want) > 0) {
			t.Fatalf("trial %d: %v over %d rows (selection %v): kept %v, want %v", trial, p, n, sel, got, want)
		}
	}
}
