package provider

import (
	"cmp"
	"fmt"
	"math/big"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/lakesql/lakesql/lsmread"
)

// AggregateTopNRuleID identifies AggregateTopNRule.
const AggregateTopNRuleID analyzer.RuleId = 1013

// AggregateTopNRule gives an AggregateScan below a TopN (ORDER BY … LIMIT
// n over a GROUP BY, through Projects) the TopN's order and limit when
// every sort column is a GROUP BY integer key, a COUNT, a SUM, or a MIN or
// MAX of an integer or DECIMAL column: the scan then orders its groups by
// their typed accumulators and turns only the first n into rows, instead of
// boxing every group (100k of them for GROUP BY user_id) for GMS's TopN to
// compare row by row. The TopN stays above and orders those n rows; ties
// past the sort columns may pick other groups than the row path, as MySQL
// may. Run it after the TopN rules (sqlengine's topNThroughProject).
func AggregateTopNRule(ctx *sql.Context, a *analyzer.Analyzer, node sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qf *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if !vectorizedAggregates(ctx) {
		return node, transform.SameTree, nil
	}
	return transform.Node(node, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		tn, ok := n.(*plan.TopN)
		if !ok || tn.CalcFoundRows {
			return n, transform.SameTree, nil
		}
		var projs []*plan.Project
		c := tn.Child
		for {
			p, ok := c.(*plan.Project)
			if !ok {
				break
			}
			projs = append(projs, p)
			c = p.Child
		}
		as, ok := c.(*AggregateScan)
		if !ok || as.top != nil {
			return n, transform.SameTree, nil
		}
		top := &aggTop{limit: tn.Limit}
		for _, sf := range tn.Fields {
			j, ok := as.sortColumn(sf.Column, projs)
			if !ok || sf.NullOrdering != sql.NullsFirst || !as.topKeyable(j) {
				return n, transform.SameTree, nil
			}
			top.fields = append(top.fields, topField{out: j, desc: sf.Order == sql.Descending, name: sf.Column.String()})
		}
		cp := *as
		cp.top = top
		var node sql.Node = &cp
		for i := len(projs) - 1; i >= 0; i-- {
			var err error
			if node, err = projs[i].WithChildren(node); err != nil {
				return nil, transform.SameTree, err
			}
		}
		out, err := tn.WithChildren(node)
		return out, transform.NewTree, err
	})
}

// aggTop is the order and limit an AggregateScan keeps groups by.
type aggTop struct {
	limit  sql.Expression
	fields []topField
}

// topField is one sort column: a position in the scan's output.
type topField struct {
	out  int
	desc bool
	name string // for EXPLAIN
}

func (t *aggTop) String() string {
	var fs []string
	for _, f := range t.fields {
		d := "ASC"
		if f.desc {
			d = "DESC"
		}
		fs = append(fs, f.name+" "+d)
	}
	return fmt.Sprintf("TopN(Limit: [%s]; %s)", t.limit, strings.Join(fs, ", "))
}

// sortColumn returns the scan output column a sort expression reads
// through the Projects between them (by column id: each must pass the
// column on, under an alias or not).
func (as *AggregateScan) sortColumn(e sql.Expression, projs []*plan.Project) (int, bool) {
	gf, ok := e.(*expression.GetField)
	if !ok || gf.Id() == 0 {
		return 0, false
	}
	id, name := gf.Id(), gf.Name()
	for _, p := range projs {
		next := sql.ColumnId(0)
		for _, pe := range p.Projections {
			switch x := pe.(type) {
			case *expression.Alias:
				// GMS leaves a projected alias's id unset: matched by name.
				if x.Id() == id || x.Id() == 0 && strings.EqualFold(x.Name(), name) {
					g, ok := x.Child.(*expression.GetField)
					if !ok || g.Id() == 0 || next != 0 {
						return 0, false
					}
					next = g.Id()
				}
			case *expression.GetField:
				if x.Id() == id {
					if next != 0 {
						return 0, false
					}
					next = id
				}
			}
		}
		if next == 0 {
			return 0, false
		}
		id = next
	}
	for j, se := range as.gb.SelectedExprs {
		ie, ok := se.(sql.IdExpression)
		if ok && ie.Id() == id {
			return j, true
		}
	}
	return 0, false
}

