package builtins

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation/window"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// GMS v0.20.0 types SUM and AVG like their argument (SUM of an INT column
// clamps to int32), sums in float64 (SUM of BIGINTs loses digits), and
// its window SUM returns 0 for a frame with only NULLs. MySQL: SUM of an
// integer or DECIMAL is an exact DECIMAL, AVG of one is a DECIMAL with 4
// more digits of scale, both are DOUBLE for anything else, and NULL when no
// non-NULL value was seen.

// aggType is SUM's (avg false) or AVG's result type for an argument.
func aggType(arg sql.Type, avg bool) sql.Type {
	extra := uint8(0)
	if avg {
		extra = 4
	}
	switch {
	case isInt(arg):
		return types.MustCreateDecimalType(65, extra)
	case decimalType(arg) != nil:
		return types.MustCreateDecimalType(65, min(decimalType(arg).Scale()+extra, 30))
	}
	return types.Float64
}

// acc accumulates exact or DOUBLE sums.
type acc struct {
	exact bool
	n     int64
	d     decimal.Decimal
	f     float64
}

func (a *acc) add(v any, t sql.Type) {
	n := toNum(v, t)
	if n.kind == kNone {
		return
	}
	a.n++
	if a.exact {
		a.d = a.d.Add(n.dec())
	} else {
		a.f += n.float()
	}
}

// result is the SUM, or AVG with scale digits, of the values added.
func (a *acc) result(avg bool, scale int32) any {
	if a.n == 0 {
		return nil
	}
	if !avg {
		if a.exact {
			return a.d
		}
		return a.f
	}
	if a.exact {
		return a.d.DivRound(decimal.NewFromInt(a.n), scale)
	}
	return a.f / float64(a.n)
}

// sumAvg wraps GMS's Sum or Avg (for its window, id and printing) with
// MySQL's type, buffer and window function.
type sumAvg struct {
	sql.Aggregation
	avg bool
}

var _ sql.Aggregation = (*sumAvg)(nil)

func newSum(e sql.Expression) sql.Expression { return &sumAvg{Aggregation: aggregation.NewSum(e)} }
func newAvg(e sql.Expression) sql.Expression {
	return &sumAvg{Aggregation: aggregation.NewAvg(e), avg: true}
}

func (s *sumAvg) child() sql.Expression { return s.Aggregation.Children()[0] }
func (s *sumAvg) Type() sql.Type        { return aggType(s.child().Type(), s.avg) }
func (s *sumAvg) IsNullable() bool      { return true }

func (s *sumAvg) FunctionName() string {
	if s.avg {
		return "avg"
	}
	return "sum"
}

func (s *sumAvg) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	inner, err := s.Aggregation.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	return &sumAvg{Aggregation: inner.(sql.Aggregation), avg: s.avg}, nil
}

func (s *sumAvg) WithWindow(w *sql.WindowDefinition) sql.WindowAdaptableExpression {
	return &sumAvg{Aggregation: s.Aggregation.WithWindow(w).(sql.Aggregation), avg: s.avg}
}

func (s *sumAvg) WithId(id sql.ColumnId) sql.IdExpression {
	return &sumAvg{Aggregation: s.Aggregation.WithId(id).(sql.Aggregation), avg: s.avg}
}

// ExactSumAvg describes the aggregate for scans that compute it without
// the row-at-a-time buffer (provider's aggregate scan): whether it is AVG,
// whether it sums exactly (a DECIMAL result: integer and DECIMAL
// arguments), and the scale AVG rounds to.
func (s *sumAvg) ExactSumAvg() (avg, exact bool, scale int32) {
	return s.avg, decimalType(s.Type()) != nil, s.scale()
}

func (s *sumAvg) scale() int32 {
	if dt := decimalType(s.Type()); dt != nil {
		return int32(dt.Scale())
	}
	return 0
}

func (s *sumAvg) NewBuffer() (sql.AggregationBuffer, error) {
	child, err := transform.Clone(s.child())
	if err != nil {
		return nil, err
	}
	return &sumAvgBuffer{expr: child, avg: s.avg, scale: s.scale(), acc: acc{exact: decimalType(s.Type()) != nil}}, nil
}

func (s *sumAvg) NewWindowFunction() (sql.WindowFunction, error) {
	child, err := transform.Clone(s.child())
	if err != nil {
		return nil, err
	}
	w := &sumAvgWindow{expr: child, avg: s.avg, scale: s.scale(), exact: decimalType(s.Type()) != nil}
	if def := s.Window(); def != nil && def.Frame != nil {
		if w.framer, err = def.Frame.NewFramer(def); err != nil {
			return nil, err
		}
	}
	return w, nil
}

type sumAvgBuffer struct {
	expr  sql.Expression
	avg   bool
	scale int32
	acc   acc
}

func (b *sumAvgBuffer) Update(ctx *sql.Context, row sql.Row) error {
	v, err := b.expr.Eval(ctx, row)
	if err != nil {
		return err
	}
	if v, err = sql.UnwrapAny(ctx, v); err != nil {
		return err
	}
	b.acc.add(v, b.expr.Type())
	return nil
}

func (b *sumAvgBuffer) Eval(*sql.Context) (any, error) { return b.acc.result(b.avg, b.scale), nil }
func (b *sumAvgBuffer) Dispose()                       { expression.Dispose(b.expr) }

