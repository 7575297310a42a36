package lsmread

import (
	"cmp"

	"github.com/lakesql/lakesql/internal/datafile"
	"github.com/lakesql/lakesql/internal/schema"
)

// filterBatch appends to dst the rows of sel (nil: all b.Len rows) of b
// for which p is True (Test's semantics; b's columns are the read schema's
// fields, so a leaf's Field is its column). Comparisons of a BIGINT, INT,
// DECIMAL(p ≤ 18) or string column with one literal of its own type, and
// IS [NOT] NULL, run over the typed vector without boxing; AND narrows the
// rows child by child; anything else is tested row by row.
func filterBatch(p Predicate, b *Batch, sel, dst []int32) []int32 {
	switch p := p.(type) {
	case Leaf:
		if out, ok := filterLeaf(&p, &b.Cols[p.Field], b.Len, sel, dst); ok {
			return out
		}
	case And:
		if len(p) > 0 {
			rows := filterBatch(p[0], b, sel, dst)
			for _, c := range p[1:] {
				if len(rows) == 0 {
					break
				}
				// Narrow in place: filterLeaf/filterBatch write each kept
				// row at or before the position it reads.
				rows = filterBatch(c, b, rows, rows[:0])
			}
			return rows
		}
	}
	each(b.Len, sel, func(k int32) {
		if Test(p, func(f int) (any, bool) { return b.Cols[f].Value(int(k)), true }) == True {
			dst = append(dst, k)
		}
	})
	return dst
}

// each calls fn for each row of sel (nil: 0..n-1).
func each(n int, sel []int32, fn func(k int32)) {
	if sel != nil {
		for _, k := range sel {
			fn(k)
		}
		return
	}
	for k := range int32(n) {
		fn(k)
	}
}

// filterLeaf is filterBatch of one leaf over a typed vector; false when
// the leaf or the vector has no typed test.
func filterLeaf(l *Leaf, vec *datafile.Vector, n int, sel, dst []int32) ([]int32, bool) {
	kind := vec.Kind()
	if kind == datafile.VectorAny {
		return dst, false
	}
	switch l.Op {
	case OpIsNull, OpIsNotNull:
		want := l.Op == OpIsNull
		each(n, sel, func(k int32) {
			if (vec.Nulls != nil && vec.Nulls[k]) == want {
				dst = append(dst, k)
			}
		})
		return dst, true
	case OpEq, OpNotEq, OpLt, OpLtEq, OpGt, OpGtEq:
	default:
		return dst, false
	}
	if len(l.Literals) != 1 {
		return dst, false
	}
	switch lit := l.Literals[0].(type) {
	case int64:
		if kind == datafile.VectorInt64 && l.Type.Root == schema.TypeBigInt {
			return filterCmp(l.Op, vec.Int64, vec.Nulls, lit, n, sel, dst), true
		}
	case int32:
		if kind == datafile.VectorInt32 && l.Type.Root == schema.TypeInt {
			return filterCmp(l.Op, vec.Int32, vec.Nulls, lit, n, sel, dst), true
		}
	case string:
		if kind == datafile.VectorString && (l.Type.Root == schema.TypeVarChar || l.Type.Root == schema.TypeChar) {
			return filterCmp(l.Op, vec.Str, vec.Nulls, lit, n, sel, dst), true
		}
	case schema.Decimal:
		if kind == datafile.VectorDecimal64 && l.Type.Root == schema.TypeDecimal && lit.Big == nil && int(lit.Scale) == vec.Type.Scale {
			return filterCmp(l.Op, vec.Int64, vec.Nulls, lit.Compact, n, sel, dst), true
		}
	}
	return dst, false
}

// filterCmp appends the rows whose non-NULL value compares to lit as op
// asks.
func filterCmp[T cmp.Ordered](op Op, vals []T, nulls []bool, lit T, n int, sel, dst []int32) []int32 {
	keep := func(x T) bool {
		switch op {
		case OpEq:
			return x == lit
		case OpNotEq:
			return x != lit
		case OpLt:
			return x < lit
		case OpLtEq:
			return x <= lit
		case OpGt:
			return x > lit
		}
		return x >= lit
	}
	if sel == nil && nulls == nil && op == OpEq {
		for k, x := range vals[:n] {
			if x == lit {
				dst = append(dst, int32(k))
			}
		}
		return dst
	}
	each(n, sel, func(k int32) {
		if (nulls == nil || !nulls[k]) && keep(vals[k]) {
			dst = append(dst, k)
		}
	})
	return dst
}
