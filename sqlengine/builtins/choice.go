package builtins

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// IF, IFNULL, COALESCE and a searched CASE return one of their value
// arguments; MySQL types the result by aggregating all of them (an INT and
// a DECIMAL(12,2) give DECIMAL with 2 digits, a number and a DOUBLE give
// DOUBLE, a number and a string a string). GMS v0.20.0 takes one argument's
// type and converts the others' values into it: IF(c, 1, 2.5) is 3, and
// COALESCE(i, 0.01) fails with "Out of range value" for i = 100. choice
// evaluates lazily, as they do, and converts to the aggregated type. Where
// all value arguments have one type class (or a temporal is involved) GMS's
// expression is kept.

// unifiedType is MySQL's aggregated result type, or nil to keep GMS's.
func unifiedType(values []sql.Expression) sql.Type {
	seen := map[typeClass]bool{}
	scale := uint8(0)
	for _, v := range values {
		if lit, ok := v.(*expression.Literal); ok && lit.Value() == nil {
			continue
		}
		c := classOf(v.Type())
		switch c {
		case clsInt, clsFloat, clsString:
		case clsDec:
			scale = max(scale, decimalType(v.Type()).Scale())
		default:
			return nil
		}
		seen[c] = true
	}
	switch {
	case len(seen) <= 1 && !seen[clsDec]:
		return nil
	case seen[clsString]:
		return types.LongText
	case seen[clsFloat]:
		return types.Float64
	case seen[clsDec] && seen[clsInt]:
		return types.MustCreateDecimalType(65, scale)
	case seen[clsDec]:
		return types.MustCreateDecimalType(65, scale)
	}
	return nil
}

type choice struct {
	name   string
	args   []sql.Expression
	values []int // the value arguments
	typ    sql.Type
	eval   func(ctx *sql.Context, row sql.Row, args []sql.Expression) (sql.Expression, error) // the chosen argument, nil for NULL
}

func (c *choice) Resolved() bool {
	for _, a := range c.args {
		if !a.Resolved() {
			return false
		}
	}
	return true
}

func (c *choice) String() string {
	parts := make([]string, len(c.args))
	for i, a := range c.args {
		parts[i] = a.String()
	}
	return c.name + "(" + strings.Join(parts, ", ") + ")"
}

func (c *choice) Type() sql.Type             { return c.typ }
func (c *choice) IsNullable() bool           { return true }
func (c *choice) Children() []sql.Expression { return c.args }
func (c *choice) FunctionName() string       { return c.name }
func (c *choice) Description() string        { return "MySQL's " + strings.ToUpper(c.name) + " (lakesql)" }
func (c *choice) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	if types.IsText(c.typ) {
		return sql.Collation_Default, 4
	}
	return sql.Collation_binary, 5
}

func (c *choice) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != len(c.args) {
		return nil, sql.ErrInvalidChildrenNumber.New(c, len(children), len(c.args))
	}
	nc := *c
	nc.args = children
	vals := make([]sql.Expression, len(c.values))
	for i, v := range c.values {
		vals[i] = children[v]
	}
	if t := unifiedType(vals); t != nil {
		nc.typ = t
	}
	return &nc, nil
}

func (c *choice) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	e, err := c.eval(ctx, row, c.args)
	if err != nil || e == nil {
		return nil, err
	}
	v, err := e.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	if v, err = sql.UnwrapAny(ctx, v); err != nil {
		return nil, err
	}
	switch {
	case types.IsText(c.typ):
		if d, ok := v.(interface{ StringFixed(int32) string }); ok {
			if dt := decimalType(e.Type()); dt != nil {
				return d.StringFixed(int32(dt.Scale())), nil
			}
		}
		s, _, err := types.LongText.Convert(ctx, v)
		return s, err
	case decimalType(c.typ) != nil:
		n := toNum(v, e.Type())
		if n.kind == kNone {
			return nil, nil
		}
		// At the result's scale, as MySQL prints it (IF(c, d, 100) with a
		// DECIMAL(12,2) d gives 100.00): GMS prints a DECIMAL expression
		// with its value's own exponent.
		return n.dec().Round(int32(decimalType(c.typ).Scale())), nil
	case types.IsFloat(c.typ):
		n := toNum(v, e.Type())
		if n.kind == kNone {
			return nil, nil
		}
		return n.float(), nil
	}
	return v, nil
}

