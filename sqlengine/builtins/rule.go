package builtins

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// RuleID identifies the expression rewrite rule (provider's rules use 1000).
const RuleID analyzer.RuleId = 1001

// Install adds lakesql's built-ins to b: the expression rule runs first in
// the pre-analyzer batch, and the functions are offered through
// analyzer.ExternalFunctionProvider, which GMS's catalog asks before its
// own registry (a process-wide hook; lakesql has one function set).
func Install(b *analyzer.Builder) *analyzer.Builder {
	analyzer.ExternalFunctionProvider = Functions
	return b.AddPreAnalyzeRule(RuleID, Rule)
}

// Functions is the function provider of the replaced built-ins.
var Functions = func() function.Registry {
	r := function.Registry{}
	for _, f := range append(append([]sql.Function{exactLiteralFunction, castOperandFunction, repeatedSelectFunction}, functions...), append(aggFunctions, choiceFunctions...)...) {
		r[f.FunctionName()] = f
	}
	return r
}()

// Rule swaps GMS expression nodes that give non-MySQL answers for lakesql's,
// in every node and subquery of the plan. It is idempotent: the new nodes
// are of lakesql's types, which it never rewrites again.
func Rule(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qFlags *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	n, same, err := rewriteNode(n)
	if err != nil {
		return n, same, err
	}
	n, same2, err := retypeAggregates(n)
	return n, same && same2, err
}

// retypeAggregates gives the columns that carry a SUM or AVG result the
// aggregate's type: GMS's planbuilder types them DOUBLE whatever the
// aggregate says (planbuilder/aggregates.go buildAggregateFunc).
func retypeAggregates(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
	typed := map[sql.ColumnId]*sumAvg{}
	transform.InspectExpressions(n, func(e sql.Expression) bool {
		if s, ok := e.(*sumAvg); ok && s.Window() == nil {
			typed[s.Id()] = s
		}
		return true
	})
	if len(typed) == 0 {
		return n, transform.SameTree, nil
	}
	// An alias of the aggregate (SUM(x) AS s … ORDER BY s) is typed DOUBLE
	// too: its columns take the aggregate's type, so that ORDER BY s
	// compares decimals, not their conversions to DOUBLE.
	aliased := map[sql.ColumnId]*sumAvg{}
	transform.InspectExpressions(n, func(e sql.Expression) bool {
		a, ok := e.(*expression.Alias)
		if !ok {
			return true
		}
		switch c := a.Child.(type) {
		case *sumAvg:
			if s := typed[c.Id()]; s != nil {
				aliased[a.Id()] = s
			}
		case *expression.GetField:
			if s := typed[c.Id()]; s != nil && strings.EqualFold(c.Name(), plan.AliasSubqueryString(s)) {
				aliased[a.Id()] = s
			}
		}
		return true
	})
	return transform.NodeExprsWithOpaque(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		return transform.Expr(e, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
			gf, ok := e.(*expression.GetField)
			if !ok {
				return e, transform.SameTree, nil
			}
			s, ok := typed[gf.Id()]
			if ok && !strings.EqualFold(gf.Name(), plan.AliasSubqueryString(s)) {
				ok = false
			}
			if !ok {
				s, ok = aliased[gf.Id()]
			}
			if !ok || types.TypesEqual(gf.Type(), s.Type()) {
				return e, transform.SameTree, nil
			}
			ngf := expression.NewGetFieldWithTable(gf.Index(), int(gf.TableId()), s.Type(), gf.Database(), gf.Table(), gf.Name(), true)
			return ngf.WithId(gf.Id()).(*expression.GetField), transform.NewTree, nil
		})
	})
}

func rewriteNode(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprsWithOpaque(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		return transform.Expr(e, rewriteExpr)
	})
}

// rewriteExpr replaces one node; transform.Expr has already rewritten its
// children.
func rewriteExpr(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
	n, same, err := rewriteOne(e)
	if err != nil {
		return n, same, err
	}
	if m, changed := markExact(n); changed {
		return m, transform.NewTree, nil
	}
	return n, same, nil
}

