package provider

import (
	"fmt"
	"strings"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/lakesql/lakesql/internal/schema"
)

// AggregateRuleID identifies AggregateRule.
const AggregateRuleID analyzer.RuleId = 1003

// VectorizedAggregatesVar is the session variable that turns the aggregate
// scan on (1, the default) or off (0: GMS aggregates row by row).
const VectorizedAggregatesVar = "lakesql_vectorized_aggregates"

// AggregateRule is a post-analysis rule that replaces GMS's row-at-a-time
// GROUP BY over a lakesql table (COUNT, SUM, AVG, MIN, MAX of columns,
// grouped by columns, with the filter below it) by an AggregateScan, which
// aggregates the table's column batches in parallel across splits, and
// answers COUNT(*) of tables whose files need no merging from the manifest
// statistics. Its results are exactly the row path's (the same values, of
// the same Go types: TestAggregateScanEqualsRowPath compares them on random
// tables and queries); a shape it does not compute exactly keeps GMS's
// GroupBy. Run it after PushdownRule: the pushed filter prunes the scan.
func AggregateRule(ctx *sql.Context, a *analyzer.Analyzer, node sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qf *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if !vectorizedAggregates(ctx) {
		return node, transform.SameTree, nil
	}
	return transform.Node(node, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		gb, ok := n.(*plan.GroupBy)
		if !ok {
			return n, transform.SameTree, nil
		}
		if as := newAggregateScan(gb); as != nil {
			return as, transform.NewTree, nil
		}
		return n, transform.SameTree, nil
	})
}

func vectorizedAggregates(ctx *sql.Context) bool { return switchOn(ctx, VectorizedAggregatesVar) }

// switchOn reads a boolean session switch of lakesql's (default ON: an
// unknown or unreadable variable counts as on).
func switchOn(ctx *sql.Context, name string) bool {
	v, err := ctx.GetSessionVariable(ctx, name)
	if err != nil {
		return true
	}
	b, err := sql.ConvertToBool(ctx, v)
	return err != nil || b
}

// switchVariable declares a boolean switch (session and global, default
// ON).
func switchVariable(name string) sql.SystemVariable {
	return &sql.MysqlSystemVariable{
		Name:    name,
		Scope:   sql.GetMysqlScope(sql.SystemVariableScope_Both),
		Dynamic: true,
		Type:    types.NewSystemBoolType(name),
		Default: int8(1),
	}
}

// aggKind is an aggregate the scan computes.
type aggKind uint8

const (
	aggCountRows aggKind = iota // COUNT(*), COUNT(constant)
	aggCount                    // COUNT(col)
	aggSum                      // SUM(col), exact (integer or DECIMAL)
	aggAvg                      // AVG(col), exact
	aggMin
	aggMax
)

// aggSpec is one aggregate: its kind, the column it reads (a position in
// the scan's columns) and that column's type.
type aggSpec struct {
	kind  aggKind
	col   int
	typ   *schema.DataType
	scale int32 // AVG's result scale
	expr  sql.Expression
}

// exactSumAvg is implemented by lakesql's MySQL SUM and AVG
// (sqlengine/builtins): whether it is AVG, whether it sums exactly and the
// scale AVG rounds to.
type exactSumAvg interface {
	ExactSumAvg() (avg, exact bool, scale int32)
}

// AggregateScan computes a GROUP BY of aggregates over a lakesql table scan
// from column batches. It has GroupBy's schema and, when it cannot read
// the table itself (a transaction's pending writes), runs GroupBy.
type AggregateScan struct {
	gb     *plan.GroupBy
	t      *Table
	filter sql.Expression // the Filter's condition (exact; the scan's pushed predicate only prunes)
	qual   string         // the table's name or alias in the query
	cols   []int          // field index of each scan column
	keys   []int          // GROUP BY columns (scan positions)
	aggs   []aggSpec
	// out says, per selected expression, which aggregate (>= 0) or which
	// GROUP BY column (-1-k) it is.
	out []int
	// top, when set, is the order and limit of a TopN above (through
	// Projects): only its groups become rows (AggregateTopNRule).
	top *aggTop
}

var (
	_ sql.Node          = (*AggregateScan)(nil)
	_ sql.ExecSourceRel = (*AggregateScan)(nil)
)