// sumAvgWindow computes a frame's SUM or AVG from prefix sums over the
// partition, counting non-NULL values so an all-NULL frame is NULL.
type sumAvgWindow struct {
	expr   sql.Expression
	avg    bool
	scale  int32
	exact  bool
	framer sql.WindowFramer

	start  int
	prefix []acc // prefix[i]: the values of rows start..start+i-1
}

func (w *sumAvgWindow) Dispose() { expression.Dispose(w.expr) }

func (w *sumAvgWindow) DefaultFramer() sql.WindowFramer {
	if w.framer != nil {
		return w.framer
	}
	return aggregation.NewUnboundedPrecedingToCurrentRowFramer()
}

func (w *sumAvgWindow) StartPartition(ctx *sql.Context, interval sql.WindowInterval, buf sql.WindowBuffer) error {
	w.start = interval.Start
	w.prefix = make([]acc, 1, interval.End-interval.Start+1)
	w.prefix[0] = acc{exact: w.exact}
	for i := interval.Start; i < interval.End; i++ {
		v, err := w.expr.Eval(ctx, buf[i])
		if err != nil {
			return err
		}
		if v, err = sql.UnwrapAny(ctx, v); err != nil {
			return err
		}
		next := w.prefix[len(w.prefix)-1]
		next.add(v, w.expr.Type())
		w.prefix = append(w.prefix, next)
	}
	return nil
}

func (w *sumAvgWindow) Compute(ctx *sql.Context, interval sql.WindowInterval, buf sql.WindowBuffer) any {
	lo, hi := interval.Start-w.start, interval.End-w.start
	if hi <= lo || lo < 0 || hi >= len(w.prefix) {
		return nil
	}
	a, b := w.prefix[lo], w.prefix[hi]
	frame := acc{exact: w.exact, n: b.n - a.n, d: b.d.Sub(a.d), f: b.f - a.f}
	return frame.result(w.avg, w.scale)
}

// GMS v0.20.0 ranks find peer groups with Go's == on the ORDER BY values
// (aggregation/window_framer.go isNewOrderByValue), so two equal DECIMALs
// (each holding a *big.Int) are never peers. rankFn gives its window
// function ORDER BY expressions that evaluate to comparable values.
type rankFn struct {
	sql.WindowAdaptableExpression
	newFn func(orderBy []sql.Expression) sql.WindowFunction
}

func newRankFn(inner sql.Expression, newFn func([]sql.Expression) sql.WindowFunction) sql.Expression {
	return &rankFn{WindowAdaptableExpression: inner.(sql.WindowAdaptableExpression), newFn: newFn}
}

func (r *rankFn) FunctionName() string {
	return r.WindowAdaptableExpression.(sql.FunctionExpression).FunctionName()
}

func (r *rankFn) Description() string {
	return r.WindowAdaptableExpression.(sql.FunctionExpression).Description()
}

func (r *rankFn) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	inner, err := r.WindowAdaptableExpression.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	return &rankFn{WindowAdaptableExpression: inner.(sql.WindowAdaptableExpression), newFn: r.newFn}, nil
}

func (r *rankFn) WithWindow(w *sql.WindowDefinition) sql.WindowAdaptableExpression {
	return &rankFn{WindowAdaptableExpression: r.WindowAdaptableExpression.WithWindow(w), newFn: r.newFn}
}

func (r *rankFn) WithId(id sql.ColumnId) sql.IdExpression {
	return &rankFn{WindowAdaptableExpression: r.WindowAdaptableExpression.WithId(id).(sql.WindowAdaptableExpression), newFn: r.newFn}
}

func (r *rankFn) NewWindowFunction() (sql.WindowFunction, error) {
	var orderBy []sql.Expression
	if w := r.Window(); w != nil {
		for _, e := range w.OrderBy.ToExpressions() {
			orderBy = append(orderBy, &peerKey{e})
		}
	}
	return r.newFn(orderBy), nil
}

// peerKey evaluates to a value Go's == compares as SQL equality: DECIMALs
// as their normalized text.
type peerKey struct{ sql.Expression }

func (k *peerKey) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := k.Expression.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case decimal.Decimal:
		return "dec:" + x.String(), nil
	case []byte:
		return string(x), nil
	}
	return v, nil
}

func (k *peerKey) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(k, len(children), 1)
	}
	return &peerKey{children[0]}, nil
}

func (k *peerKey) Children() []sql.Expression { return []sql.Expression{k.Expression} }

var aggFunctions = []sql.Function{
	sql.Function1{Name: "sum", Fn: newSum},
	sql.Function1{Name: "avg", Fn: newAvg},
	sql.Function0{Name: "rank", Fn: func() sql.Expression {
		return newRankFn(window.NewRank(), func(o []sql.Expression) sql.WindowFunction { return aggregation.NewRank(o) })
	}},
	sql.Function0{Name: "dense_rank", Fn: func() sql.Expression {
		return newRankFn(window.NewDenseRank(), func(o []sql.Expression) sql.WindowFunction { return aggregation.NewDenseRank(o) })
	}},
	sql.Function0{Name: "percent_rank", Fn: func() sql.Expression {
		return newRankFn(window.NewPercentRank(), func(o []sql.Expression) sql.WindowFunction { return aggregation.NewPercentRank(o) })
	}},
}
