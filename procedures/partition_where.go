package procedures

import (
	"fmt"
	"strings"

	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/lakesql/lakesql/internal/schema"
)

// partitionWhere compiles the where argument of a procedure (Paimon: "Only
// partition predicate is supported") into a test of a partition's values:
// comparisons (=, <>, !=, <, <=, >, >=, <=>), IN, BETWEEN and IS [NOT] NULL
// of partition columns with literals, combined with AND, OR and NOT.
// Literals are converted to the column's type; a comparison with NULL is
// unknown (false), as in SQL.
func partitionWhere(where string, ts *schema.TableSchema) (func(values []any) (bool, error), error) {
	stmt, err := sqlparser.Parse("SELECT 1 FROM t WHERE " + where)
	if err != nil {
		return nil, badValue("where", where, "not a predicate: %v", err)
	}
	sel, ok := stmt.(*sqlparser.Select)
	if !ok || sel.Where == nil {
		return nil, badValue("where", where, "not a predicate")
	}
	c := &whereCompiler{where: where, fields: ts.PartitionFields()}
	pred, err := c.compile(sel.Where.Expr)
	if err != nil {
		return nil, err
	}
	return func(values []any) (bool, error) { return pred(values) == triTrue, nil }, nil
}

type tri uint8

const (
	triFalse tri = iota
	triTrue
	triUnknown
)

type whereCompiler struct {
	where  string
	fields []schema.DataField
}

func (c *whereCompiler) bad(format string, args ...any) error {
	return badValue("where", c.where, format, args...)
}

func (c *whereCompiler) compile(e sqlparser.Expr) (func([]any) tri, error) {
	switch x := e.(type) {
	case *sqlparser.ParenExpr:
		return c.compile(x.Expr)
	case *sqlparser.AndExpr:
		l, err := c.compile(x.Left)
		if err != nil {
			return nil, err
		}
		r, err := c.compile(x.Right)
		if err != nil {
			return nil, err
		}
		return func(v []any) tri {
			a, b := l(v), r(v)
			switch {
			case a == triFalse || b == triFalse:
				return triFalse
			case a == triTrue && b == triTrue:
				return triTrue
			}
			return triUnknown
		}, nil
	case *sqlparser.OrExpr:
		l, err := c.compile(x.Left)
		if err != nil {
			return nil, err
		}
		r, err := c.compile(x.Right)
		if err != nil {
			return nil, err
		}
		return func(v []any) tri {
			a, b := l(v), r(v)
			switch {
			case a == triTrue || b == triTrue:
				return triTrue
			case a == triFalse && b == triFalse:
				return triFalse
			}
			return triUnknown
		}, nil
	case *sqlparser.NotExpr:
		in, err := c.compile(x.Expr)
		if err != nil {
			return nil, err
		}
		return func(v []any) tri {
			switch in(v) {
			case triTrue:
				return triFalse
			case triFalse:
				return triTrue
			}
			return triUnknown
		}, nil
	case *sqlparser.IsExpr:
		i, err := c.column(x.Expr)
		if err != nil {
			return nil, err
		}
		switch x.Operator {
		case sqlparser.IsNullStr:
			return func(v []any) tri { return triOf(v[i] == nil) }, nil
		case sqlparser.IsNotNullStr:
			return func(v []any) tri { return triOf(v[i] != nil) }, nil
		}
		return nil, c.bad("unsupported %s", strings.ToUpper(x.Operator))
	case *sqlparser.RangeCond:
		i, err := c.column(x.Left)
		if err != nil {
			return nil, err
		}
		lo, err := c.literal(x.From, i)
		if err != nil {
			return nil, err
		}
		hi, err := c.literal(x.To, i)
		if err != nil {
			return nil, err
		}
		t := &c.fields[i].Type
		not := x.Operator == sqlparser.NotBetweenStr
		return func(v []any) tri {
			if v[i] == nil || lo == nil || hi == nil {
				return triUnknown
			}
			in := schema.Compare(t, v[i], lo) >= 0 && schema.Compare(t, v[i], hi) <= 0
			return triOf(in != not)
		}, nil
	case *sqlparser.ComparisonExpr:
		return c.comparison(x)
	}
	return nil, c.bad("only comparisons of partition columns (%s) with literals, IN, BETWEEN, IS NULL, AND, OR and NOT are supported, not %s",
		strings.Join(c.names(), ", "), sqlparser.String(e))
}

