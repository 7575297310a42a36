package builtins

import (
	"math"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/vt/sqlparser"
	"github.com/shopspring/decimal"
)

// MySQL's arithmetic on DECIMAL and DOUBLE (item_func.cc Item_num_op,
// Item_func_div, Item_func_mod; strings/decimal.cc), which GMS v0.20.0
// types and computes otherwise:
//
//   - The result class is DOUBLE when either operand is a DOUBLE or a
//     string, else DECIMAL when either is a DECIMAL, else BIGINT (and `/`
//     of two integers is DECIMAL). GMS computes `%` of a DOUBLE and a
//     DECIMAL as DECIMAL (`1e3 % d`), and types `%` by its operands' parts.
//   - `/` of exact values is decimal_div: the quotient is cut (not rounded)
//     after ROUND_UP9(frac1) + ROUND_UP9(frac2) + div_precision_increment
//     (4, less the padding of the operands' fractions to 9-digit words)
//     digits, rounded up to a whole 9-digit word. Arithmetic, comparisons
//     and FLOOR/CEIL take that value (val_decimal/val_real: 1/3*3 is
//     0.999999999 before it is shown as 1.0000, FLOOR(-(1/3)*3) is -1,
//     0.005/2147483647 = 0 is true); the value shown, or turned into a
//     string, is rounded to the result's scale, the dividend's + 4
//     (val_str and the protocol: CAST(0.01/2 AS CHAR) is 0.005000).
//   - `%` of DOUBLEs is fmod; of DECIMALs exact, with the larger scale.
//   - A DECIMAL operation does not evaluate its right operand when the
//     left one is NULL (decimal_op); integer and DOUBLE operations
//     evaluate both (int_op, real_op), so an overflow on the right fails
//     the statement even when the left side is NULL.
//
// The nodes below keep MySQL's value (exact) when their parent is an
// operator, a comparison or a numeric function that takes it as MySQL
// does, and round to their scale everywhere else (markExact).

// numClass is the class of an operand of arithmetic: clsInt, clsDec,
// clsFloat (DOUBLE, strings), or clsOther (temporals and the rest, which
// stay GMS's).
func numClass(t sql.Type) typeClass {
	switch c := classOf(t); c {
	case clsInt, clsDec, clsFloat:
		return c
	case clsString:
		return clsFloat
	}
	if t == types.Null {
		return clsInt
	}
	return clsOther
}

// resultClass is the class of a binary operation's result, or clsOther.
func resultClass(l, r sql.Type) typeClass {
	lc, rc := numClass(l), numClass(r)
	switch {
	case lc == clsOther || rc == clsOther:
		return clsOther
	case lc == clsFloat || rc == clsFloat:
		return clsFloat
	case lc == clsDec || rc == clsDec:
		return clsDec
	}
	return clsInt
}

// scaleOf and precisionOf are MySQL's decimals and decimal_precision() of
// an exact operand's type.
func scaleOf(t sql.Type) int {
	if dt := decimalType(t); dt != nil {
		return int(dt.Scale())
	}
	return 0
}

func precisionOf(t sql.Type) int {
	if dt := decimalType(t); dt != nil {
		return int(dt.Precision())
	}
	if types.IsUnsigned(t) {
		return 20
	}
	return 19
}

func decimalResult(prec, scale int) sql.Type {
	scale = min(scale, 30)
	prec = min(max(prec, scale+1, 1), 65)
	return types.MustCreateDecimalType(uint8(prec), uint8(scale))
}

// fracOf is the number of digits after the point MySQL's value of an
// exact operand has: at least its type's scale (a DECIMAL(12,2) column
// value 1 is 1.00), more for the uncut quotient of a division.
func fracOf(d decimal.Decimal, t sql.Type) int32 {
	f := int32(scaleOf(t))
	if e := -d.Exponent(); e > f {
		f = e
	}
	return f
}

func roundUp9(n int32) int32 { return (n + 8) / 9 * 9 }

// withFrac returns d with exactly f digits after the point (cutting
// toward zero), so fracOf sees them.
func withFrac(d decimal.Decimal, f int32) decimal.Decimal {
	if -d.Exponent() == f {
		return d
	}
	if -d.Exponent() > f {
		d = d.Truncate(f)
	}
	return decimal.NewFromBigInt(d.Shift(f).BigInt(), -f)
}

