package lsmread

import (
	"math"
	"math/rand/v2"
	"testing"
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