func truthy(ctx *sql.Context, row sql.Row, cond sql.Expression) (bool, error) {
	v, err := cond.Eval(ctx, row)
	if err != nil || v == nil {
		return false, err
	}
	return sql.ConvertToBool(ctx, v)
}

func newChoice(name string, args []sql.Expression, values []int, eval func(*sql.Context, sql.Row, []sql.Expression) (sql.Expression, error)) sql.Expression {
	vals := make([]sql.Expression, len(values))
	for i, v := range values {
		vals[i] = args[v]
	}
	t := unifiedType(vals)
	if t == nil {
		return nil
	}
	return &choice{name: name, args: args, values: values, typ: t, eval: eval}
}

var choiceFunctions = []sql.Function{
	sql.Function3{Name: "if", Fn: func(c, a, b sql.Expression) sql.Expression {
		if e := newChoice("if", []sql.Expression{c, a, b}, []int{1, 2}, func(ctx *sql.Context, row sql.Row, args []sql.Expression) (sql.Expression, error) {
			ok, err := truthy(ctx, row, args[0])
			if err != nil {
				return nil, err
			}
			if ok {
				return args[1], nil
			}
			return args[2], nil
		}); e != nil {
			return e
		}
		return function.NewIf(c, a, b)
	}},
	sql.Function2{Name: "ifnull", Fn: func(a, b sql.Expression) sql.Expression {
		if e := newChoice("ifnull", []sql.Expression{a, b}, []int{0, 1}, firstNonNull); e != nil {
			return e
		}
		return function.NewIfNull(a, b)
	}},
	sql.FunctionN{Name: "coalesce", Fn: func(args ...sql.Expression) (sql.Expression, error) {
		idx := make([]int, len(args))
		for i := range args {
			idx[i] = i
		}
		if len(args) > 0 {
			if e := newChoice("coalesce", args, idx, firstNonNull); e != nil {
				return e, nil
			}
		}
		return function.NewCoalesce(args...)
	}},
}

func firstNonNull(ctx *sql.Context, row sql.Row, args []sql.Expression) (sql.Expression, error) {
	for _, a := range args {
		v, err := a.Eval(ctx, row)
		if err != nil {
			return nil, err
		}
		if v != nil {
			return expression.NewLiteral(v, a.Type()), nil
		}
	}
	return nil, nil
}

// rewriteCase turns a searched CASE (CASE WHEN c THEN v … [ELSE e] END)
// into a choice when its branches' types differ.
func rewriteCase(c *expression.Case) (sql.Expression, transform.TreeIdentity, error) {
	if c.Expr != nil {
		return c, transform.SameTree, nil
	}
	var args []sql.Expression
	var values []int
	for _, b := range c.Branches {
		args = append(args, b.Cond, b.Value)
		values = append(values, len(args)-1)
	}
	hasElse := c.Else != nil
	if hasElse {
		args = append(args, c.Else)
		values = append(values, len(args)-1)
	}
	e := newChoice("case", args, values, func(ctx *sql.Context, row sql.Row, args []sql.Expression) (sql.Expression, error) {
		n := len(args)
		if hasElse {
			n--
		}
		for i := 0; i+1 < n; i += 2 {
			ok, err := truthy(ctx, row, args[i])
			if err != nil {
				return nil, err
			}
			if ok {
				return args[i+1], nil
			}
		}
		if hasElse {
			return args[len(args)-1], nil
		}
		return nil, nil
	})
	if e == nil {
		return c, transform.SameTree, nil
	}
	return e, transform.NewTree, nil
}
