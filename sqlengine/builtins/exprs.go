package builtins

import (
	"math"
	"math/big"
	"reflect"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/vt/sqlparser"
	"github.com/shopspring/decimal"
)

// evalChildren evaluates a binary node's operands.
func evalChildren(ctx *sql.Context, row sql.Row, e sql.Expression) (l, r any, err error) {
	c := e.Children()
	if l, err = c[0].Eval(ctx, row); err != nil || l == nil {
		return nil, nil, err
	}
	if r, err = c[1].Eval(ctx, row); err != nil || r == nil {
		return nil, nil, err
	}
	if l, err = sql.UnwrapAny(ctx, l); err != nil {
		return nil, nil, err
	}
	r, err = sql.UnwrapAny(ctx, r)
	return l, r, err
}

// checkedArith is +, - or * of two integers with MySQL's range check
// (error 1690) instead of GMS's silent wrap-around.
type checkedArith struct{ inner *expression.Arithmetic }

func (a *checkedArith) Resolved() bool             { return a.inner.Resolved() }
func (a *checkedArith) String() string             { return a.inner.String() }
func (a *checkedArith) Type() sql.Type             { return a.inner.Type() }
func (a *checkedArith) IsNullable() bool           { return true }
func (a *checkedArith) Children() []sql.Expression { return a.inner.Children() }
func (a *checkedArith) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return sql.Collation_binary, 5
}

func (a *checkedArith) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	n, err := a.inner.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	return &checkedArith{inner: n.(*expression.Arithmetic)}, nil
}

func (a *checkedArith) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	// Both operands are evaluated, as MySQL's integer operations do: an
	// overflow on the right fails even when the left side is NULL.
	l, r, err := evalBoth(ctx, row, a.inner.Left(), a.inner.Right())
	if err != nil || l.kind == kNone || r.kind == kNone {
		return nil, err
	}
	if (l.kind != kInt && l.kind != kUint) || (r.kind != kInt && r.kind != kUint) {
		return a.inner.Eval(ctx, row)
	}
	unsigned := types.IsUnsigned(a.inner.Left().Type()) || types.IsUnsigned(a.inner.Right().Type()) ||
		l.kind == kUint || r.kind == kUint
	bl, br := bigOf(l), bigOf(r)
	res := new(big.Int)
	switch a.inner.Op {
	case sqlparser.PlusStr:
		res.Add(bl, br)
	case sqlparser.MinusStr:
		res.Sub(bl, br)
	default:
		res.Mul(bl, br)
	}
	if unsigned {
		if res.Sign() < 0 || !res.IsUint64() {
			return nil, errOutOfRange("BIGINT UNSIGNED", a)
		}
		return res.Uint64(), nil
	}
	if !res.IsInt64() {
		return nil, errOutOfRange("BIGINT", a)
	}
	return res.Int64(), nil
}

// intMod is MOD (%) of two integers, exact: GMS v0.20.0 computes it through
// DOUBLE, so 9223372036854775807 % 4611686018427387904 is -1 (MySQL:
// 4611686018427387903). The result has the dividend's sign, as in MySQL; a
// zero divisor is GMS's (NULL with warning 1365).
type intMod struct{ inner *expression.Mod }

func (m *intMod) Resolved() bool { return m.inner.Resolved() }
func (m *intMod) String() string { return m.inner.String() }

// Type is BIGINT (UNSIGNED when the dividend is): GMS types MOD of two
// integers as DECIMAL or DOUBLE.
func (m *intMod) Type() sql.Type {
	if types.IsUnsigned(m.inner.LeftChild.Type()) {
		return types.Uint64
	}
	return types.Int64
}
func (m *intMod) IsNullable() bool           { return true }
func (m *intMod) Children() []sql.Expression { return m.inner.Children() }
func (m *intMod) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return sql.Collation_binary, 5
}

func (m *intMod) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	n, err := m.inner.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	return &intMod{inner: n.(*expression.Mod)}, nil
}

