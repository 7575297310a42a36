package sqlengine

import (
	"io"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/plan"
)

// GMS v0.20.0 runs an aggregate without GROUP BY (SELECT COUNT(*) FROM t,
// SUM(x) … HAVING …) in rowexec's groupByIter, whose buffers are nil until
// its first Next; its Close disposes them all, so closing it before any
// Next dereferences a nil interface (rowexec/agg.go groupByIter.Dispose).
// Every plan that closes the aggregate unread panics: LIMIT 0 above it
// (SELECT COUNT(*) FROM t LIMIT 0, … ORDER BY … LIMIT 0, … HAVING … LIMIT 0,
// a derived table or UNION over it with LIMIT 0), and MySQL answers those
// with an empty result. lakesql's executor builds such a GroupBy as
// aggregateAllIter instead: the same evaluation, and a Close that disposes
// only the buffers that exist. (lakesql's aggregate scan answers most of
// these queries itself; this is the row path, taken when the scan does not
// apply or lakesql_vectorized_aggregates = 0.)

// buildAggregateAll returns the iterator of g, a GroupBy without grouping
// expressions, over the child iterator that build makes.
func buildAggregateAll(ctx *sql.Context, build sql.NodeExecBuilder, g *plan.GroupBy, row sql.Row) (sql.RowIter, error) {
	child, err := build.Build(ctx, g.Child, row)
	if err != nil {
		return nil, err
	}
	return &aggregateAllIter{exprs: g.SelectedExprs, child: child, buf: make([]sql.AggregationBuffer, len(g.SelectedExprs))}, nil
}

// aggregateAllIter is rowexec's groupByIter with a Close that is safe
// before Next: one row of aggregates over all of child's rows, or, when
// the only aggregates are ANY_VALUE, one row per child row (as GMS does).
type aggregateAllIter struct {
	exprs []sql.Expression
	child sql.RowIter
	buf   []sql.AggregationBuffer
	done  bool
}

var _ sql.RowIter = (*aggregateAllIter)(nil)

func (i *aggregateAllIter) Next(ctx *sql.Context) (sql.Row, error) {
	if i.done {
		return nil, io.EOF
	}
	onlyAnyValue := true
	for j, e := range i.exprs {
		b, err := newAggregationBuffer(e)
		if err != nil {
			return nil, err
		}
		i.buf[j] = b
		if agg, ok := e.(sql.Aggregation); ok {
			if _, any := agg.(*aggregation.AnyValue); !any {
				onlyAnyValue = false
			}
		}
	}
	if onlyAnyValue {
		row, err := i.child.Next(ctx)
		if err != nil {
			i.done = true
			return nil, err
		}
		if err := i.update(ctx, row); err != nil {
			return nil, err
		}
		return i.eval(ctx)
	}
	i.done = true
	for {
		row, err := i.child.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if err := i.update(ctx, row); err != nil {
			return nil, err
		}
	}
	return i.eval(ctx)
}

func (i *aggregateAllIter) update(ctx *sql.Context, row sql.Row) error {
	for _, b := range i.buf {
		if err := b.Update(ctx, row); err != nil {
			return err
		}
	}
	return nil
}

func (i *aggregateAllIter) eval(ctx *sql.Context) (sql.Row, error) {
	out := make(sql.Row, len(i.buf))
	for j, b := range i.buf {
		v, err := b.Eval(ctx)
		if err != nil {
			return nil, err
		}
		out[j] = v
	}
	return out, nil
}

// Close disposes the buffers made so far (none when Next never ran) and
// closes the child.
func (i *aggregateAllIter) Close(ctx *sql.Context) error {
	for _, b := range i.buf {
		if b != nil {
			b.Dispose()
		}
	}
	i.buf = nil
	return i.child.Close(ctx)
}

// newAggregationBuffer is rowexec's: an aggregate's own buffer, and FIRST
// for a bare expression (allowed without ONLY_FULL_GROUP_BY).
func newAggregationBuffer(e sql.Expression) (sql.AggregationBuffer, error) {
	if agg, ok := e.(sql.Aggregation); ok {
		return agg.NewBuffer()
	}
	return aggregation.NewFirst(e).NewBuffer()
}
