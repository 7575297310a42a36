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

	"github.com/lakesql/lakesql/internal/schema"
)

// EagerAggregationRuleID identifies EagerAggregationRule.
const EagerAggregationRuleID analyzer.RuleId = 1007

// EagerAggregationVar is the session variable that turns the eager
// aggregation of joins on (1, the default) or off (0).
const EagerAggregationVar = "lakesql_eager_aggregation"

// EagerAggregationRule aggregates the fact side of a join before the join
// (eager, or partial, aggregation). For a GROUP BY over an inner join of two
// lakesql tables F and D whose condition is a conjunction of equalities
// F.c = D.k covering every column of D's primary key (so each F row meets
// at most one D row), whose aggregates are COUNT(*), COUNT, SUM, AVG, MIN,
// MAX of F's columns (the ones AggregateScan computes exactly) and whose
// group keys are columns of either table, it replaces the GroupBy by an
// EagerAggregateJoin: F aggregated by its join columns and its group keys
// (an AggregateScan, F's filter below it), D's join and group columns (an
// AggregateScan grouped by them: one row per key, D's filter below it),
// the partial groups joined to D's rows by key and combined into the final
// groups (counts and sums added, MIN of MINs, AVG as the sum of sums over
// the sum of counts). The result has the GroupBy's schema and the row
// path's values and types (TestEagerAggregationEqualsRowPath). Outer joins,
// a D not unique on the join columns, aggregates reading D, DISTINCT
// aggregates, inexact sums (DOUBLE) and any other shape keep GMS's plan;
// so do a lookup join (the coster chose to probe a side rather than read
// it) and an F unique on its join columns (its partial groups would be
// its rows).
// Run it after PushdownRule and before AggregateRule.
func EagerAggregationRule(ctx *sql.Context, a *analyzer.Analyzer, node sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qf *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if !vectorizedAggregates(ctx) || !switchOn(ctx, EagerAggregationVar) {
		return node, transform.SameTree, nil
	}
	return transform.Node(node, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		gb, ok := n.(*plan.GroupBy)
		if !ok {
			return n, transform.SameTree, nil
		}
		if ej := newEagerAggregateJoin(gb); ej != nil {
			return ej, transform.NewTree, nil
		}
		return n, transform.SameTree, nil
	})
}

// EagerAggregateJoin computes a GroupBy over F ⋈ D from F's partial
// groups (see EagerAggregationRule). Its child is the original GroupBy:
// the analyzer indexes it, EXPLAIN shows the rewrite, and a transaction
// with pending writes in either table runs it as it is.
type EagerAggregateJoin struct {
	gb      *plan.GroupBy
	fact    *AggregateScan // F by its join columns and group keys: [join cols, F keys, partials]
	dim     *AggregateScan // D by its join columns and group keys: [join cols, D keys, COUNT(*)]
	joinSQL string
	nJoin   int
	// keys: per GROUP BY expression, its position in the fact row
	// (>= 0) or in the dimension row (-1-p).
	keys []int
	aggs []eagerAgg
	// out: per selected expression, an aggregate (>= 0) or a group key
	// (-1-k).
	out []int
}

// eagerAgg is one final aggregate and where its partials are in the
// fact row.
type eagerAgg struct {
	kind  aggKind
	p     int // the partial (COUNT, SUM, MIN, MAX; AVG's sum)
	n     int // AVG's count
	scale int32
	typ   sql.Type
}

var (
	_ sql.Node          = (*EagerAggregateJoin)(nil)
	_ sql.ExecSourceRel = (*EagerAggregateJoin)(nil)
	_ sql.Projector     = (*EagerAggregateJoin)(nil)
)

// joinSide is one input of the join: its subtree as AggregateScan reads
// it (Filter, TableAlias, ResolvedTable) and the table.
type joinSide struct {
	node sql.Node
	t    *Table
	qual string
}

