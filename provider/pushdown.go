package provider

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/lsmread"
)

// PushdownRuleID identifies the filter pushdown analyzer rule.
const PushdownRuleID analyzer.RuleId = 1000

// PushdownRule is a post-analysis rule that hands the conjuncts of a Filter
// sitting on a lakesql table to the table's scan, for partition, manifest,
// file, bucket and row-group pruning and row filtering. GMS v0.20.0 never
// calls sql.FilteredTable.WithFilters itself. The Filter stays in the plan,
// so pushdown only has to be conservative, never exact.
func PushdownRule(ctx *sql.Context, a *analyzer.Analyzer, node sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qf *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(node, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		f, ok := n.(*plan.Filter)
		if !ok {
			return n, transform.SameTree, nil
		}
		var rt *plan.ResolvedTable
		var alias *plan.TableAlias
		switch c := f.Child.(type) {
		case *plan.ResolvedTable:
			rt = c
		case *plan.TableAlias:
			alias = c
			rt, _ = c.Child.(*plan.ResolvedTable)
		}
		if rt == nil {
			return n, transform.SameTree, nil
		}
		t, ok := rt.UnderlyingTable().(*Table)
		if !ok || t.filter != nil {
			return n, transform.SameTree, nil
		}
		qual := rt.Name()
		if alias != nil {
			qual = alias.Name()
		}
		pushed := t.withPushedFilters(expression.SplitConjunction(f.Expression), qual)
		if pushed == t {
			return n, transform.SameTree, nil
		}
		newRT, err := rt.WithTable(pushed)
		if err != nil {
			return nil, transform.SameTree, err
		}
		var child sql.Node = newRT.(sql.Node)
		if alias != nil {
			if child, err = alias.WithChildren(child); err != nil {
				return nil, transform.SameTree, err
			}
		}
		nf, err := f.WithChildren(child)
		if err != nil {
			return nil, transform.SameTree, err
		}
		return nf, transform.NewTree, nil
	})
}

// withPushedFilters returns a copy of t scanning with the convertible
// filters, or t itself when none converts. Only filters whose columns all
// belong to the table (as qual names it, its alias or its name) are pushed:
// a correlated subquery's filter on b can compare a column of the outer
// table that has the name of one of b's.
func (t *Table) withPushedFilters(filters []sql.Expression, qual string) *Table {
	var and lsmread.And
	var exprs []sql.Expression
	for _, e := range filters {
		if refsOther(e, qual) {
			continue
		}
		if p, ok := t.toPredicate(e); ok {
			and = append(and, p)
			exprs = append(exprs, e)
		}
	}
	if len(and) == 0 {
		return t
	}
	c := t.copy()
	c.filter, c.filterExprs = and, exprs
	return c
}

// refsOther reports whether e reads a column of another table than qual.
func refsOther(e sql.Expression, qual string) bool {
	return transform.InspectExpr(e, func(e sql.Expression) bool {
		gf, ok := e.(*expression.GetField)
		return ok && gf.Table() != "" && !equalFold(gf.Table(), qual)
	})
}

func (t *Table) toPredicate(e sql.Expression) (lsmread.Predicate, bool) {
	switch e := e.(type) {
	case *expression.And:
		l, ok1 := t.toPredicate(e.LeftChild)
		r, ok2 := t.toPredicate(e.RightChild)
		if !ok1 || !ok2 {
			return nil, false
		}
		return lsmread.And{l, r}, true
	case *expression.Or:
		l, ok1 := t.toPredicate(e.LeftChild)
		r, ok2 := t.toPredicate(e.RightChild)
		if !ok1 || !ok2 {
			return nil, false
		}
		return lsmread.Or{l, r}, true
	case *expression.IsNull:
		if idx, ok := t.column(e.Child); ok {
			return t.leaf(idx, lsmread.OpIsNull), true
		}
	case *expression.Not:
		if in, ok := e.Child.(*expression.IsNull); ok {
			if idx, ok := t.column(in.Child); ok {
				return t.leaf(idx, lsmread.OpIsNotNull), true
			}
		}
		if eq, ok := e.Child.(*expression.Equals); ok {
			if p, ok := t.comparison(eq.Left(), eq.Right(), lsmread.OpNotEq); ok {
				return p, true
			}
		}
	case *expression.InTuple, *bigIn:
		var left, right sql.Expression
		if b, ok := e.(*bigIn); ok {
			left, right = b.left, b.right
		} else {
			left, right = e.(*expression.InTuple).Left(), e.(*expression.InTuple).Right()
		}
		idx, ok := t.column(left)
		tup, ok2 := right.(expression.Tuple)
		if !ok || !ok2 {
			return nil, false
		}
		lits := make([]any, 0, len(tup))
		for _, x := range tup {
			v, ok := t.literal(idx, x)
			if !ok {
				return nil, false
			}
			lits = append(lits, v)
		}
		f := t.sch.Fields[idx]
		return lsmread.NewInLeaf(idx, f.Name, f.Type, lsmread.OpIn, lits), true
	case *expression.Between:
		// x BETWEEN a AND b is x >= a AND x <= b (NULL bounds make it
		// NULL or false, as the leaves do).
		lo, ok1 := t.comparison(e.Val, e.Lower, lsmread.OpGtEq)
		hi, ok2 := t.comparison(e.Val, e.Upper, lsmread.OpLtEq)
		if !ok1 || !ok2 {
			return nil, false
		}
		return lsmread.And{lo, hi}, true
	case *expression.Equals:
		return t.comparison(e.Left(), e.Right(), lsmread.OpEq)
	case *expression.LessThan:
		return t.comparison(e.Left(), e.Right(), lsmread.OpLt)
	case *expression.LessThanOrEqual:
		return t.comparison(e.Left(), e.Right(), lsmread.OpLtEq)
	case *expression.GreaterThan:
		return t.comparison(e.Left(), e.Right(), lsmread.OpGt)
	case *expression.GreaterThanOrEqual:
		return t.comparison(e.Left(), e.Right(), lsmread.OpGtEq)
	}
	return nil, false
}

