package provider

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/rowexec"
	"github.com/shopspring/decimal"
)

// RowIter implements sql.ExecSourceRel: D's rows by key, F's partial
// groups joined to them and combined.
func (ej *EagerAggregateJoin) RowIter(ctx *sql.Context, row sql.Row) (sql.RowIter, error) {
	if ej.fact.t.pending(ctx) != nil || ej.dim.t.pending(ctx) != nil {
		// The transaction's pending writes: the overlay reads rows.
		return rowexec.DefaultBuilder.Build(ctx, ej.gb, row)
	}
	dimRows, err := drain(ctx, ej.dim, row)
	if err != nil {
		return nil, err
	}
	var buf []byte
	dims := make(map[string]sql.Row, len(dimRows))
	for _, r := range dimRows {
		var ok bool
		if buf, ok = appendJoinKey(buf[:0], r[:ej.nJoin]); ok {
			dims[string(buf)] = r
		}
	}
	factRows, err := drain(ctx, ej.fact, row)
	if err != nil {
		return nil, err
	}
	na := len(ej.aggs)
	type group struct {
		keys []any
		acc  []eagerAcc
	}
	var groups []*group
	index := map[string]*group{}
	if len(ej.keys) == 0 {
		// No GROUP BY: one row, also over no rows.
		groups = append(groups, &group{acc: make([]eagerAcc, na)})
	}
	for _, fr := range factRows {
		var ok bool
		if buf, ok = appendJoinKey(buf[:0], fr[:ej.nJoin]); !ok {
			continue // a NULL join key matches nothing
		}
		dr, ok := dims[string(buf)]
		if !ok {
			continue
		}
		var g *group
		if len(ej.keys) == 0 {
			g = groups[0]
		} else {
			buf = buf[:0]
			for _, k := range ej.keys {
				buf = appendGroupKey(buf, ej.keyValue(k, fr, dr))
			}
			if g = index[string(buf)]; g == nil {
				g = &group{keys: make([]any, len(ej.keys)), acc: make([]eagerAcc, na)}
				for i, k := range ej.keys {
					g.keys[i] = ej.keyValue(k, fr, dr)
				}
				index[string(buf)] = g
				groups = append(groups, g)
			}
		}
		for i := range ej.aggs {
			if err := g.acc[i].add(ctx, &ej.aggs[i], fr); err != nil {
				return nil, err
			}
		}
	}
	out := make([]sql.Row, 0, len(groups))
	for _, g := range groups {
		r := make(sql.Row, len(ej.out))
		for j, o := range ej.out {
			if o < 0 {
				r[j] = g.keys[-1-o]
				continue
			}
			r[j] = g.acc[o].result(&ej.aggs[o])
		}
		out = append(out, r)
	}
	return sql.RowsToRowIter(out...), nil
}

func (ej *EagerAggregateJoin) keyValue(k int, fact, dim sql.Row) any {
	if k >= 0 {
		return fact[k]
	}
	return dim[-1-k]
}

// drain runs an aggregate scan to its rows.
func drain(ctx *sql.Context, as *AggregateScan, row sql.Row) ([]sql.Row, error) {
	it, err := as.iter(ctx, row)
	if err != nil {
		return nil, err
	}
	var rows []sql.Row
	for {
		r, err := it.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			it.Close(ctx)
			return nil, err
		}
		rows = append(rows, r)
	}
	return rows, it.Close(ctx)
}

// eagerAcc combines one aggregate's partials.
type eagerAcc struct {
	n    int64 // COUNT; AVG's count
	sum  decimal.Decimal
	seen bool // a non-NULL SUM, MIN or MAX partial
	best any
}