// eagerSide unwraps a join child to a side AggregateScan can read: the
// hash join's HashLookup and the lookup join's IndexedTableAccess (its
// table read whole: the key the join looked up is matched afterwards)
// are dropped.
func eagerSide(n sql.Node) (joinSide, bool) {
	if hl, ok := n.(*plan.HashLookup); ok {
		n = hl.Child
	}
	var filter sql.Expression
	if f, ok := n.(*plan.Filter); ok {
		filter, n = f.Expression, f.Child
	}
	alias := ""
	if ta, ok := n.(*plan.TableAlias); ok {
		alias, n = ta.Name(), ta.Child
	}
	if ita, ok := n.(*plan.IndexedTableAccess); ok {
		rt, ok := ita.TableNode.(*plan.ResolvedTable)
		if !ok {
			return joinSide{}, false
		}
		n = rt
	}
	rt, ok := n.(*plan.ResolvedTable)
	if !ok {
		return joinSide{}, false
	}
	t, ok := rt.UnderlyingTable().(*Table)
	if !ok || strings.Contains(t.name, "$") {
		return joinSide{}, false
	}
	qual := alias
	if qual == "" {
		qual = rt.Name()
	}
	n = rt
	if alias != "" {
		n = plan.NewTableAlias(alias, rt)
	}
	if filter != nil {
		n = plan.NewFilter(filter, n)
	}
	return joinSide{node: n, t: t, qual: qual}, true
}

// owns says whether a GetField reads the side's table.
func (s joinSide) owns(e sql.Expression) (*expression.GetField, bool) {
	gf, ok := e.(*expression.GetField)
	if !ok || !strings.EqualFold(gf.Table(), s.qual) {
		return nil, false
	}
	return gf, s.field(gf) >= 0
}

func (s joinSide) field(gf *expression.GetField) int {
	for _, c := range s.t.Schema() {
		if strings.EqualFold(c.Name, gf.Name()) {
			return s.t.sch.FieldIndex(c.Name)
		}
	}
	return -1
}

func (s joinSide) typeOf(gf *expression.GetField) *schema.DataType {
	return &s.t.sch.Fields[s.field(gf)].Type
}

func newEagerAggregateJoin(gb *plan.GroupBy) *EagerAggregateJoin {
	j, ok := gb.Child.(*plan.JoinNode)
	if !ok {
		return nil
	}
	switch j.Op {
	case plan.JoinTypeInner, plan.JoinTypeHash, plan.JoinTypeMerge:
	default:
		// Outer and semi joins change the result; a lookup join is the
		// coster's choice to probe one side by key rather than read it
		// (a few outer rows), where reading the fact side whole to
		// aggregate it would cost more than the join.
		return nil
	}
	l, ok := eagerSide(j.Left())
	if !ok {
		return nil
	}
	r, ok := eagerSide(j.Right())
	if !ok || strings.EqualFold(l.qual, r.qual) {
		return nil
	}
	if ej := eagerJoin(gb, j, l, r); ej != nil {
		return ej
	}
	return eagerJoin(gb, j, r, l)
}