func rewriteOne(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
	switch x := e.(type) {
	case *exactLiteral:
		return unwrapExact(x)
	case *castOperand:
		return x.e, transform.NewTree, nil
	case *repeatedSelect:
		return x.e, transform.NewTree, nil
	case *expression.Like:
		// GMS's simplifyFilters turns a LIKE without wildcards into =
		// without removing its escapes ('a\_b' then matches nothing); it
		// leaves a LIKE with an explicit ESCAPE alone.
		if lit, ok := x.RightChild.(*expression.Literal); ok && x.Escape == nil {
			if s, ok := lit.Value().(string); ok && strings.Contains(s, `\`) {
				return expression.NewLike(x.LeftChild, x.RightChild, expression.NewLiteral(`\`, types.LongText)), transform.NewTree, nil
			}
		}
	case *scalar:
		// ROUND picks DOUBLE or exact rounding when the planbuilder builds
		// it, from GMS's type of its argument; an argument this rule
		// retyped (x % 7 of a DOUBLE is DOUBLE, GMS said DECIMAL) picks again.
		if x.name == "round" && len(x.args) > 0 {
			c := classOf(x.args[0].Type())
			if float := c == clsFloat || c == clsString; float == x.exact && (float || c == clsDec || c == clsInt) {
				r, err := newRound(x.args...)
				if err != nil {
					return e, transform.SameTree, err
				}
				return r, transform.NewTree, nil
			}
		}
	case *expression.Case:
		return rewriteCase(x)
	case *plan.Subquery:
		q, same, err := rewriteNode(x.Query)
		if err != nil || same {
			return e, transform.SameTree, err
		}
		return x.WithQuery(q), transform.NewTree, nil
	case *expression.Arithmetic:
		switch x.Op {
		case sqlparser.PlusStr, sqlparser.MinusStr, sqlparser.MultStr:
			if isInt(x.Left().Type()) && isInt(x.Right().Type()) {
				return &checkedArith{inner: x}, transform.NewTree, nil
			}
			if resultClass(x.Left().Type(), x.Right().Type()) == clsDec {
				return &decimalArith{inner: x}, transform.NewTree, nil
			}
		}
	case *expression.Div:
		if resultClass(x.Left().Type(), x.Right().Type()) != clsOther {
			return &numericDiv{inner: x}, transform.NewTree, nil
		}
	case *expression.Mod:
		if isInt(x.LeftChild.Type()) && isInt(x.RightChild.Type()) {
			return &intMod{inner: x}, transform.NewTree, nil
		}
		if resultClass(x.LeftChild.Type(), x.RightChild.Type()) != clsOther {
			return &numericMod{inner: x}, transform.NewTree, nil
		}
	case *expression.UnaryMinus:
		return newNegate(x), transform.NewTree, nil
	case *expression.IntDiv:
		if !isInt(x.Left().Type()) || !isInt(x.Right().Type()) {
			return &intDiv{inner: x}, transform.NewTree, nil
		}
	case *expression.Convert:
		if decimalType(x.Type()) != nil {
			return &castDecimal{inner: x}, transform.NewTree, nil
		}
		if isInt(x.Type()) && types.IsFloat(x.Child.Type()) {
			return &castSigned{inner: x}, transform.NewTree, nil
		}
	case *plan.InSubquery:
		if mixedInSubquery(x) {
			return &inSubquery{inner: x}, transform.NewTree, nil
		}
	case *expression.Not:
		switch c := x.Child.(type) {
		case *inSubquery:
			return &notSubquery{inner: c.inner}, transform.NewTree, nil
		case *plan.InSubquery:
			return &notSubquery{inner: c}, transform.NewTree, nil
		case *plan.ExistsSubquery:
			return &notSubquery{inner: c}, transform.NewTree, nil
		}
	case *expression.Equals:
		return rewriteCmp(e, x.Left(), x.Right(), cmpEQ)
	case *expression.NullSafeEquals:
		return rewriteCmp(e, x.Left(), x.Right(), cmpNullSafeEQ)
	case *expression.LessThan:
		return rewriteCmp(e, x.Left(), x.Right(), cmpLT)
	case *expression.LessThanOrEqual:
		return rewriteCmp(e, x.Left(), x.Right(), cmpLE)
	case *expression.GreaterThan:
		return rewriteCmp(e, x.Left(), x.Right(), cmpGT)
	case *expression.GreaterThanOrEqual:
		return rewriteCmp(e, x.Left(), x.Right(), cmpGE)
	case *expression.InTuple:
		return rewriteIn(x)
	}
	return e, transform.SameTree, nil
}

// rewriteIn gives the elements of an IN list whose comparison with the
// left side GMS gets wrong MySQL's comparison: GMS converts every element
// to the left side's type (`k IN ('5', '8x')` drops '8x', which MySQL reads
// as 8; a BIGINT key lookup with it fails with 1366). x IN (a, b, c) is
// x = a OR x = b OR x = c with SQL's NULL rules (the manual's definition),
// so the list becomes GMS's IN over the elements it compares right (keeping
// its index lookups when that is all of them) OR'ed with lakesql's
// comparisons for the others.
func rewriteIn(in *expression.InTuple) (sql.Expression, transform.TreeIdentity, error) {
	tuple, ok := in.Right().(expression.Tuple)
	if !ok || types.NumColumns(in.Left().Type()) != 1 {
		return in, transform.SameTree, nil
	}
	left := in.Left()
	var keep []sql.Expression
	var mixed []sql.Expression
	for _, el := range tuple {
		if types.NumColumns(el.Type()) != 1 {
			return in, transform.SameTree, nil
		}
		if needsMySQLCompare(left, el) {
			mixed = append(mixed, &compare{op: cmpEQ, l: left, r: el})
		} else {
			keep = append(keep, el)
		}
	}
	if len(mixed) == 0 {
		return in, transform.SameTree, nil
	}
	var out sql.Expression
	if len(keep) > 0 {
		out = expression.NewInTuple(left, expression.NewTuple(keep...))
	}
	for _, c := range mixed {
		if out == nil {
			out = c
			continue
		}
		out = expression.NewOr(out, c)
	}
	return out, transform.NewTree, nil
}

func rewriteCmp(e, l, r sql.Expression, op cmpOp) (sql.Expression, transform.TreeIdentity, error) {
	if !needsMySQLCompare(l, r) {
		return e, transform.SameTree, nil
	}
	return &compare{op: op, l: l, r: r}, transform.NewTree, nil
}