func (m *intMod) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	l, r, err := evalBoth(ctx, row, m.inner.LeftChild, m.inner.RightChild)
	if err != nil || l.kind == kNone || r.kind == kNone {
		return nil, err
	}
	if (l.kind != kInt && l.kind != kUint) || (r.kind != kInt && r.kind != kUint) {
		return m.inner.Eval(ctx, row)
	}
	if r.kind == kInt && r.i == 0 {
		warn(ctx, 1365, "Division by 0")
		return nil, nil
	}
	if l.kind == kInt && r.kind == kInt {
		if r.i == -1 {
			return int64(0), nil // MinInt64 % -1 overflows in Go
		}
		return l.i % r.i, nil
	}
	res := new(big.Int).Rem(bigOf(l), bigOf(r)) // truncated: the dividend's sign
	if types.IsUnsigned(m.inner.LeftChild.Type()) || l.kind == kUint {
		return res.Uint64(), nil
	}
	return res.Int64(), nil
}

func bigDecimal(n num) decimal.Decimal { return decimal.NewFromBigInt(bigOf(n), 0) }

func bigOf(n num) *big.Int {
	if n.kind == kUint {
		return new(big.Int).SetUint64(n.u)
	}
	return big.NewInt(n.i)
}

// negate is unary minus: -BIGINT_MIN is error 1690, a DECIMAL stays exact.
// The negation of a constant integer expression whose value is negative
// is a DECIMAL, as in MySQL (Item_func_neg::resolve_type: BIGINT could not
// hold every such negation), so 2147483647 * -COALESCE(-9223372036854775807, 1)
// is 19807040619342712359383728129, not error 1690.
type negate struct {
	inner    *expression.UnaryMinus
	constNeg bool // the operand is a constant integer expression < 0
	exact    bool // a DECIMAL operand's value is passed on uncut (arith.go)
}

func (n *negate) withExact() sql.Expression {
	return &negate{inner: n.inner, constNeg: n.constNeg, exact: true}
}

// newNegate builds the node, evaluating a constant integer operand once.
func newNegate(x *expression.UnaryMinus) *negate {
	n := &negate{inner: x}
	// A negated literal is folded by the parser into a literal (-(-3) is
	// the integer 3), so only other constant expressions are promoted.
	if isInt(x.Child.Type()) && constantExpr(x.Child) && !negatedLiteral(x.Child) {
		if v, err := x.Child.Eval(sql.NewEmptyContext(), nil); err == nil && v != nil {
			switch c := toNum(v, x.Child.Type()); c.kind {
			case kInt:
				n.constNeg = c.i < 0
			case kUint:
				n.constNeg = true
			}
		}
	}
	return n
}

// negatedLiteral reports whether e is a literal or the negation of one.
func negatedLiteral(e sql.Expression) bool {
	for {
		switch x := e.(type) {
		case *expression.Literal:
			return true
		case *expression.UnaryMinus:
			e = x.Child
		case *negate:
			e = x.inner.Child
		default:
			return false
		}
	}
}

// constantExpr reports whether e has the same value on every row: no
// column, subquery, parameter, variable or non-deterministic function.
func constantExpr(e sql.Expression) bool {
	ok := true
	sql.Inspect(e, func(x sql.Expression) bool {
		switch y := x.(type) {
		case *expression.GetField, *plan.Subquery, *expression.BindVar, *expression.UserVar, *expression.SystemVar, *expression.ProcedureParam:
			ok = false
		case sql.NonDeterministicExpression:
			if y.IsNonDeterministic() {
				ok = false
			}
		}
		return ok
	})
	return ok
}

func (n *negate) Resolved() bool             { return n.inner.Resolved() }
func (n *negate) String() string             { return n.inner.String() }
func (n *negate) IsNullable() bool           { return true }
func (n *negate) Children() []sql.Expression { return n.inner.Children() }
func (n *negate) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return sql.Collation_binary, 5
}

func (n *negate) Type() sql.Type {
	t := n.inner.Child.Type()
	switch {
	case decimalType(t) != nil:
		return t
	case isInt(t):
		if n.isMinLiteral() || n.constNeg {
			return types.MustCreateDecimalType(20, 0)
		}
		return types.Int64 // -INT of -2147483648 is 2147483648
	}
	return n.inner.Type()
}

// isMinLiteral reports whether the operand is the literal
// -9223372036854775808, which the parser reads as one BIGINT; MySQL reads
// the digits as a DECIMAL, so its negation is the DECIMAL
// 9223372036854775808.
func (n *negate) isMinLiteral() bool {
	lit, ok := n.inner.Child.(*expression.Literal)
	if !ok {
		return false
	}
	v, ok := lit.Value().(int64)
	return ok && v == math.MinInt64
}