// decimalDiv is MySQL's decimal_div(a, b, div_precision_increment = 4): the
// quotient cut after whole 9-digit words (see above). b is not zero.
func decimalDiv(a decimal.Decimal, fa int32, b decimal.Decimal, fb int32) decimal.Decimal {
	f1, f2 := roundUp9(fa), roundUp9(fb)
	incr := 4 - (f1 - fa) - (f2 - fb)
	if incr < 0 {
		incr = 0
	}
	frac := roundUp9(f1 + f2 + incr)
	q, _ := a.QuoRem(b, frac)
	// A decimal holds 9 words (81 digits): the fraction gives way to the
	// integer part, as FIX_INTG_FRAC_ERROR does.
	if intg := roundUp9(int32(len(q.Truncate(0).Abs().String()))); intg+frac > 81 {
		frac = max(81-intg, 0)
		q = q.Truncate(frac)
	}
	return withFrac(q, frac)
}

// exactNode is implemented by the nodes whose value a numeric parent
// takes uncut.
type exactNode interface {
	sql.Expression
	withExact() sql.Expression
}

// numericDiv is `/` with MySQL's types and values.
type numericDiv struct {
	inner *expression.Div
	exact bool
}

func (d *numericDiv) Resolved() bool             { return d.inner.Resolved() }
func (d *numericDiv) String() string             { return d.inner.String() }
func (d *numericDiv) IsNullable() bool           { return true }
func (d *numericDiv) Children() []sql.Expression { return d.inner.Children() }
func (d *numericDiv) withExact() sql.Expression  { return &numericDiv{inner: d.inner, exact: true} }
func (d *numericDiv) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return sql.Collation_binary, 5
}

func (d *numericDiv) Type() sql.Type {
	l, r := d.inner.Left().Type(), d.inner.Right().Type()
	if resultClass(l, r) == clsFloat {
		return types.Float64
	}
	return decimalResult(precisionOf(l)+scaleOf(r)+4, scaleOf(l)+4)
}

func (d *numericDiv) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	n, err := d.inner.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	return &numericDiv{inner: n.(*expression.Div), exact: d.exact}, nil
}

func (d *numericDiv) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	l, r := d.inner.Left(), d.inner.Right()
	if resultClass(l.Type(), r.Type()) == clsFloat {
		lv, rv, err := evalBoth(ctx, row, l, r)
		if err != nil || lv.kind == kNone || rv.kind == kNone {
			return nil, err
		}
		den := rv.float()
		if den == 0 {
			warn(ctx, 1365, "Division by 0")
			return nil, nil
		}
		return lv.float() / den, nil
	}
	lv, err := evalNum(ctx, row, l)
	if err != nil || lv.kind == kNone {
		return nil, err
	}
	rv, err := evalNum(ctx, row, r)
	if err != nil || rv.kind == kNone {
		return nil, err
	}
	a, b := lv.dec(), rv.dec()
	if b.IsZero() {
		warn(ctx, 1365, "Division by 0")
		return nil, nil
	}
	q := decimalDiv(a, fracOf(a, l.Type()), b, fracOf(b, r.Type()))
	if d.exact {
		return q, nil
	}
	return q.Round(int32(decimalType(d.Type()).Scale())), nil
}

// numericMod is `%` (MOD) of operands that are not both integers (intMod
// has those).
type numericMod struct {
	inner *expression.Mod
	exact bool
}

func (m *numericMod) Resolved() bool             { return m.inner.Resolved() }
func (m *numericMod) String() string             { return m.inner.String() }
func (m *numericMod) IsNullable() bool           { return true }
func (m *numericMod) Children() []sql.Expression { return m.inner.Children() }
func (m *numericMod) withExact() sql.Expression  { return &numericMod{inner: m.inner, exact: true} }
func (m *numericMod) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return sql.Collation_binary, 5
}

func (m *numericMod) Type() sql.Type {
	l, r := m.inner.LeftChild.Type(), m.inner.RightChild.Type()
	if resultClass(l, r) == clsFloat {
		return types.Float64
	}
	s := max(scaleOf(l), scaleOf(r))
	return decimalResult(max(precisionOf(l)-scaleOf(l), precisionOf(r)-scaleOf(r))+s, s)
}

func (m *numericMod) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	n, err := m.inner.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	return &numericMod{inner: n.(*expression.Mod), exact: m.exact}, nil
}

func (m *numericMod) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	l, r := m.inner.LeftChild, m.inner.RightChild
	if resultClass(l.Type(), r.Type()) == clsFloat {
		lv, rv, err := evalBoth(ctx, row, l, r)
		if err != nil || lv.kind == kNone || rv.kind == kNone {
			return nil, err
		}
		den := rv.float()
		if den == 0 {
			warn(ctx, 1365, "Division by 0")
			return nil, nil
		}
		return math.Mod(lv.float(), den), nil
	}
	lv, err := evalNum(ctx, row, l)
	if err != nil || lv.kind == kNone {
		return nil, err
	}
	rv, err := evalNum(ctx, row, r)
	if err != nil || rv.kind == kNone {
		return nil, err
	}
	a, b := lv.dec(), rv.dec()
	if b.IsZero() {
		warn(ctx, 1365, "Division by 0")
		return nil, nil
	}
	_, rem := a.QuoRem(b, 0) // the remainder has the dividend's sign
	rem = withFrac(rem, max(fracOf(a, l.Type()), fracOf(b, r.Type())))
	if m.exact {
		return rem, nil
	}
	return rem.Round(int32(decimalType(m.Type()).Scale())), nil
}

