package kv_test

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
)

// TestKeyComparatorSingleColumn: the specialized one-column comparators
// order keys exactly as schema.Compare does, NULLs and wrong Go types
// included.
func TestKeyComparatorSingleColumn(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := []struct {
		typ schema.DataType
		gen func() any
	}{
		{schema.AtomicType(schema.TypeBigInt), func() any { return rng.Int64N(7) - 3 }},
		{schema.AtomicType(schema.TypeInt), func() any { return int32(rng.IntN(7) - 3) }},
		{schema.StringType(), func() any { return strconv.Itoa(rng.IntN(30)) }},
		{schema.AtomicType(schema.TypeDouble), func() any { return float64(rng.IntN(5)) }},
	}
	for _, c := range cases {
		fast := kv.NewKeyComparator([]schema.DataType{c.typ})
		val := func() any {
			switch rng.IntN(8) {
			case 0:
				return nil
			case 1:
				return true // a wrong Go type never panics
			}
			return c.gen()
		}
		for range 2000 {
			a, b := []any{val()}, []any{val()}
			want := schema.Compare(&c.typ, a[0], b[0])
			if got := fast(a, b); sign(got) != sign(want) {
				t.Fatalf("%v: compare(%#v, %#v) = %d, schema.Compare says %d", c.typ.Root, a[0], b[0], got, want)
			}
		}
	}
}

func sign(c int) int {
	switch {
	case c < 0:
		return -1
	case c > 0:
		return 1
	}
	return 0
}