func (n *negate) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	c, err := n.inner.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	return &negate{inner: c.(*expression.UnaryMinus), constNeg: n.constNeg, exact: n.exact}, nil
}

func (n *negate) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := n.inner.Child.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	if v, err = sql.UnwrapAny(ctx, v); err != nil {
		return nil, err
	}
	switch x := toNum(v, n.inner.Child.Type()); {
	case x.kind == kInt && n.constNeg:
		return decimal.NewFromInt(x.i).Neg(), nil
	case x.kind == kInt:
		if x.i == math.MinInt64 {
			if n.isMinLiteral() {
				return decimal.NewFromInt(math.MinInt64).Neg(), nil
			}
			return nil, errOutOfRange("BIGINT", n)
		}
		return -x.i, nil
	case x.kind == kUint && n.constNeg:
		return bigDecimal(x).Neg(), nil
	case x.kind == kUint:
		if x.u == 1<<63 {
			return int64(math.MinInt64), nil
		}
		return nil, errOutOfRange("BIGINT", n)
	case x.kind == kDec:
		if dt := decimalType(n.Type()); dt != nil && !n.exact {
			return x.d.Neg().Round(int32(dt.Scale())), nil
		}
		return x.d.Neg(), nil
	}
	return n.inner.Eval(ctx, row)
}

// intDiv is DIV with a non-integer operand: MySQL truncates the exact
// quotient (2237.99 DIV 2 is 1118); GMS rounds the operands first.
type intDiv struct{ inner *expression.IntDiv }

func (d *intDiv) Resolved() bool             { return d.inner.Resolved() }
func (d *intDiv) String() string             { return d.inner.String() }
func (d *intDiv) Type() sql.Type             { return types.Int64 }
func (d *intDiv) IsNullable() bool           { return true }
func (d *intDiv) Children() []sql.Expression { return d.inner.Children() }
func (d *intDiv) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return sql.Collation_binary, 5
}

func (d *intDiv) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	c, err := d.inner.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	return &intDiv{inner: c.(*expression.IntDiv)}, nil
}

func (d *intDiv) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	lv, rv, err := evalChildren(ctx, row, d.inner)
	if err != nil || lv == nil || rv == nil {
		return nil, err
	}
	l, r := toNum(lv, d.inner.Left().Type()), toNum(rv, d.inner.Right().Type())
	if l.kind == kNone || r.kind == kNone {
		return nil, nil
	}
	// MySQL converts non-integer operands to DECIMAL (a DOUBLE too) and
	// truncates the exact quotient.
	for _, n := range []num{l, r} {
		if n.kind == kFloat && (math.IsInf(n.f, 0) || math.IsNaN(n.f)) {
			return nil, errOutOfRange("BIGINT", d)
		}
	}
	var q decimal.Decimal
	rd := r.dec()
	if rd.IsZero() {
		warn(ctx, 1365, "Division by 0")
		return nil, nil
	}
	q, _ = l.dec().QuoRem(rd, 0)
	if !q.BigInt().IsInt64() {
		return nil, errOutOfRange("BIGINT", d)
	}
	return q.IntPart(), nil
}

// castDecimal is CAST(x AS DECIMAL(p,s)): MySQL rounds to s digits and
// clamps an out-of-range value to the largest DECIMAL(p,s) with warning
// 1264; GMS v0.20.0 returns 0.
type castDecimal struct{ inner *expression.Convert }

func (c *castDecimal) Resolved() bool { return c.inner.Resolved() }
func (c *castDecimal) String() string { return c.inner.String() }

// Type is DECIMAL(M,D) as written: GMS types CAST(x AS DECIMAL(4,0)) (and
// any scale 0) as its internal DECIMAL(65,30); MySQL's CAST(x AS DECIMAL)
// is DECIMAL(10,0).
func (c *castDecimal) Type() sql.Type {
	v := reflect.ValueOf(c.inner).Elem()
	length, scale := v.FieldByName("typeLength").Int(), v.FieldByName("typeScale").Int()
	if length <= 0 {
		length, scale = 10, 0
	}
	if t, err := types.CreateDecimalType(uint8(min(length, 65)), uint8(min(scale, 30))); err == nil {
		return t
	}
	return c.inner.Type()
}
func (c *castDecimal) IsNullable() bool           { return true }
func (c *castDecimal) Children() []sql.Expression { return c.inner.Children() }
func (c *castDecimal) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return sql.Collation_binary, 5
}