// newAggregateScan returns the scan replacing gb, or nil when gb is not a
// shape it computes exactly.
func newAggregateScan(gb *plan.GroupBy) *AggregateScan {
	child := gb.Child
	var filter sql.Expression
	if f, ok := child.(*plan.Filter); ok {
		filter, child = f.Expression, f.Child
	}
	qual := ""
	if ta, ok := child.(*plan.TableAlias); ok {
		child, qual = ta.Child, ta.Name()
	}
	rt, ok := child.(*plan.ResolvedTable)
	if !ok {
		return nil
	}
	t, ok := rt.UnderlyingTable().(*Table)
	if !ok {
		return nil
	}
	if qual == "" {
		qual = rt.Name()
	}
	as := &AggregateScan{gb: gb, t: t, filter: filter, qual: qual}
	for _, c := range t.Schema() {
		i := t.sch.FieldIndex(c.Name)
		if i < 0 {
			return nil
		}
		as.cols = append(as.cols, i)
	}
	if filter != nil {
		f, ok := as.positional(filter)
		if !ok {
			return nil
		}
		as.filter = f
	}
	for _, e := range gb.GroupByExprs {
		p, ok := as.column(e)
		// Group keys are grouped by exact value equality, as MySQL groups
		// them: the types an index key may have (lookup_bounds.go).
		if !ok || !indexKeyType(as.typeAt(p)) {
			return nil
		}
		as.keys = append(as.keys, p)
	}
	for _, e := range gb.SelectedExprs {
		if al, ok := e.(*expression.Alias); ok {
			e = al.Child
		}
		if p, ok := as.column(e); ok {
			k := -1
			for j, kp := range as.keys {
				if kp == p {
					k = j
				}
			}
			if k < 0 {
				return nil // a column neither grouped nor aggregated
			}
			as.out = append(as.out, -1-k)
			continue
		}
		spec, ok := as.aggregate(e)
		if !ok {
			return nil
		}
		as.out = append(as.out, len(as.aggs))
		as.aggs = append(as.aggs, spec)
	}
	return as
}

// positional returns the filter with its columns read at their scan
// positions; false when it reads anything else (outer columns,
// subqueries, parameters).
func (as *AggregateScan) positional(e sql.Expression) (sql.Expression, bool) {
	ok := true
	out, _, err := transform.Expr(e, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		switch x := e.(type) {
		case *expression.GetField:
			p, found := as.column(x)
			if !found {
				ok = false
				return e, transform.SameTree, nil
			}
			return x.WithIndex(p), transform.NewTree, nil
		case *plan.Subquery, *expression.BindVar, *expression.ProcedureParam:
			ok = false
		}
		return e, transform.SameTree, nil
	})
	return out, ok && err == nil
}

func (as *AggregateScan) typeAt(p int) *schema.DataType { return &as.t.sch.Fields[as.cols[p]].Type }

// column returns the scan position a GetField reads (by name: at this
// stage of the analysis GetField indexes are column ids, which the
// analyzer turns into row positions later).
func (as *AggregateScan) column(e sql.Expression) (int, bool) {
	gf, ok := e.(*expression.GetField)
	if !ok || gf.Table() != "" && !strings.EqualFold(gf.Table(), as.qual) {
		return 0, false // another table's column (an outer query's)
	}
	for p, i := range as.cols {
		if strings.EqualFold(as.t.sch.Fields[i].Name, gf.Name()) {
			return p, true
		}
	}
	return 0, false
}

// ProjectedExprs implements sql.Projector: GroupBy's selected
// expressions (the analyzer maps the parent's columns through them).
func (as *AggregateScan) ProjectedExprs() []sql.Expression { return as.gb.SelectedExprs }

