package lsmread

import (
	"cmp"
	"math/big"

	"github.com/lakesql/lakesql/internal/schema"
)

// aggCol is one aggregate's state for every group, as columns indexed by
// group (struct of arrays): a group's count and sum are plain int64s, with
// no pointer for the collector to scan, and only the arrays the aggregate
// needs exist.
type aggCol struct {
	kind AggKind
	vk   VectorKind       // the kind of the column MIN/MAX reads
	typ  *schema.DataType // the column MIN/MAX reads (other kinds: schema.Compare)
	n    []int64          // rows (COUNT(*)), or the non-NULL values seen
	sum  []int64          // SUM: the part of the sum not yet in big
	// big is nil until a SUM leaves int64; then big[g], when not nil, holds
	// the part of group g's sum that left sum[g] (the sum is big[g] + sum[g]).
	big   []*big.Int
	bestI []int64  // MIN/MAX of an integer column, or a DECIMAL(p ≤ 18) unscaled
	bestS []string // MIN/MAX of a string column
	best  []any    // MIN/MAX of another column (the value model)
}

func newAggCol(spec AggColumn, kinds []VectorKind, types []*schema.DataType) aggCol {
	c := aggCol{kind: spec.Kind}
	if spec.Kind == AggMin || spec.Kind == AggMax {
		c.vk, c.typ = kinds[spec.Col], types[spec.Col]
	}
	return c
}

// grow adds one group.
func (c *aggCol) grow() {
	c.n = append(c.n, 0)
	switch c.kind {
	case AggSum:
		c.sum = append(c.sum, 0)
		if c.big != nil {
			c.big = append(c.big, nil)
		}
	case AggMin, AggMax:
		switch c.vk {
		case VectorInt64, VectorInt32, VectorDecimal64:
			c.bestI = append(c.bestI, 0)
		case VectorString:
			c.bestS = append(c.bestS, "")
		default:
			c.best = append(c.best, nil)
		}
	}
}

// add adds x to group g's sum exactly.
func (c *aggCol) add(g int32, x int64) {
	s := c.sum[g]
	t := s + x
	if (x > 0 && t < s) || (x < 0 && t > s) {
		c.spill(g, s)
		t = x
	}
	c.sum[g] = t
}

// spill moves s, group g's int64 part of the sum, into its big part (the
// caller then sets sum[g]).
func (c *aggCol) spill(g int32, s int64) {
	c.addBig(g, big.NewInt(s))
	c.sum[g] = 0
}

// addBig adds x to group g's sum.
func (c *aggCol) addBig(g int32, x *big.Int) {
	if c.big == nil {
		c.big = make([]*big.Int, len(c.n))
	}
	if c.big[g] == nil {
		c.big[g] = new(big.Int)
	}
	c.big[g].Add(c.big[g], x)
}

// better reports whether x replaces the best value kept (c < 0: x is less).
func (c *aggCol) better(cmp int) bool {
	return c.kind == AggMin && cmp < 0 || c.kind == AggMax && cmp > 0
}

// accum is group g's state as an Accum.
func (c *aggCol) accum(g int) Accum {
	a := Accum{N: c.n[g]}
	switch c.kind {
	case AggSum:
		a.Sum = c.sum[g]
		if c.big != nil && c.big[g] != nil {
			a.Big = new(big.Int).Add(c.big[g], big.NewInt(c.sum[g]))
			a.Sum = 0
		}
	case AggMin, AggMax:
		switch {
		case c.bestI != nil:
			a.BestI = c.bestI[g]
		case c.bestS != nil:
			a.BestS = c.bestS[g]
		case c.best != nil:
			a.Best = c.best[g]
		}
	}
	return a
}

// combine adds src (another partial's state of the same aggregate) into
// group g.
func (c *aggCol) combine(g int32, src Accum) {
	switch c.kind {
	case AggCountRows, AggCount:
		c.n[g] += src.N
	case AggSum:
		if src.Big != nil {
			c.addBig(g, src.Big)
		} else {
			c.add(g, src.Sum)
		}
		c.n[g] += src.N
	case AggMin, AggMax:
		if src.N == 0 {
			return
		}
		first := c.n[g] == 0
		c.n[g] += src.N
		switch c.vk {
		case VectorInt64, VectorInt32, VectorDecimal64:
			if first || c.better(cmp.Compare(src.BestI, c.bestI[g])) {
				c.bestI[g] = src.BestI
			}
		case VectorString:
			if first || c.better(cmp.Compare(src.BestS, c.bestS[g])) {
				c.bestS[g] = src.BestS
			}
		default:
			if first || c.better(schema.Compare(c.typ, src.Best, c.best[g])) {
				c.best[g] = src.Best
			}
		}
	}
}

// countRows counts a row of each group in gidx.
func (c *aggCol) countRows(gidx []int32) {
	n := c.n
	for _, g := range gidx {
		n[g]++
	}
}

// sumRows adds vals[rows[k]] to group gidx[k] (NULLs skipped).
func sumRows[T int64 | int32](c *aggCol, vals []T, nulls []bool, rows, gidx []int32) {
	n, sum := c.n, c.sum
	for k, i := range rows {
		if nulls != nil && nulls[i] {
			continue
		}
		g := gidx[k]
		n[g]++
		x := int64(vals[i])
		s := sum[g]
		t := s + x
		if (x > 0 && t < s) || (x < 0 && t > s) {
			c.spill(g, s)
			t = x
		}
		sum[g] = t
	}
}

// minMaxRows keeps the least (MIN) or greatest (MAX) of vals[rows[k]] in
// group gidx[k] (NULLs skipped).
func minMaxRows[T int64 | int32](c *aggCol, vals []T, nulls []bool, rows, gidx []int32) {
	n, best := c.n, c.bestI
	isMin := c.kind == AggMin
	for k, i := range rows {
		if nulls != nil && nulls[i] {
			continue
		}
		g := gidx[k]
		x := int64(vals[i])
		if n[g] == 0 || isMin && x < best[g] || !isMin && x > best[g] {
			best[g] = x
		}
		n[g]++
	}
}