func (c *castDecimal) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	n, err := c.inner.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	return &castDecimal{inner: n.(*expression.Convert)}, nil
}

func (c *castDecimal) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := c.inner.Child.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	if v, err = sql.UnwrapAny(ctx, v); err != nil {
		return nil, err
	}
	var d decimal.Decimal
	switch x := v.(type) {
	case string:
		if d, err = decimal.NewFromString(x); err != nil {
			return c.inner.Eval(ctx, row) // not a plain number: GMS's conversion and warning
		}
	case []byte:
		if d, err = decimal.NewFromString(string(x)); err != nil {
			return c.inner.Eval(ctx, row)
		}
	default:
		n := toNum(v, c.inner.Child.Type())
		switch n.kind {
		case kInt, kUint, kDec:
			d = n.dec()
		case kFloat:
			if math.IsInf(n.f, 0) || math.IsNaN(n.f) {
				return c.inner.Eval(ctx, row)
			}
			d = decimal.NewFromFloat(n.f)
		default:
			return c.inner.Eval(ctx, row)
		}
	}
	clamped, ok := clampDecimal(d, decimalType(c.Type()))
	if !ok {
		warn(ctx, mysql.ERWarnDataOutOfRange, "Out of range value for column '%s' at row 1", c.String())
	}
	return clamped, nil
}

// clampDecimal rounds d to t's scale and clamps it into t's range,
// reporting whether it was in range.
func clampDecimal(d decimal.Decimal, t sql.DecimalType) (decimal.Decimal, bool) {
	scale := int32(t.Scale())
	d = d.Round(scale)
	limit := decimal.New(1, int32(t.Precision())-scale).Sub(decimal.New(1, -scale)) // 10^(p-s) - 10^-s
	switch {
	case d.GreaterThan(limit):
		return limit, false
	case d.LessThan(limit.Neg()):
		return limit.Neg(), false
	}
	return d, true
}

// notSubquery is NOT IN (subquery) or NOT EXISTS (subquery), evaluated per
// row with the SQL NULL rules (NULL NOT IN (non-empty) is NULL). GMS v0.20.0
// turns both into anti-joins that keep NULL rows and, for a hash anti-join,
// drop every row when the subquery column holds a NULL.
type notSubquery struct{ inner sql.Expression }

func (n *notSubquery) Resolved() bool             { return n.inner.Resolved() }
func (n *notSubquery) String() string             { return "NOT " + n.inner.String() }
func (n *notSubquery) Type() sql.Type             { return types.Boolean }
func (n *notSubquery) IsNullable() bool           { return true }
func (n *notSubquery) Children() []sql.Expression { return n.inner.Children() }

func (n *notSubquery) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	c, err := n.inner.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	return &notSubquery{inner: c}, nil
}

func (n *notSubquery) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	if in, ok := n.inner.(*plan.InSubquery); ok {
		if sq, ok := in.RightChild.(*plan.Subquery); ok && types.NumColumns(in.LeftChild.Type()) == 1 {
			return notIn(ctx, row, in.LeftChild, sq)
		}
	}
	v, err := n.inner.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	return !sql.IsTrue(v), nil
}

// notIn is left NOT IN (subquery) with MySQL's comparisons (GMS's hashes
// the left value converted to the column's type, so a BIGINT beyond an INT
// column's range never compares): NULL when left is NULL and the subquery
// has rows, or when nothing matched and the subquery returned a NULL.
func notIn(ctx *sql.Context, row sql.Row, left sql.Expression, sq *plan.Subquery) (any, error) {
	lv, err := left.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	vals, err := sq.EvalMultiple(ctx, row)
	if err != nil {
		return nil, err
	}
	if lv == nil {
		if len(vals) == 0 {
			return true, nil
		}
		return nil, nil
	}
	eq := &compare{op: cmpEQ, l: expression.NewLiteral(lv, left.Type())}
	sawNull := false
	rt := sq.Type()
	for _, v := range vals {
		if v == nil {
			sawNull = true
			continue
		}
		eq.r = expression.NewLiteral(v, rt)
		var res any
		if needsMySQLCompare(eq.l, eq.r) {
			res, err = eq.Eval(ctx, nil)
		} else {
			res, err = expression.NewEquals(eq.l, eq.r).Eval(ctx, nil)
		}
		if err != nil {
			return nil, err
		}
		if res == true {
			return false, nil
		}
	}
	if sawNull {
		return nil, nil
	}
	return true, nil
}