var flipped = map[lsmread.Op]lsmread.Op{
	lsmread.OpEq: lsmread.OpEq, lsmread.OpNotEq: lsmread.OpNotEq,
	lsmread.OpLt: lsmread.OpGt, lsmread.OpLtEq: lsmread.OpGtEq,
	lsmread.OpGt: lsmread.OpLt, lsmread.OpGtEq: lsmread.OpLtEq,
}

func (t *Table) comparison(l, r sql.Expression, op lsmread.Op) (lsmread.Predicate, bool) {
	if idx, ok := t.column(l); ok {
		if v, ok := t.literal(idx, r); ok {
			p := t.leaf(idx, op)
			p.Literals = []any{v}
			return p, true
		}
	}
	if idx, ok := t.column(r); ok {
		if v, ok := t.literal(idx, l); ok {
			p := t.leaf(idx, flipped[op])
			p.Literals = []any{v}
			return p, true
		}
	}
	return nil, false
}

func (t *Table) leaf(idx int, op lsmread.Op) lsmread.Leaf {
	f := t.sch.Fields[idx]
	return lsmread.Leaf{Field: idx, Name: f.Name, Type: f.Type, Op: op}
}

func (t *Table) column(e sql.Expression) (int, bool) {
	gf, ok := e.(*expression.GetField)
	if !ok {
		return 0, false
	}
	for i, f := range t.sch.Fields {
		if equalFold(f.Name, gf.Name()) {
			return i, true
		}
	}
	return 0, false
}

func (t *Table) literal(idx int, e sql.Expression) (any, bool) {
	lit, ok := e.(*expression.Literal)
	if !ok || lit.Value() == nil {
		return nil, false
	}
	return pushableValue(&t.sch.Fields[idx].Type, lit.Value())
}

// pushableValue converts a SQL literal to the column's value model when the
// comparison means the same in Paimon's order as in MySQL's; otherwise it
// reports false and the filter is only evaluated by GMS.
func pushableValue(t *schema.DataType, v any) (any, bool) {
	switch t.Root {
	case schema.TypeTinyInt, schema.TypeSmallInt, schema.TypeInt, schema.TypeBigInt:
		i, ok := exactInt(v)
		if !ok {
			return nil, false
		}
		switch t.Root {
		case schema.TypeTinyInt:
			if i < math.MinInt8 || i > math.MaxInt8 {
				return nil, false
			}
			return int8(i), true
		case schema.TypeSmallInt:
			if i < math.MinInt16 || i > math.MaxInt16 {
				return nil, false
			}
			return int16(i), true
		case schema.TypeInt:
			if i < math.MinInt32 || i > math.MaxInt32 {
				return nil, false
			}
			return int32(i), true
		}
		return i, true
	case schema.TypeDouble:
		// Paimon orders -0.0 below 0.0 (Java's Double.compare), MySQL has
		// them equal: a zero is never pushed. A DECIMAL compares with a
		// DOUBLE as a DECIMAL: only one the double holds exactly is pushed.
		var f float64
		switch x := v.(type) {
		case float64:
			f = x
		case decimal.Decimal:
			f, _ = x.Float64()
			if !decimal.NewFromFloat(f).Equal(x) {
				return nil, false
			}
		default:
			i, ok := exactInt(v)
			if !ok || i <= -1<<53 || i >= 1<<53 {
				return nil, false
			}
			f = float64(i)
		}
		if f == 0 || math.IsNaN(f) {
			return nil, false
		}
		return f, true
	case schema.TypeDecimal:
		var d decimal.Decimal
		switch x := v.(type) {
		case decimal.Decimal:
			d = x
		default:
			i, ok := exactInt(v)
			if !ok {
				return nil, false
			}
			d = decimal.NewFromInt(i)
		}
		if -d.Exponent() > int32(t.Scale) {
			return nil, false
		}
		out, err := schema.DecimalFromString(d.String(), t.Precision, t.Scale)
		if err != nil {
			return nil, false
		}
		return out, true
	case schema.TypeVarChar:
		if s, ok := v.(string); ok {
			return s, true
		}
	case schema.TypeDate:
		if tm, ok := v.(time.Time); ok {
			tm = tm.UTC()
			if tm.Hour() == 0 && tm.Minute() == 0 && tm.Second() == 0 && tm.Nanosecond() == 0 {
				return schema.Date(tm.Unix() / 86400), true
			}
		}
	case schema.TypeTimestamp, schema.TypeLocalZonedTimestamp:
		// GMS sees values finer than microseconds truncated.
		if tm, ok := v.(time.Time); ok && t.Precision <= 6 {
			return schema.TimestampFromTime(tm.UTC()), true
		}
	}
	return nil, false
}

func exactInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case int:
		return int64(x), true
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x), true
		}
	case decimal.Decimal:
		if x.IsInteger() && x.GreaterThanOrEqual(decimal.NewFromInt(math.MinInt64)) && x.LessThanOrEqual(decimal.NewFromInt(math.MaxInt64)) {
			return x.IntPart(), true
		}
	}
	return 0, false
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// pruneNoteText is a note shown among a table's filters in EXPLAIN.
func pruneNoteText(s string) sql.Expression { return expression.NewLiteral(s, types.LongText) }

// pruneNote prints what planning pruned, in EXPLAIN output.
func pruneNote(s lsmread.PlanStats) sql.Expression {
	return expression.NewLiteral(fmt.Sprintf("pruned: files %d of %d, manifests %d of %d, buckets %d; splits %d",
		s.FilesPruned, s.FilesTotal, s.ManifestsPruned, s.ManifestsTotal, s.BucketsPruned, s.Splits), types.LongText)
}

// runsNote prints how many sorted runs the buckets of a table that merges
// on read hold, and how many of them the read merges (and how many of those
// over column batches), in EXPLAIN output (nil when the table does not
// merge: append tables, deletion vectors, first-row, read-optimized reads).
func runsNote(s lsmread.PlanStats) sql.Expression {
	if s.MergedBuckets+s.RawBuckets == 0 {
		return nil
	}
	cols := ""
	switch {
	case s.ColumnMergedBuckets > 0 && s.ColumnMergedBuckets == s.MergedBuckets:
		cols = " by columns"
	case s.ColumnMergedBuckets > 0:
		cols = fmt.Sprintf(", %d of them by columns", s.ColumnMergedBuckets)
	}
	raw := ""
	if s.RawBuckets > 0 {
		raw = fmt.Sprintf(", %d read without merging", s.RawBuckets)
	}
	return expression.NewLiteral(fmt.Sprintf("runs per bucket: max %d, avg %.1f (%d buckets merged%s%s)",
		s.RunsMax, s.RunsAvg(), s.MergedBuckets, cols, raw), types.LongText)
}

// PushdownDMLRuleID identifies PushdownRule in GMS's OnceAfterAll batch.
const PushdownDMLRuleID analyzer.RuleId = 1006

var installPushdownDML sync.Once

// InstallPushdownDMLRule adds PushdownRule to GMS's OnceAfterAll rules for
// single-table UPDATE and DELETE: GMS v0.20.0 analyzes those with a fixed
// batch list (analyzer.getBatchesForNode) that skips the post-analysis
// rules, so their WHERE never reached the scan and an UPDATE of 1% of the
// rows read and filtered every row in GMS. Other statements already had
// the rule applied (the table then holds its filter, and the rule keeps
// the tree).
func InstallPushdownDMLRule() {
	installPushdownDML.Do(func() {
		analyzer.OnceAfterAll = append(analyzer.OnceAfterAll, analyzer.Rule{Id: PushdownDMLRuleID, Apply: pushdownDML})
	})
}

func pushdownDML(ctx *sql.Context, a *analyzer.Analyzer, node sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qf *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	switch node.(type) {
	case *plan.Update, *plan.DeleteFrom:
		return PushdownRule(ctx, a, node, scope, sel, qf)
	}
	return node, transform.SameTree, nil
}