// decimalArith is +, - or * with a DECIMAL result: exact, MySQL's scale
// (the larger one for + and -, the sum for *), and no evaluation of the
// right operand when the left one is NULL.
type decimalArith struct {
	inner *expression.Arithmetic
	exact bool
}

func (a *decimalArith) Resolved() bool             { return a.inner.Resolved() }
func (a *decimalArith) String() string             { return a.inner.String() }
func (a *decimalArith) IsNullable() bool           { return true }
func (a *decimalArith) Children() []sql.Expression { return a.inner.Children() }
func (a *decimalArith) withExact() sql.Expression  { return &decimalArith{inner: a.inner, exact: true} }
func (a *decimalArith) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return sql.Collation_binary, 5
}

func (a *decimalArith) Type() sql.Type {
	l, r := a.inner.Left().Type(), a.inner.Right().Type()
	ls, rs := scaleOf(l), scaleOf(r)
	if a.inner.Op == sqlparser.MultStr {
		return decimalResult(precisionOf(l)+precisionOf(r), ls+rs)
	}
	s := max(ls, rs)
	return decimalResult(max(precisionOf(l)-ls, precisionOf(r)-rs)+s+1, s)
}

func (a *decimalArith) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	n, err := a.inner.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	return &decimalArith{inner: n.(*expression.Arithmetic), exact: a.exact}, nil
}

func (a *decimalArith) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	lv, err := evalNum(ctx, row, a.inner.Left())
	if err != nil || lv.kind == kNone {
		return nil, err
	}
	rv, err := evalNum(ctx, row, a.inner.Right())
	if err != nil || rv.kind == kNone {
		return nil, err
	}
	x, y := lv.dec(), rv.dec()
	var res decimal.Decimal
	switch a.inner.Op {
	case sqlparser.PlusStr:
		res = x.Add(y)
	case sqlparser.MinusStr:
		res = x.Sub(y)
	default:
		res = x.Mul(y)
	}
	if a.exact {
		return res, nil
	}
	return res.Round(int32(decimalType(a.Type()).Scale())), nil
}

// evalNum evaluates e as a number (kNone for NULL).
func evalNum(ctx *sql.Context, row sql.Row, e sql.Expression) (num, error) {
	v, err := e.Eval(ctx, row)
	if err != nil || v == nil {
		return num{}, err
	}
	if v, err = sql.UnwrapAny(ctx, v); err != nil {
		return num{}, err
	}
	return toNum(v, e.Type()), nil
}

// evalBoth evaluates both operands, as MySQL's integer and DOUBLE
// operations do, even when the left one is NULL.
func evalBoth(ctx *sql.Context, row sql.Row, l, r sql.Expression) (num, num, error) {
	lv, err := evalNum(ctx, row, l)
	if err != nil {
		return num{}, num{}, err
	}
	rv, err := evalNum(ctx, row, r)
	return lv, rv, err
}

// markExact gives the division, MOD and DECIMAL arithmetic children of a
// node that takes numbers as MySQL's val_decimal/val_real do (operators,
// comparisons, numeric functions) their uncut values.
func markExact(e sql.Expression) (sql.Expression, bool) {
	if !takesExact(e) {
		return e, false
	}
	children := e.Children()
	var out []sql.Expression
	for i, c := range children {
		x, ok := c.(exactNode)
		if !ok {
			continue
		}
		if out == nil {
			out = append([]sql.Expression(nil), children...)
		}
		out[i] = x.withExact()
	}
	if out == nil {
		return e, false
	}
	n, err := e.WithChildren(out...)
	if err != nil {
		return e, false
	}
	return n, true
}

func takesExact(e sql.Expression) bool {
	switch x := e.(type) {
	case *numericDiv, *numericMod, *decimalArith, *checkedArith, *intMod, *negate, *intDiv, *compare,
		*expression.Arithmetic, *expression.Div, *expression.Mod, *expression.IntDiv, *expression.UnaryMinus,
		*expression.Equals, *expression.NullSafeEquals, *expression.LessThan, *expression.LessThanOrEqual,
		*expression.GreaterThan, *expression.GreaterThanOrEqual, *expression.InTuple, *expression.Between:
		return true
	case *scalar:
		switch x.name {
		case "ceil", "ceiling", "floor", "abs", "sign", "round", "truncate", "greatest", "least":
			return true
		}
	}
	return false
}
