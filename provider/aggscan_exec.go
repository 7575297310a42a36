package provider

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/rowexec"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/lsmread"
)

// iter computes the aggregate: lsmread aggregates the plan's column
// batches (Plan.Aggregate, or CountFromStats for a bare COUNT(*)); the
// adapter gives it the exact filter as a row test over the batch and turns
// each group into a row of GroupBy's schema.
func (as *AggregateScan) iter(ctx *sql.Context, row sql.Row) (sql.RowIter, error) {
	if as.t.pending(ctx) != nil {
		// The transaction's pending writes: the overlay reads rows.
		return rowexec.DefaultBuilder.Build(ctx, as.gb, row)
	}
	spec := as.t.scanSpec()
	spec.TimeZone = sessionZone(ctx)
	p, err := as.t.lt.Plan(ctx, spec)
	if err != nil {
		return nil, mapError(fmt.Errorf("table %s: %w", as.t.name, err))
	}
	as.t.noteRead(ctx, p)
	noteScan(ctx, p)
	if as.countOnly() {
		n, ok, err := p.CountFromStats(ctx)
		if err != nil {
			return nil, mapError(err)
		}
		if ok {
			out := make(sql.Row, len(as.out))
			for j := range out {
				out[j] = n
			}
			return sql.RowsToRowIter(out), nil
		}
	}
	agg := lsmread.AggregateSpec{Keys: as.keys}
	for _, a := range as.aggs {
		agg.Aggs = append(agg.Aggs, lsmread.AggColumn{Kind: a.kind.lsmread(), Col: a.col})
	}
	if as.filter != nil {
		agg.NewFilter = func() lsmread.RowFilter { return as.rowFilter(ctx) }
	}
	groups, err := p.Aggregate(ctx, agg)
	if err != nil {
		return nil, mapError(err)
	}
	rows, err := as.result(groups, as.topGroups(ctx, groups))
	if err != nil {
		return nil, err
	}
	return sql.RowsToRowIter(rows...), nil
}

// lsmread is the aggregate lsmread computes for k (AVG is a sum and a
// count).
func (k aggKind) lsmread() lsmread.AggKind {
	switch k {
	case aggCountRows:
		return lsmread.AggCountRows
	case aggCount:
		return lsmread.AggCount
	case aggSum, aggAvg:
		return lsmread.AggSum
	case aggMin:
		return lsmread.AggMin
	}
	return lsmread.AggMax
}

// rowFilter evaluates the query's filter on a batch row: the columns it
// reads become SQL values of one reused row. One per worker.
func (as *AggregateScan) rowFilter(ctx *sql.Context) lsmread.RowFilter {
	var refs []int
	seen := map[int]bool{}
	transform.InspectExpr(as.filter, func(e sql.Expression) bool {
		if gf, ok := e.(*expression.GetField); ok && !seen[gf.Index()] {
			seen[gf.Index()] = true
			refs = append(refs, gf.Index())
		}
		return false
	})
	r := make(sql.Row, len(as.cols))
	return func(b *lsmread.Batch, i int32) (bool, error) {
		for _, c := range refs {
			v, err := toSQL(as.typeAt(c), b.Cols[c].Value(int(i)))
			if err != nil {
				return false, err
			}
			r[c] = v
		}
		res, err := sql.EvaluateCondition(ctx, as.filter, r)
		if err != nil {
			return false, err
		}
		return sql.IsTrue(res), nil
	}
}

func (as *AggregateScan) countOnly() bool {
	if as.filter != nil || len(as.keys) > 0 || len(as.aggs) == 0 {
		return false
	}
	for _, a := range as.aggs {
		if a.kind != aggCountRows {
			return false
		}
	}
	return len(as.out) == len(as.aggs)
}

// result turns the groups (those of top when not nil) into rows of
// GroupBy's schema, with the values the row path computes (MySQL's SUM and
// AVG of lakesql's builtins, GMS's COUNT, MIN and MAX over the scan's
// values).
func (as *AggregateScan) result(gs *lsmread.Groups, top []int) ([]sql.Row, error) {
	n := gs.Len()
	if top != nil {
		n = len(top)
	}
	out := make([]sql.Row, 0, n)
	vals := make([]any, n*len(as.out))
	for i := range n {
		g := i
		if top != nil {
			g = top[i]
		}
		row := sql.Row(vals[i*len(as.out) : (i+1)*len(as.out) : (i+1)*len(as.out)])
		var keys []any
		for j, o := range as.out {
			if o < 0 {
				if keys == nil {
					keys = gs.Key(g)
				}
				k := -1 - o
				v, err := toSQL(as.typeAt(as.keys[k]), keys[k])
				if err != nil {
					return nil, err
				}
				row[j] = v
				continue
			}
			v, err := as.value(as.aggs[o], gs.Accum(g, o))
			if err != nil {
				return nil, err
			}
			row[j] = v
		}
		out = append(out, row)
	}
	return out, nil
}

func (as *AggregateScan) value(spec aggSpec, acc lsmread.Accum) (any, error) {
	switch spec.kind {
	case aggCountRows, aggCount:
		return acc.N, nil
	case aggSum, aggAvg:
		if acc.N == 0 {
			return nil, nil
		}
		exp := -int32(0)
		if spec.typ.Root == schema.TypeDecimal {
			exp = -int32(spec.typ.Scale)
		}
		var d decimal.Decimal
		if acc.Big != nil {
			d = decimal.NewFromBigInt(acc.Big, exp)
		} else {
			d = decimal.New(acc.Sum, exp)
		}
		if spec.kind == aggAvg {
			return d.DivRound(decimal.NewFromInt(acc.N), spec.scale), nil
		}
		return d, nil
	}
	if acc.N == 0 {
		return nil, nil
	}
	var raw any
	switch lsmread.KindOf(spec.typ) {
	case lsmread.VectorInt64:
		raw = acc.BestI
	case lsmread.VectorInt32:
		raw = int32(acc.BestI)
	case lsmread.VectorDecimal64:
		raw = schema.Decimal{Compact: acc.BestI, Scale: int32(spec.typ.Scale)}
	case lsmread.VectorString:
		raw = acc.BestS
	default:
		raw = acc.Best
	}
	return toSQL(spec.typ, raw)
}