// eagerJoin builds the node with f as the fact side and d as the
// dimension, or nil when the shape does not allow it.
func eagerJoin(gb *plan.GroupBy, j *plan.JoinNode, f, d joinSide) *EagerAggregateJoin {
	if len(d.t.sch.PrimaryKeys) == 0 || j.Filter == nil {
		return nil
	}
	// The condition: equalities F.c = D.k of key-comparable types.
	var fJoin, dJoin []sql.Expression
	covered := map[string]bool{}
	for _, c := range expression.SplitConjunction(j.Filter) {
		eq, ok := c.(*expression.Equals)
		if !ok {
			return nil
		}
		a, b := eq.Left(), eq.Right()
		fa, okf := f.owns(a)
		db, okd := d.owns(b)
		if !okf || !okd {
			fa, okf = f.owns(b)
			db, okd = d.owns(a)
			if !okf || !okd {
				return nil
			}
		}
		if !joinableTypes(f.typeOf(fa), d.typeOf(db)) {
			return nil
		}
		fJoin, dJoin = append(fJoin, fa), append(dJoin, db)
		covered[strings.ToLower(d.t.sch.Fields[d.field(db)].Name)] = true
	}
	for _, k := range d.t.sch.PrimaryKeys {
		if !covered[strings.ToLower(k)] {
			return nil // D is not unique on the join columns
		}
	}
	if len(f.t.sch.PrimaryKeys) > 0 {
		fCovered := map[string]bool{}
		for _, e := range fJoin {
			fCovered[strings.ToLower(f.t.sch.Fields[f.field(e.(*expression.GetField))].Name)] = true
		}
		unique := true
		for _, k := range f.t.sch.PrimaryKeys {
			unique = unique && fCovered[strings.ToLower(k)]
		}
		if unique {
			return nil // F's groups would be its rows: nothing to gain
		}
	}
	ej := &EagerAggregateJoin{gb: gb, joinSQL: j.Filter.String(), nJoin: len(fJoin)}
	fSel, fGroup := append([]sql.Expression{}, fJoin...), append([]sql.Expression{}, fJoin...)
	dSel, dGroup := append([]sql.Expression{}, dJoin...), append([]sql.Expression{}, dJoin...)
	// Group keys: columns of F (grouped in the partials) or of D.
	for _, e := range gb.GroupByExprs {
		if gf, ok := f.owns(e); ok {
			ej.keys = append(ej.keys, len(fSel))
			fSel, fGroup = append(fSel, gf), append(fGroup, gf)
			continue
		}
		if gf, ok := d.owns(e); ok {
			ej.keys = append(ej.keys, -1-len(dSel))
			dSel, dGroup = append(dSel, gf), append(dGroup, gf)
			continue
		}
		return nil
	}
	nFact := len(fSel)
	var avgs []int // aggregates that are AVG: their partial is patched to a sum
	for _, e := range gb.SelectedExprs {
		if al, ok := e.(*expression.Alias); ok {
			e = al.Child
		}
		if gf, ok := e.(*expression.GetField); ok {
			k := -1
			for i, g := range gb.GroupByExprs {
				if g2, ok := g.(*expression.GetField); ok && strings.EqualFold(g2.Table(), gf.Table()) && strings.EqualFold(g2.Name(), gf.Name()) {
					k = i
					break
				}
			}
			if k < 0 {
				return nil
			}
			ej.out = append(ej.out, -1-k)
			continue
		}
		agg, ok := e.(sql.Aggregation)
		if !ok {
			return nil
		}
		// Every aggregate reads F only (COUNT(*) reads no column).
		for _, c := range agg.Children() {
			if _, ok := c.(*expression.Star); ok {
				continue
			}
			if lit, ok := c.(*expression.Literal); ok && lit.Value() != nil {
				continue
			}
			if _, ok := f.owns(c); !ok {
				return nil
			}
		}
		ea := eagerAgg{p: len(fSel), typ: e.Type()}
		fSel = append(fSel, e)
		if sa, ok := e.(exactSumAvg); ok {
			if avg, _, scale := sa.ExactSumAvg(); avg {
				avgs = append(avgs, len(fSel)-1-nFact)
				ea.scale, ea.n = scale, len(fSel)
				fSel = append(fSel, aggregation.NewCount(agg.Children()[0]))
			}
		}
		ej.out = append(ej.out, len(ej.aggs))
		ej.aggs = append(ej.aggs, ea)
	}
	fact := newAggregateScan(plan.NewGroupBy(fSel, fGroup, f.node))
	if fact == nil || len(fact.out) != len(fSel) {
		return nil
	}
	// AVG's partial is its sum (and a COUNT): so computed, and so shown.
	shown := append([]sql.Expression{}, fSel...)
	for _, i := range avgs {
		fact.aggs[i].kind = aggSum
		if a, ok := fact.aggs[i].expr.(sql.Aggregation); ok && len(a.Children()) == 1 {
			shown[nFact+i] = aggregation.NewSum(a.Children()[0])
		}
	}
	fact.gb = plan.NewGroupBy(shown, fGroup, f.node)
	// The kinds of the final aggregates: the partials' (AVG's is a sum).
	for i := range ej.aggs {
		a := &ej.aggs[i]
		a.kind = fact.aggs[a.p-nFact].kind
		if a.n > 0 {
			a.kind = aggAvg
		}
		if a.kind == aggAvg && a.n == 0 {
			return nil // an AVG that is not lakesql's exact one
		}
	}
	dSel = append(dSel, aggregation.NewCount(expression.NewLiteral(int64(1), nil)))
	dim := newAggregateScan(plan.NewGroupBy(dSel, dGroup, d.node))
	if dim == nil {
		return nil
	}
	ej.fact, ej.dim = fact, dim
	return ej
}

