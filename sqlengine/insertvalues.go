package sqlengine

import (
	"fmt"
	"io"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/lakesql/lakesql/provider"
	"github.com/lakesql/lakesql/sqlengine/builtins"
)

// INSERT [IGNORE] / REPLACE INTO a Paimon table … VALUES of literals runs
// as lakesql's own plan node: each tuple's values go to a
// provider.Loader (typed Paimon values; the INSERT path's checks only for
// values that need them) instead of GMS's per-row INSERT path
// (projection, strict check, conversion, row editor). GMS keeps parsing,
// privilege checks and the statement's transaction, as for LOAD DATA
// (loadinto.go); a failing statement discards its rows.
//
// GMS's path keeps everything else: values that are not literals (an
// expression, a function, a subquery, a placeholder), INSERT … SELECT,
// ON DUPLICATE KEY UPDATE, RETURNING, INSERT IGNORE into a primary-key
// table (it looks keys up), tables with generated, AUTO_INCREMENT or
// expression-default columns, CHECK constraints or triggers, non-Paimon
// tables, and every INSERT with SET lakesql_insert_direct = 0.

// InsertValuesRuleID identifies insertValuesRule.
const InsertValuesRuleID analyzer.RuleId = 1092

var installInsertValues sync.Once

// installInsertValuesRule adds insertValuesRule to GMS's after-all rules
// (after the strict rule, which every INSERT analysis runs).
func installInsertValuesRule() {
	installInsertValues.Do(func() {
		analyzer.OnceAfterAll = append(analyzer.OnceAfterAll, analyzer.Rule{Id: InsertValuesRuleID, Apply: insertValuesRule})
	})
}

// insertValuesRule replaces an INSERT of literal VALUES into a Paimon
// table by an insertValues node when the node handles it.
//
// A statement the splice front shortened to its first tuple
// (insert_splice.go) is taken with the front's values, or refused: GMS's
// path would insert the one tuple it planned.
func insertValuesRule(ctx *sql.Context, a *analyzer.Analyzer, node sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qf *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	sp := splicedOf(ctx)
	if !provider.InsertDirect(ctx) {
		if sp != nil {
			sp.declined = true
			return node, transform.SameTree, errSpliceDeclined
		}
		return node, transform.SameTree, nil
	}
	taken := false
	out, same, err := transform.Node(node, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		if iv, ok := n.(*insertValues); ok {
			taken = taken || iv.spliced != nil
			return n, transform.SameTree, nil
		}
		ii, ok := n.(*plan.InsertInto)
		if !ok {
			return n, transform.SameTree, nil
		}
		iv := newInsertValues(ii)
		if iv == nil {
			return n, transform.SameTree, nil
		}
		if sp != nil {
			if len(iv.values.ExpressionTuples) != 1 || len(iv.values.Schema()) != sp.width {
				return n, transform.SameTree, nil
			}
			iv.spliced = sp.splicedValues
			taken = true
		}
		return iv, transform.NewTree, nil
	})
	if err == nil && sp != nil {
		if !taken {
			sp.declined = true
			return node, transform.SameTree, errSpliceDeclined
		}
		sp.taken = true
	}
	return out, same, err
}

// insertValues is INSERT … VALUES of literals into a Paimon table, run by
// lakesql.
type insertValues struct {
	ii     *plan.InsertInto
	values *plan.Values
	// cols says where each table column's value comes from: field ≥ 0 is
	// the tuple's value at that position, else expr (a literal or a
	// literal default) gives it.
	cols []valuesCol
	// spliced, when set, holds the statement's tuples (the splice
	// front's values) in place of values' one tuple.
	spliced *splicedValues
}

type valuesCol struct {
	field int
	expr  sql.Expression
}

// newInsertValues is the node running ii, or nil when GMS's path keeps it.
func newInsertValues(ii *plan.InsertInto) *insertValues {
	if ii.Ignore && ii.IsReplace || len(ii.OnDupExprs) > 0 || len(ii.Returning) > 0 || len(ii.Checks()) > 0 {
		return nil
	}
	t, err := plan.GetInsertable(ii.Destination)
	if err != nil || !provider.LoadableTable(t) {
		return nil
	}
	if ii.Ignore && provider.HasPrimaryKey(t) {
		return nil // INSERT IGNORE looks keys up (markLookupInsert)
	}
	dst := ii.Destination.Schema()
	var (
		vals  *plan.Values
		projs []sql.Expression
	)
	switch src := ii.Source.(type) {
	case *plan.Project:
		v, ok := src.Child.(*plan.Values)
		if !ok || len(src.Projections) != len(dst) {
			return nil
		}
		vals, projs = v, src.Projections
	case *plan.Values:
		vals = src
	default:
		return nil
	}
	width := len(vals.Schema())
	n := &insertValues{ii: ii, values: vals, cols: make([]valuesCol, len(dst))}
	for i := range dst {
		if projs == nil {
			if width != len(dst) {
				return nil
			}
			n.cols[i] = valuesCol{field: i}
			continue
		}
		e := unwrapStrict(projs[i])
		if gf, ok := e.(*expression.GetField); ok {
			if gf.Index() < 0 || gf.Index() >= width {
				return nil
			}
			n.cols[i] = valuesCol{field: gf.Index()}
			continue
		}
		if e == nil || !literalExpr(e) {
			return nil
		}
		n.cols[i] = valuesCol{field: -1, expr: e}
	}
	for _, tuple := range vals.ExpressionTuples {
		if len(tuple) != width {
			return nil
		}
		for _, e := range tuple {
			if !literalExpr(e) {
				return nil
			}
		}
	}
	return n
}