// aggregate recognises one aggregate expression.
func (as *AggregateScan) aggregate(e sql.Expression) (aggSpec, bool) {
	arg := func(x sql.Expression) (int, *schema.DataType, bool) {
		p, ok := as.column(x)
		if !ok {
			return 0, nil, false
		}
		return p, as.typeAt(p), true
	}
	switch a := e.(type) {
	case *aggregation.Count:
		if a.Window() != nil {
			return aggSpec{}, false
		}
		c := a.Child
		if _, ok := c.(*expression.Star); ok {
			return aggSpec{kind: aggCountRows, expr: e}, true
		}
		if l, ok := c.(*expression.Literal); ok && l.Value() != nil {
			return aggSpec{kind: aggCountRows, expr: e}, true
		}
		p, t, ok := arg(c)
		if !ok {
			return aggSpec{}, false
		}
		return aggSpec{kind: aggCount, col: p, typ: t, expr: e}, true
	case *aggregation.Min, *aggregation.Max:
		var child sql.Expression
		kind := aggMin
		if m, ok := a.(*aggregation.Min); ok {
			if m.Window() != nil {
				return aggSpec{}, false
			}
			child = m.Child
		} else {
			m := a.(*aggregation.Max)
			if m.Window() != nil {
				return aggSpec{}, false
			}
			child, kind = m.Child, aggMax
		}
		p, t, ok := arg(child)
		if !ok || !minMaxType(t) {
			return aggSpec{}, false
		}
		return aggSpec{kind: kind, col: p, typ: t, expr: e}, true
	case sql.Aggregation:
		sa, ok := e.(exactSumAvg)
		if !ok || a.Window() != nil || len(a.Children()) != 1 {
			return aggSpec{}, false
		}
		avg, exact, scale := sa.ExactSumAvg()
		p, t, ok := arg(a.Children()[0])
		if !ok || !exact || !sumType(t) {
			return aggSpec{}, false
		}
		kind := aggSum
		if avg {
			kind = aggAvg
		}
		return aggSpec{kind: kind, col: p, typ: t, scale: scale, expr: e}, true
	}
	return aggSpec{}, false
}

// sumType: integer and DECIMAL columns sum exactly.
func sumType(t *schema.DataType) bool {
	switch t.Root {
	case schema.TypeTinyInt, schema.TypeSmallInt, schema.TypeInt, schema.TypeBigInt, schema.TypeDecimal:
		return true
	}
	return false
}

// minMaxType: types whose order here is MySQL's (binary strings order,
// numbers, dates and times; not floating point, whose -0.0 and NaN MySQL
// orders otherwise).
func minMaxType(t *schema.DataType) bool {
	switch t.Root {
	case schema.TypeTinyInt, schema.TypeSmallInt, schema.TypeInt, schema.TypeBigInt, schema.TypeDecimal,
		schema.TypeVarChar, schema.TypeDate:
		return true
	case schema.TypeTimestamp, schema.TypeLocalZonedTimestamp:
		return t.Precision <= 6
	}
	return false
}

// Resolved implements sql.Node.
func (as *AggregateScan) Resolved() bool { return true }

// IsReadOnly implements sql.Node.
func (as *AggregateScan) IsReadOnly() bool { return true }

// Schema implements sql.Node: GroupBy's.
func (as *AggregateScan) Schema() sql.Schema { return as.gb.Schema() }

// Children implements sql.Node: none (the table is read inside).
func (as *AggregateScan) Children() []sql.Node { return nil }

// WithChildren implements sql.Node.
func (as *AggregateScan) WithChildren(children ...sql.Node) (sql.Node, error) {
	if len(children) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(as, len(children), 0)
	}
	return as, nil
}

// CollationCoercibility implements sql.CollationCoercible.
func (as *AggregateScan) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return as.gb.CollationCoercibility(ctx)
}

// String implements sql.Node (EXPLAIN).
func (as *AggregateScan) String() string {
	pr := sql.NewTreePrinter()
	_ = pr.WriteNode("AggregateScan")
	var sel, grp []string
	for _, e := range as.gb.SelectedExprs {
		sel = append(sel, e.String())
	}
	for _, e := range as.gb.GroupByExprs {
		grp = append(grp, e.String())
	}
	children := []string{fmt.Sprintf("SelectedExprs(%s)", strings.Join(sel, ", ")), fmt.Sprintf("Grouping(%s)", strings.Join(grp, ", "))}
	if as.top != nil {
		children = append(children, as.top.String())
	}
	children = append(children, as.gb.Child.String())
	_ = pr.WriteChildren(children...)
	return pr.String()
}

// RowIter implements sql.ExecSourceRel.
func (as *AggregateScan) RowIter(ctx *sql.Context, row sql.Row) (sql.RowIter, error) {
	return as.iter(ctx, row)
}

var installAggregateVars, installBatchScanVar sync.Once

// InstallAggregateVariables registers lakesql_vectorized_aggregates
// (session and global, default ON).
func InstallAggregateVariables() {
	installAggregateVars.Do(func() {
		sql.SystemVariables.AddSystemVariables([]sql.SystemVariable{switchVariable(VectorizedAggregatesVar)})
	})
}