func (a *eagerAcc) add(ctx *sql.Context, spec *eagerAgg, r sql.Row) error {
	v := r[spec.p]
	switch spec.kind {
	case aggCountRows, aggCount:
		n, ok := v.(int64)
		if !ok {
			return fmt.Errorf("eager aggregation: COUNT partial %T", v)
		}
		a.n += n
		return nil
	case aggSum, aggAvg:
		if v == nil {
			return nil
		}
		d, ok := v.(decimal.Decimal)
		if !ok {
			return fmt.Errorf("eager aggregation: SUM partial %T", v)
		}
		if a.seen {
			a.sum = a.sum.Add(d)
		} else {
			a.sum, a.seen = d, true
		}
		if spec.kind == aggAvg {
			n, ok := r[spec.n].(int64)
			if !ok {
				return fmt.Errorf("eager aggregation: AVG count partial %T", r[spec.n])
			}
			a.n += n
		}
		return nil
	}
	if v == nil {
		return nil
	}
	if !a.seen {
		a.best, a.seen = v, true
		return nil
	}
	c, err := spec.typ.Compare(ctx, v, a.best)
	if err != nil {
		return err
	}
	if spec.kind == aggMin && c < 0 || spec.kind == aggMax && c > 0 {
		a.best = v
	}
	return nil
}

// result is the final value, as the row path gives it: COUNT an int64,
// SUM a DECIMAL (NULL over no values), AVG the sum over the count rounded
// to AVG's scale, MIN and MAX the column's value.
func (a *eagerAcc) result(spec *eagerAgg) any {
	switch spec.kind {
	case aggCountRows, aggCount:
		return a.n
	case aggSum:
		if !a.seen {
			return nil
		}
		return a.sum
	case aggAvg:
		if !a.seen || a.n == 0 {
			return nil
		}
		return a.sum.DivRound(decimal.NewFromInt(a.n), spec.scale)
	}
	if !a.seen {
		return nil
	}
	return a.best
}

// appendJoinKey appends the join key of vs; false when one is NULL (it
// matches nothing).
func appendJoinKey(buf []byte, vs []any) ([]byte, bool) {
	for _, v := range vs {
		if v == nil {
			return buf, false
		}
		buf = appendGroupKey(buf, v)
	}
	return buf, true
}

// appendGroupKey appends a key of v equal for values MySQL finds equal
// within a key type (indexKeyType): integers of every width by value,
// DECIMALs by value (1.5 = 1.50), strings by their bytes (lakesql's
// strings compare as binary), dates and times by instant.
func appendGroupKey(buf []byte, v any) []byte {
	i64 := func(tag byte, x int64) []byte {
		buf = append(buf, tag)
		return binary.BigEndian.AppendUint64(buf, uint64(x))
	}
	switch x := v.(type) {
	case nil:
		return append(buf, 0)
	case int8:
		return i64(1, int64(x))
	case int16:
		return i64(1, int64(x))
	case int32:
		return i64(1, int64(x))
	case int64:
		return i64(1, x)
	case int:
		return i64(1, int64(x))
	case uint8:
		return i64(1, int64(x))
	case uint16:
		return i64(1, int64(x))
	case uint32:
		return i64(1, int64(x))
	case uint64:
		if x <= math.MaxInt64 {
			return i64(1, int64(x))
		}
		buf = append(buf, 2)
		return binary.BigEndian.AppendUint64(buf, x)
	case bool:
		if x {
			return i64(1, 1)
		}
		return i64(1, 0)
	case string:
		buf = append(buf, 3)
		buf = binary.AppendUvarint(buf, uint64(len(x)))
		return append(buf, x...)
	case decimal.Decimal:
		s := x.String()
		buf = append(buf, 4)
		buf = binary.AppendUvarint(buf, uint64(len(s)))
		return append(buf, s...)
	case time.Time:
		buf = i64(5, x.Unix())
		return binary.BigEndian.AppendUint32(buf, uint32(x.Nanosecond()))
	}
	s := fmt.Sprintf("%T:%v", v, v)
	buf = append(buf, 6)
	buf = binary.AppendUvarint(buf, uint64(len(s)))
	return append(buf, s...)
}