// inSubquery is left IN (subquery) where GMS's comparison of left with the
// subquery's column differs from MySQL's (a string against a number, a
// DECIMAL against a DECIMAL of another scale, …), evaluated per row with
// MySQL's comparisons. GMS v0.20.0 plans such an IN as a semi-join whose
// hash or lookup converts the left value to the column's type ('5.0' and
// ' 5' then never equal 5). It is the SQL negation of notIn: TRUE on a
// match, NULL when left is NULL (and the subquery has rows) or nothing
// matched and the subquery returned a NULL, FALSE otherwise.
type inSubquery struct{ inner *plan.InSubquery }

func (n *inSubquery) Resolved() bool             { return n.inner.Resolved() }
func (n *inSubquery) String() string             { return n.inner.String() }
func (n *inSubquery) Type() sql.Type             { return types.Boolean }
func (n *inSubquery) IsNullable() bool           { return true }
func (n *inSubquery) Children() []sql.Expression { return n.inner.Children() }

func (n *inSubquery) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	c, err := n.inner.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	return &inSubquery{inner: c.(*plan.InSubquery)}, nil
}

func (n *inSubquery) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	sq, ok := n.inner.RightChild.(*plan.Subquery)
	if !ok {
		return n.inner.Eval(ctx, row)
	}
	v, err := notIn(ctx, row, n.inner.LeftChild, sq)
	if err != nil || v == nil {
		return nil, err
	}
	return !v.(bool), nil
}

// mixedInSubquery reports whether GMS compares left IN (subquery) other
// than MySQL does (needsMySQLCompare of left and the subquery's column).
func mixedInSubquery(in *plan.InSubquery) bool {
	sq, ok := in.RightChild.(*plan.Subquery)
	if !ok || types.NumColumns(in.LeftChild.Type()) != 1 || types.NumColumns(sq.Type()) != 1 {
		return false
	}
	col := expression.NewGetField(0, sq.Type(), "subquery column", true)
	return needsMySQLCompare(in.LeftChild, col)
}

// castSigned is CAST(x AS SIGNED/UNSIGNED) of a DOUBLE: MySQL rounds half
// to even (rint), GMS half away from zero.
type castSigned struct{ inner *expression.Convert }

func (c *castSigned) Resolved() bool             { return c.inner.Resolved() }
func (c *castSigned) String() string             { return c.inner.String() }
func (c *castSigned) Type() sql.Type             { return c.inner.Type() }
func (c *castSigned) IsNullable() bool           { return true }
func (c *castSigned) Children() []sql.Expression { return c.inner.Children() }
func (c *castSigned) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return sql.Collation_binary, 5
}

func (c *castSigned) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	n, err := c.inner.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	return &castSigned{inner: n.(*expression.Convert)}, nil
}

func (c *castSigned) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := c.inner.Child.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	f, ok := v.(float64)
	if !ok {
		if f32, ok32 := v.(float32); ok32 {
			f, ok = float64(f32), true
		}
	}
	if !ok || math.Abs(f) >= 9e18 || math.IsNaN(f) || (types.IsUnsigned(c.Type()) && f < 0) {
		return c.inner.Eval(ctx, row)
	}
	r := math.RoundToEven(f)
	if types.IsUnsigned(c.Type()) {
		return uint64(r), nil
	}
	return int64(r), nil
}

// NegatedOperand is the operand of e when e is lakesql's unary minus.
func NegatedOperand(e sql.Expression) (sql.Expression, bool) {
	n, ok := e.(*negate)
	if !ok {
		return nil, false
	}
	return n.inner.Child, true
}