// topKeyable reports whether scan output j is ordered from the typed
// groups: one integer or DECIMAL(p ≤ 18) GROUP BY key, COUNT, SUM, or MIN
// or MAX of an integer or DECIMAL(p ≤ 18) column.
func (as *AggregateScan) topKeyable(j int) bool {
	o := as.out[j]
	if o < 0 {
		return len(as.keys) == 1 && intVector(lsmread.KindOf(as.typeAt(as.keys[-1-o])))
	}
	switch s := as.aggs[o]; s.kind {
	case aggCountRows, aggCount, aggSum:
		return true
	case aggMin, aggMax:
		return intVector(lsmread.KindOf(s.typ))
	}
	return false
}

func intVector(k lsmread.VectorKind) bool {
	return k == lsmread.VectorInt64 || k == lsmread.VectorInt32 || k == lsmread.VectorDecimal64
}

// topValue is a group's value of one sort column: NULL, an int64, or a
// sum past int64.
type topValue struct {
	null bool
	i    int64
	big  *big.Int
}

func (as *AggregateScan) topValue(gs *lsmread.Groups, g int, f *topField) topValue {
	o := as.out[f.out]
	if o < 0 {
		x, ok := gs.IntKey(g)
		return topValue{null: !ok, i: x}
	}
	switch as.aggs[o].kind {
	case aggCountRows, aggCount:
		return topValue{i: gs.N(g, o)}
	case aggSum:
		if gs.N(g, o) == 0 {
			return topValue{null: true}
		}
		if x, ok := gs.SumInt(g, o); ok {
			return topValue{i: x}
		}
		return topValue{big: gs.Accum(g, o).Big}
	}
	if gs.N(g, o) == 0 {
		return topValue{null: true}
	}
	x, _ := gs.BestInt(g, o)
	return topValue{i: x}
}

// compare orders two values as MySQL does ascending (NULL first).
func (a topValue) compare(b topValue) int {
	switch {
	case a.null || b.null:
		if a.null == b.null {
			return 0
		}
		if a.null {
			return -1
		}
		return 1
	case a.big == nil && b.big == nil:
		return cmp.Compare(a.i, b.i)
	}
	x, y := a.big, b.big
	if x == nil {
		x = big.NewInt(a.i)
	}
	if y == nil {
		y = big.NewInt(b.i)
	}
	return x.Cmp(y)
}

// topGroups returns the groups the TopN keeps, or nil for every group
// (the limit is not a count, or as large as the groups).
func (as *AggregateScan) topGroups(ctx *sql.Context, gs *lsmread.Groups) []int {
	if as.top == nil {
		return nil
	}
	lv, err := as.top.limit.Eval(ctx, nil)
	if err != nil {
		return nil // not a constant here: every group, the TopN above limits
	}
	lv, _, err = types.Int64.Convert(ctx, lv)
	if err != nil {
		return nil
	}
	k, ok := lv.(int64)
	if !ok || k < 0 || k >= int64(gs.Len()) {
		return nil
	}
	// before reports whether group a sorts before group b (ties: the
	// earlier group).
	fields := as.top.fields
	before := func(a, b int) bool {
		for i := range fields {
			f := &fields[i]
			c := as.topValue(gs, a, f).compare(as.topValue(gs, b, f))
			if f.desc {
				c = -c
			}
			if c != 0 {
				return c < 0
			}
		}
		return a < b
	}
	// A heap of the best k so far, its last-sorting group on top.
	h := make([]int, 0, k)
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= len(h) {
				return
			}
			if r := l + 1; r < len(h) && before(h[l], h[r]) {
				l = r
			}
			if !before(h[i], h[l]) {
				return
			}
			h[i], h[l] = h[l], h[i]
			i = l
		}
	}
	for g := range gs.Len() {
		if len(h) < int(k) {
			h = append(h, g)
			for i := len(h) - 1; i > 0; {
				up := (i - 1) / 2
				if !before(h[up], h[i]) {
					break
				}
				h[up], h[i] = h[i], h[up]
				i = up
			}
			continue
		}
		if k > 0 && before(g, h[0]) {
			h[0] = g
			down(0)
		}
	}
	return h
}
