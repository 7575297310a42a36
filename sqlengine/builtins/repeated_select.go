package builtins

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// GMS v0.20.0's planbuilder refuses a select list that repeats a function
// call without an alias, as BI tools write it (SELECT u.region,
// SUM(o.amount), SUM(o.amount) … GROUP BY u.region): the first SUM(o.amount)
// becomes an alias named by its text, the second resolves to a reference to
// the same aggregate, a column without a table named sum(o.amount), and
// analyzeSelectList takes that reference for a use of the alias defined in
// the same projection (planbuilder/project.go, ErrMisusedAlias: error 1105
// "column … does not exist in scope, but there is an alias defined in this
// projection with that name"). MySQL answers the query.
//
// An alias on the repetition (SUM(o.amount) AS s2) fails the same way.
// Parser wraps every repetition after the first in repeatedSelectFn: the
// planbuilder then sees a function over the reference, not the reference
// itself, and the rule unwraps it before anything else looks at the plan.
// The column keeps its name (the query text).

// repeatedSelectFn is the wrapper's function name (not callable by users:
// the rule removes it, and a name with a space cannot be written in SQL).
const repeatedSelectFn = "lakesql repeated select expression"

// protectRepeatedSelect wraps the repeated function calls of s's select
// list (an alias on the repetition fails the same way: it is an alias over
// the reference).
func protectRepeatedSelect(s *ast.Select) {
	seen := map[string]bool{}
	for _, se := range s.SelectExprs {
		ae, ok := se.(*ast.AliasedExpr)
		if !ok {
			continue
		}
		switch ae.Expr.(type) {
		case *ast.FuncExpr, *ast.GroupConcatExpr:
		default:
			continue
		}
		key := strings.ToLower(ast.String(ae.Expr))
		if seen[key] {
			ae.Expr = &ast.FuncExpr{Name: ast.NewColIdent(repeatedSelectFn), Exprs: ast.SelectExprs{&ast.AliasedExpr{Expr: ae.Expr}}}
		}
		seen[key] = true
	}
}

// repeatedSelect is the planbuilder's view of a wrapped repetition: the
// expression itself in all but its place in the tree.
type repeatedSelect struct{ e sql.Expression }

func (r *repeatedSelect) Resolved() bool                                  { return r.e.Resolved() }
func (r *repeatedSelect) String() string                                  { return r.e.String() }
func (r *repeatedSelect) Type() sql.Type                                  { return r.e.Type() }
func (r *repeatedSelect) IsNullable() bool                                { return r.e.IsNullable() }
func (r *repeatedSelect) Eval(ctx *sql.Context, row sql.Row) (any, error) { return r.e.Eval(ctx, row) }
func (r *repeatedSelect) Children() []sql.Expression                      { return []sql.Expression{r.e} }
func (r *repeatedSelect) FunctionName() string                            { return repeatedSelectFn }
func (r *repeatedSelect) Description() string                             { return "a repeated select expression (lakesql)" }

func (r *repeatedSelect) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(r, len(children), 1)
	}
	return &repeatedSelect{e: children[0]}, nil
}

var repeatedSelectFunction = sql.Function1{Name: repeatedSelectFn, Fn: func(e sql.Expression) sql.Expression {
	return &repeatedSelect{e: e}
}}
