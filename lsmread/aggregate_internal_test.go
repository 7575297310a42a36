package lsmread

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/internal/datafile"
	"github.com/lakesql/lakesql/internal/schema"
)

// TestDenseIndexModel: a denseIndex in front of a hash map (as
// aggPartial.group uses them) finds every key's group, as a plain map
// does, for keys of narrow ranges, wide ranges that spill, and extremes.
func TestDenseIndexModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	draws := []func() int64{
		func() int64 { return rng.Int64N(1000) },
		func() int64 { return 1<<40 + rng.Int64N(50000) - 25000 },
		func() int64 { return rng.Int64N(3 * maxDense) },
		func() int64 { return []int64{math.MinInt64, math.MaxInt64, 0, -1}[rng.IntN(4)] },
	}
	for trial := range 40 {
		var d denseIndex
		m := map[int64]int32{}
		model := map[int64]int32{}
		next := int32(0)
		mix := trial % 16 // which draws this trial uses (bit i: draw i; 0: the first)
		for range 5000 {
			k := rng.IntN(len(draws))
			if mix != 0 && mix&(1<<k) == 0 {
				k = 0
			}
			x := draws[k]()
			g := d.get(x)
			if g < 0 {
				var ok bool
				if g, ok = m[x]; !ok {
					g = -1
				}
			}
			want, ok := model[x]
			if !ok {
				want = -1
			}
			if g != want {
				t.Fatalf("trial %d: key %d: group %d, want %d", trial, x, g, want)
			}
			if g < 0 {
				g, next = next, next+1
				model[x] = g
				if !d.put(x, g) {
					d.spill(m)
					m[x] = g
				}
			}
		}
	}
}

// TestPackShortIsExact: packShort with the length tells every string of at
// most 16 bytes apart (strings of a small alphabet, so that they share
// prefixes and suffixes).
func TestPackShortIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	type key struct {
		lo, hi uint64
		n      int
	}
	seen := map[key]string{}
	for range 200000 {
		b := make([]byte, rng.IntN(17))
		for i := range b {
			b[i] = "ab\x00"[rng.IntN(3)]
		}
		s := string(b)
		lo, hi := packShort(s)
		k := key{lo, hi, len(s)}
		if o, ok := seen[k]; ok && o != s {
			t.Fatalf("%q and %q pack alike", o, s)
		}
		seen[k] = s
	}
}

// TestAppendKeyAtEqualsEncodeGroupKey: the unboxed key encoding of typed
// vectors is byte for byte encodeGroupKey's of their values (the partials
// merge by the latter), for NULLs, extremes, empty and long strings and
// DECIMALs of both signs; other vectors are refused.
func TestAppendKeyAtEqualsEncodeGroupKey(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	types := []schema.DataType{
		schema.AtomicType(schema.TypeBigInt), schema.AtomicType(schema.TypeInt), schema.StringType(),
		schema.DecimalType(18, 4), schema.DecimalType(10, 0), schema.AtomicType(schema.TypeDouble),
	}
	for range 2000 {
		typ := types[rng.IntN(len(types))]
		var v datafile.Vector
		v.Reset(typ, 1)
		if rng.IntN(5) == 0 {
			v.Nulls = []bool{true}
		}
		x := []int64{math.MinInt64, math.MaxInt64, 0, -1, rng.Int64() - rng.Int64()}[rng.IntN(5)]
		switch KindOf(&typ) {
		case VectorInt64, VectorDecimal64:
			v.Int64[0] = x
		case VectorInt32:
			v.Int32[0] = int32(x)
		case VectorString:
			v.Str[0] = strings.Repeat("é\x00a", rng.IntN(200))
		case VectorFloat64:
			v.Float64[0] = float64(x)
		}
		got, ok := appendKeyAt([]byte("p"), &v, 0)
		if k := KindOf(&typ); k == VectorFloat64 || k == VectorAny {
			if ok && (v.Nulls == nil) {
				t.Fatalf("%s: a key of an untyped vector was encoded", typ)
			}
			continue
		}
		want := encodeGroupKey([]byte("p"), []any{v.Value(0)})
		if !ok || string(got) != string(want) {
			t.Fatalf("%s %v: %q (%v), want %q", typ, v.Value(0), got, ok, want)
		}
	}
}