// joinableTypes: the join columns' values are equal exactly when their
// keys (eagerKey) are: integers of any width, or the same type.
func joinableTypes(a, b *schema.DataType) bool {
	if !indexKeyType(a) || !indexKeyType(b) {
		return false
	}
	isInt := func(t *schema.DataType) bool {
		switch t.Root {
		case schema.TypeTinyInt, schema.TypeSmallInt, schema.TypeInt, schema.TypeBigInt:
			return true
		}
		return false
	}
	if isInt(a) && isInt(b) {
		return true
	}
	if a.Root != b.Root {
		return false
	}
	switch a.Root {
	case schema.TypeDecimal:
		return a.Scale == b.Scale
	case schema.TypeTimestamp, schema.TypeLocalZonedTimestamp:
		return a.Precision == b.Precision
	}
	return true
}

// ProjectedExprs implements sql.Projector: the GroupBy's.
func (ej *EagerAggregateJoin) ProjectedExprs() []sql.Expression { return ej.gb.SelectedExprs }

// Resolved implements sql.Node.
func (ej *EagerAggregateJoin) Resolved() bool { return ej.gb.Resolved() }

// IsReadOnly implements sql.Node.
func (ej *EagerAggregateJoin) IsReadOnly() bool { return true }

// Schema implements sql.Node: the GroupBy's.
func (ej *EagerAggregateJoin) Schema() sql.Schema { return ej.gb.Schema() }

// Children implements sql.Node: the original GroupBy.
func (ej *EagerAggregateJoin) Children() []sql.Node { return []sql.Node{ej.gb} }

// WithChildren implements sql.Node.
func (ej *EagerAggregateJoin) WithChildren(children ...sql.Node) (sql.Node, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(ej, len(children), 1)
	}
	gb, ok := children[0].(*plan.GroupBy)
	if !ok {
		return nil, fmt.Errorf("EagerAggregateJoin: child %T is not a GroupBy", children[0])
	}
	out := *ej
	out.gb = gb
	return &out, nil
}

// CollationCoercibility implements sql.CollationCoercible.
func (ej *EagerAggregateJoin) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return ej.gb.CollationCoercibility(ctx)
}

// String implements sql.Node (EXPLAIN): the final aggregate, the join and
// its two aggregated inputs.
func (ej *EagerAggregateJoin) String() string {
	pr := sql.NewTreePrinter()
	_ = pr.WriteNode("EagerAggregateJoin")
	var sel, grp []string
	for _, e := range ej.gb.SelectedExprs {
		sel = append(sel, e.String())
	}
	for _, e := range ej.gb.GroupByExprs {
		grp = append(grp, e.String())
	}
	_ = pr.WriteChildren(fmt.Sprintf("SelectedExprs(%s)", strings.Join(sel, ", ")), fmt.Sprintf("Grouping(%s)", strings.Join(grp, ", ")),
		"join: "+ej.joinSQL+" (at most one row of "+ej.dim.qual+" per key: its primary key)",
		ej.fact.String(), ej.dim.String())
	return pr.String()
}

var installEagerVar sync.Once

// InstallEagerAggregationVariable registers lakesql_eager_aggregation
// (session and global, default ON).
func InstallEagerAggregationVariable() {
	installEagerVar.Do(func() {
		sql.SystemVariables.AddSystemVariables([]sql.SystemVariable{switchVariable(EagerAggregationVar)})
	})
}
