package builtins

import (
	"reflect"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// SetOpTypesRuleID identifies SetOpTypesRule.
const SetOpTypesRuleID analyzer.RuleId = 1006

// SetOpTypesRule gives the columns read from a UNION (in a derived table, a
// CTE, a MERGE source) the UNION's own column types. GMS's planbuilder
// converts both sides of a UNION to a common type (BIGINT for two integer
// literals of different widths) but types the columns it hands to the
// enclosing query by the left side alone, so in
// `SELECT * FROM (SELECT 100 AS k UNION ALL SELECT 1000) s` the outer k is a
// TINYINT and 1000 came out as 127, clamped (also written by MERGE and
// INSERT … SELECT). A column reference whose type differs from the type its
// child produces at that position, under the same name, takes the child's
// type when either is numeric (found by name and table: at this stage a
// field's index is not yet its position).
func SetOpTypesRule(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qf *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if !hasSetOp(n) {
		return n, transform.SameTree, nil
	}
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		children := n.Children()
		if len(children) != 1 {
			return n, transform.SameTree, nil
		}
		if _, ok := n.(sql.Expressioner); !ok {
			return n, transform.SameTree, nil
		}
		sch := children[0].Schema()
		return transform.OneNodeExpressions(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
			return transform.Expr(e, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
				gf, ok := e.(*expression.GetField)
				if !ok {
					return e, transform.SameTree, nil
				}
				// The child's column of that name and table: at this
				// stage a field's index is not yet its position.
				var col *sql.Column
				for _, c := range sch {
					if strings.EqualFold(c.Name, gf.Name()) && strings.EqualFold(c.Source, gf.Table()) {
						if col != nil {
							return e, transform.SameTree, nil // ambiguous
						}
						col = c
					}
				}
				if col == nil {
					return e, transform.SameTree, nil
				}
				want := col.Type
				if reflect.DeepEqual(gf.Type(), want) || !(types.IsNumber(gf.Type()) || types.IsNumber(want)) {
					return e, transform.SameTree, nil
				}
				ng := expression.NewGetFieldWithTable(gf.Index(), int(gf.TableId()), want, gf.Database(), gf.Table(), gf.Name(), gf.IsNullable())
				return ng.WithId(gf.Id()).(sql.Expression), transform.NewTree, nil
			})
		})
	})
}

// hasSetOp reports whether n holds a UNION, INTERSECT or EXCEPT anywhere.
func hasSetOp(n sql.Node) bool {
	found := false
	transform.Inspect(n, func(n sql.Node) bool {
		if _, ok := n.(*plan.SetOp); ok {
			found = true
		}
		return !found
	})
	return found
}