func (c *whereCompiler) comparison(x *sqlparser.ComparisonExpr) (func([]any) tri, error) {
	if x.Operator == sqlparser.InStr || x.Operator == sqlparser.NotInStr {
		i, err := c.column(x.Left)
		if err != nil {
			return nil, err
		}
		tuple, ok := x.Right.(sqlparser.ValTuple)
		if !ok {
			return nil, c.bad("IN needs a list of literals")
		}
		vals := make([]any, len(tuple))
		for j, e := range tuple {
			if vals[j], err = c.literal(e, i); err != nil {
				return nil, err
			}
		}
		t := &c.fields[i].Type
		not := x.Operator == sqlparser.NotInStr
		return func(v []any) tri {
			if v[i] == nil {
				return triUnknown
			}
			res := triFalse
			for _, w := range vals {
				switch {
				case w == nil:
					res = triUnknown
				case schema.Compare(t, v[i], w) == 0:
					return triOf(!not)
				}
			}
			if res == triFalse && not {
				return triTrue
			}
			return res
		}, nil
	}
	// column op literal, or literal op column (the operator mirrored).
	op := x.Operator
	colSide, litSide := x.Left, x.Right
	if _, ok := x.Left.(*sqlparser.ColName); !ok {
		colSide, litSide = x.Right, x.Left
		op = map[string]string{sqlparser.LessThanStr: sqlparser.GreaterThanStr, sqlparser.GreaterThanStr: sqlparser.LessThanStr,
			sqlparser.LessEqualStr: sqlparser.GreaterEqualStr, sqlparser.GreaterEqualStr: sqlparser.LessEqualStr}[op]
		if op == "" {
			op = x.Operator
		}
	}
	i, err := c.column(colSide)
	if err != nil {
		return nil, err
	}
	lit, err := c.literal(litSide, i)
	if err != nil {
		return nil, err
	}
	t := &c.fields[i].Type
	var test func(int) bool
	switch op {
	case sqlparser.EqualStr:
		test = func(n int) bool { return n == 0 }
	case sqlparser.NotEqualStr, "<>":
		test = func(n int) bool { return n != 0 }
	case sqlparser.LessThanStr:
		test = func(n int) bool { return n < 0 }
	case sqlparser.LessEqualStr:
		test = func(n int) bool { return n <= 0 }
	case sqlparser.GreaterThanStr:
		test = func(n int) bool { return n > 0 }
	case sqlparser.GreaterEqualStr:
		test = func(n int) bool { return n >= 0 }
	case sqlparser.NullSafeEqualStr:
		return func(v []any) tri {
			if v[i] == nil || lit == nil {
				return triOf(v[i] == nil && lit == nil)
			}
			return triOf(schema.Compare(t, v[i], lit) == 0)
		}, nil
	default:
		return nil, c.bad("unsupported operator %s", strings.ToUpper(x.Operator))
	}
	return func(v []any) tri {
		if v[i] == nil || lit == nil {
			return triUnknown
		}
		return triOf(test(schema.Compare(t, v[i], lit)))
	}, nil
}

func triOf(b bool) tri {
	if b {
		return triTrue
	}
	return triFalse
}

func (c *whereCompiler) names() []string {
	out := make([]string, len(c.fields))
	for i, f := range c.fields {
		out[i] = f.Name
	}
	return out
}

// column resolves a partition column reference.
func (c *whereCompiler) column(e sqlparser.Expr) (int, error) {
	col, ok := e.(*sqlparser.ColName)
	if !ok {
		return 0, c.bad("expected a partition column (%s), got %s", strings.Join(c.names(), ", "), sqlparser.String(e))
	}
	for i, f := range c.fields {
		if strings.EqualFold(f.Name, col.Name.String()) {
			return i, nil
		}
	}
	return 0, c.bad("only partition predicates are supported: %s is not a partition column (%s)",
		col.Name.String(), strings.Join(c.names(), ", "))
}

// literal converts a literal to the type of partition column i (nil for
// NULL).
func (c *whereCompiler) literal(e sqlparser.Expr, i int) (any, error) {
	var text string
	switch x := e.(type) {
	case *sqlparser.NullVal:
		return nil, nil
	case *sqlparser.SQLVal:
		switch x.Type {
		case sqlparser.StrVal, sqlparser.IntVal, sqlparser.FloatVal:
			text = string(x.Val)
		default:
			return nil, c.bad("unsupported literal %s", sqlparser.String(e))
		}
	case sqlparser.BoolVal:
		text = fmt.Sprint(bool(x))
	case *sqlparser.UnaryExpr:
		if v, ok := x.Expr.(*sqlparser.SQLVal); ok && x.Operator == sqlparser.UMinusStr && (v.Type == sqlparser.IntVal || v.Type == sqlparser.FloatVal) {
			text = "-" + string(v.Val)
			break
		}
		return nil, c.bad("unsupported expression %s", sqlparser.String(e))
	default:
		return nil, c.bad("expected a literal, got %s", sqlparser.String(e))
	}
	str := schema.StringType()
	v, err := schema.CastValue(text, &str, &c.fields[i].Type)
	if err != nil {
		return nil, c.bad("%q is not a %s value for %s: %v", text, c.fields[i].Type.String(), c.fields[i].Name, err)
	}
	return v, nil
}