// unwrapStrict is e without the strict rule's check around it (the
// Loader makes the same check).
func unwrapStrict(e sql.Expression) sql.Expression {
	if provider.IsStrictCheck(e) {
		return e.Children()[0]
	}
	return e
}

// literalExpr: e's value depends on nothing — a literal, a negated
// literal, a literal column default.
func literalExpr(e sql.Expression) bool {
	switch e := e.(type) {
	case *expression.Literal:
		return true
	case *expression.UnaryMinus:
		return literalExpr(e.Child)
	case *sql.ColumnDefaultValue:
		// nil: a column without a default (NULL).
		return e == nil || e.IsLiteral() && literalExpr(e.Expr)
	case *expression.Wrapper: // DEFAULT in a tuple
		return literalExpr(e.Unwrap())
	}
	if x, ok := builtins.NegatedOperand(e); ok {
		return literalExpr(x)
	}
	return false
}

var _ sql.Node = (*insertValues)(nil)

func (n *insertValues) Resolved() bool       { return true }
func (n *insertValues) IsReadOnly() bool     { return false }
func (n *insertValues) Schema() sql.Schema   { return types.OkResultSchema }
func (n *insertValues) Children() []sql.Node { return nil }
func (n *insertValues) String() string {
	rows := len(n.values.ExpressionTuples)
	if n.spliced != nil {
		rows = n.spliced.rows()
	}
	return fmt.Sprintf("Insert(lakesql) INTO %s (%d rows)", n.ii.Destination.String(), rows)
}

func (n *insertValues) WithChildren(children ...sql.Node) (sql.Node, error) {
	if len(children) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(n, len(children), 0)
	}
	return n, nil
}

// insertValuesIter runs the INSERT on its first Next and returns the OK
// result.
type insertValuesIter struct {
	n    *insertValues
	done bool
}

func (it *insertValuesIter) Close(*sql.Context) error { return nil }

func (it *insertValuesIter) Next(ctx *sql.Context) (sql.Row, error) {
	if it.done {
		return nil, io.EOF
	}
	it.done = true
	affected, err := it.insert(ctx)
	if err != nil {
		return nil, err
	}
	res := types.OkResult{RowsAffected: uint64(affected)}
	if it.n.ii.IsReplace {
		// As GMS's REPLACE accumulator: the session's last insert id.
		res.InsertID = uint64(ctx.Session.GetLastQueryInfoInt(sql.LastInsertId))
	}
	ctx.SetLastQueryInfoInt(sql.RowCount, affected)
	return sql.NewRow(res), nil
}

// insert converts every tuple into the loader; the statement's rows are
// discarded when it fails.
func (it *insertValuesIter) insert(ctx *sql.Context) (affected int64, err error) {
	dest, err := plan.GetInsertable(it.n.ii.Destination)
	if err != nil {
		return 0, err
	}
	l, err := provider.NewLoader(ctx, dest, nil, it.n.ii.IsReplace, it.n.ii.Ignore, it.n.ii.DeferredDefaults.Contains)
	if err != nil {
		return 0, err
	}
	defer func() {
		if err != nil {
			l.Discard(ctx)
		}
	}()
	width := len(it.n.values.Schema())
	vals := make(sql.Row, width)
	row := make(sql.Row, len(it.n.cols))
	tuples := len(it.n.values.ExpressionTuples)
	if it.n.spliced != nil {
		tuples = it.n.spliced.rows()
	}
	for k := range tuples {
		if k&255 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		if sp := it.n.spliced; sp != nil {
			copy(vals, sp.values[k*width:(k+1)*width])
		} else {
			for j, e := range it.n.values.ExpressionTuples[k] {
				v, err := e.Eval(ctx, nil)
				if err != nil {
					return 0, err
				}
				vals[j] = v
			}
		}
		for i, c := range it.n.cols {
			if c.field >= 0 {
				row[i] = vals[c.field]
				continue
			}
			v, err := c.expr.Eval(ctx, vals)
			if err != nil {
				return 0, err
			}
			row[i] = v
		}
		if err := l.ValuesRow(ctx, row); err != nil {
			return 0, err
		}
	}
	if err := l.Done(ctx); err != nil {
		return 0, err
	}
	return l.Rows() - l.Skipped(), nil
}
