package builtins

import (
	"math"
	"strconv"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// FixedDecimalsRuleID identifies FixedDecimalsRule.
const FixedDecimalsRuleID analyzer.RuleId = 1005

// notFixed is MySQL's DECIMAL_NOT_SPECIFIED (NOT_FIXED_DEC, 31): a DOUBLE
// printed in its shortest form.
const notFixed = 31

// divPrecisionIncrement is MySQL's default div_precision_increment, the
// decimals `/` adds to a DOUBLE quotient's (Item_func_div::resolve_type).
const divPrecisionIncrement = 4

// FixedDecimalsRule gives a DOUBLE result column that MySQL 8 prints with a
// fixed number of decimals the type that prints it so: MySQL's
// Item_func_round sets the decimals of ROUND/TRUNCATE(x, n) of a DOUBLE to
// the constant n, +, -, * and % keep the larger decimals of their operands and
// / adds div_precision_increment (Item_num_op, Item_func_div), and the text
// protocol writes such a DOUBLE with exactly that many decimals
// (SELECT ROUND(1.5e0, 2) is 1.50, ROUND(f, 2) * 100 is 5425.00). GMS's
// DOUBLE carries no decimals and prints the shortest form. Only the
// statement's result columns change (the top projection, through the nodes
// that pass rows on unchanged); values, comparisons and everything inside
// the plan keep GMS's DOUBLE.
func FixedDecimalsRule(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qf *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if scope != nil && !scope.IsEmpty() {
		return n, transform.SameTree, nil
	}
	aliases := map[sql.ColumnId]sql.Expression{}
	transform.InspectExpressions(n, func(e sql.Expression) bool {
		if al, ok := e.(*expression.Alias); ok && al.Id() != 0 {
			aliases[al.Id()] = al.Child
		}
		return true
	})
	return fixTop(n, aliases)
}

// fixTop rewrites the projection that makes n's rows, descending through
// the nodes that pass their child's rows on.
func fixTop(n sql.Node, aliases map[sql.ColumnId]sql.Expression) (sql.Node, transform.TreeIdentity, error) {
	switch n := n.(type) {
	case *plan.Limit, *plan.Offset, *plan.Sort, *plan.TopN, *plan.Distinct, *plan.OrderedDistinct, *plan.Filter, *plan.Having:
		child := n.Children()[0]
		nc, same, err := fixTop(child, aliases)
		if err != nil || same {
			return n, transform.SameTree, err
		}
		nn, err := n.WithChildren(nc)
		return nn, transform.NewTree, err
	case *plan.Project:
		projs := make([]sql.Expression, len(n.Projections))
		changed := false
		for i, e := range n.Projections {
			projs[i] = fixedProjection(e, aliases)
			changed = changed || projs[i] != e
		}
		if !changed {
			return n, transform.SameTree, nil
		}
		nn, err := n.WithExpressions(projs...)
		return nn, transform.NewTree, err
	}
	return n, transform.SameTree, nil
}

// fixedProjection returns e typed as a DOUBLE with fixed decimals when
// MySQL would print it so, else e.
func fixedProjection(e sql.Expression, aliases map[sql.ColumnId]sql.Expression) sql.Expression {
	if !types.IsFloat(e.Type()) {
		return e
	}
	d := fixedDecimalsOf(e, aliases, 0)
	if d >= notFixed {
		return e
	}
	typ := fixedDouble{NumberType: types.Float64, decimals: d}
	switch x := e.(type) {
	case *expression.Alias:
		na := *x
		na.Child = &fixedDecimals{child: x.Child, typ: typ}
		return &na
	case *expression.GetField:
		return expression.NewGetFieldWithTable(x.Index(), int(x.TableId()), typ, x.Database(), x.Table(), x.Name(), x.IsNullable()).WithId(x.Id()).(*expression.GetField)
	}
	return &fixedDecimals{child: e, typ: typ}
}

// fixedDecimalsOf is MySQL's `decimals` of e (0 to 30, or notFixed) for
// the expressions whose DOUBLE decimals MySQL fixes; depth bounds the walk
// through aliases.
func fixedDecimalsOf(e sql.Expression, aliases map[sql.ColumnId]sql.Expression, depth int) int {
	if depth > 32 {
		return notFixed
	}
	t := e.Type()
	if ft, ok := t.(fixedDouble); ok {
		return ft.decimals
	}
	if !types.IsFloat(t) {
		switch {
		case types.IsInteger(t) || t == types.Boolean:
			return 0
		case types.IsDecimal(t):
			return int(min(t.(sql.DecimalType).Scale(), notFixed))
		}
		return notFixed
	}
	switch x := e.(type) {
	case *expression.Alias:
		return fixedDecimalsOf(x.Child, aliases, depth+1)
	case *expression.GetField:
		if src, ok := aliases[x.Id()]; ok && x.Id() != 0 {
			return fixedDecimalsOf(src, aliases, depth+1)
		}
		return notFixed
	case *scalar:
		if x.name != "round" && x.name != "truncate" {
			return notFixed
		}
		if len(x.args) == 1 {
			return 0 // ROUND(x) is ROUND(x, 0)
		}
		if n, ok := constantInt(x.args[1]); ok {
			return int(max(0, min(n, notFixed)))
		}
		return fixedDecimalsOf(x.args[0], aliases, depth+1)
	case *expression.Arithmetic, *checkedArith, *decimalArith:
		op := ""
		switch y := x.(type) {
		case *expression.Arithmetic:
			op = y.Op
		case *checkedArith:
			op = y.inner.Op
		case *decimalArith:
			op = y.inner.Op
		}
		ch := x.Children()
		if len(ch) != 2 || op != sqlparser.PlusStr && op != sqlparser.MinusStr && op != sqlparser.MultStr {
			return notFixed
		}
		return max(fixedDecimalsOf(ch[0], aliases, depth+1), fixedDecimalsOf(ch[1], aliases, depth+1))
	case *expression.Mod, *numericMod:
		// % of a DOUBLE is fmod, with the larger decimals (Item_func_mod).
		ch := x.Children()
		if len(ch) != 2 {
			return notFixed
		}
		return max(fixedDecimalsOf(ch[0], aliases, depth+1), fixedDecimalsOf(ch[1], aliases, depth+1))
	case *expression.Div, *numericDiv:
		ch := x.Children()
		if len(ch) != 2 {
			return notFixed
		}
		return min(max(fixedDecimalsOf(ch[0], aliases, depth+1), fixedDecimalsOf(ch[1], aliases, depth+1))+divPrecisionIncrement, notFixed)
	case *negate, *expression.UnaryMinus:
		ch := x.Children()
		if len(ch) != 1 {
			return notFixed
		}
		return fixedDecimalsOf(ch[0], aliases, depth+1)
	case *choice:
		// IF/IFNULL/COALESCE/CASE/GREATEST/LEAST: the most decimals of the
		// values (Item_func::aggregate_decimal_properties).
		vals := make([]sql.Expression, 0, len(x.values))
		for _, i := range x.values {
			if i < len(x.args) {
				vals = append(vals, x.args[i])
			}
		}
		return mostDecimals(vals, aliases, depth)
	case *function.If:
		if ch := x.Children(); len(ch) == 3 {
			return mostDecimals(ch[1:], aliases, depth)
		}
	case *function.IfNull, *function.Coalesce:
		return mostDecimals(x.Children(), aliases, depth)
	case *expression.Case:
		vals := make([]sql.Expression, 0, len(x.Branches)+1)
		for _, b := range x.Branches {
			vals = append(vals, b.Value)
		}
		if x.Else != nil {
			vals = append(vals, x.Else)
		}
		return mostDecimals(vals, aliases, depth)
	}
	return notFixed
}

// mostDecimals is the largest decimals of values, NULL literals aside.
func mostDecimals(values []sql.Expression, aliases map[sql.ColumnId]sql.Expression, depth int) int {
	d := 0
	for _, v := range values {
		if lit, ok := v.(*expression.Literal); ok && lit.Value() == nil {
			continue
		}
		d = max(d, fixedDecimalsOf(v, aliases, depth+1))
	}
	return d
}

// constantInt is the value of an integer literal (or a negated one), as
// MySQL reads ROUND's constant places.
func constantInt(e sql.Expression) (int64, bool) {
	neg := false
	switch x := e.(type) {
	case *negate:
		e, neg = x.inner.Child, true
	case *expression.UnaryMinus:
		e, neg = x.Child, true
	}
	lit, ok := e.(*expression.Literal)
	if !ok {
		return 0, false
	}
	n := toNum(lit.Value(), lit.Type())
	var v int64
	switch n.kind {
	case kInt:
		v = n.i
	case kUint:
		v = int64(min(n.u, math.MaxInt32))
	default:
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

// fixedDouble is DOUBLE written with a fixed number of decimals.
type fixedDouble struct {
	sql.NumberType
	decimals int
}

// SQL implements sql.Type: the value with exactly t.decimals decimals, as
// MySQL's Protocol_text::store(double, decimals) writes it.
func (t fixedDouble) SQL(ctx *sql.Context, dest []byte, v any) (sqltypes.Value, error) {
	if v == nil {
		return sqltypes.NULL, nil
	}
	f, _, err := types.Float64.Convert(ctx, v)
	if err != nil {
		return sqltypes.Value{}, err
	}
	x, ok := f.(float64)
	if !ok || math.IsInf(x, 0) || math.IsNaN(x) {
		return t.NumberType.SQL(ctx, dest, v)
	}
	return sqltypes.MakeTrusted(sqltypes.Float64, strconv.AppendFloat(dest, x, 'f', t.decimals, 64)), nil
}

// Equals implements sql.Type.
func (t fixedDouble) Equals(o sql.Type) bool {
	ot, ok := o.(fixedDouble)
	return ok && ot.decimals == t.decimals
}

// fixedDecimals gives its child, a DOUBLE, the type fixedDouble.
type fixedDecimals struct {
	child sql.Expression
	typ   fixedDouble
}

var _ sql.Expression = (*fixedDecimals)(nil)

func (f *fixedDecimals) Resolved() bool             { return f.child.Resolved() }
func (f *fixedDecimals) String() string             { return f.child.String() }
func (f *fixedDecimals) Type() sql.Type             { return f.typ }
func (f *fixedDecimals) IsNullable() bool           { return f.child.IsNullable() }
func (f *fixedDecimals) Children() []sql.Expression { return []sql.Expression{f.child} }
func (f *fixedDecimals) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	return f.child.Eval(ctx, row)
}
func (f *fixedDecimals) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return sql.Collation_binary, 5
}

func (f *fixedDecimals) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(f, len(children), 1)
	}
	return &fixedDecimals{child: children[0], typ: f.typ}, nil
}
