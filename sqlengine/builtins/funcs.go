package builtins

import (
	"fmt"
	"math"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// scalar is a function expression over evaluated arguments: NULL in, NULL
// out; eval gets the non-NULL values.
type scalar struct {
	name string
	// exact marks ROUND's exact variant (newExactRound): rounding half
	// away from zero instead of the DOUBLE's half to even.
	exact bool
	args  []sql.Expression
	typ   func(args []sql.Expression) sql.Type
	eval  func(ctx *sql.Context, s *scalar, vals []any) (any, error)
}

var _ sql.FunctionExpression = (*scalar)(nil)

func (s *scalar) FunctionName() string { return s.name }
func (s *scalar) Description() string  { return "MySQL's " + strings.ToUpper(s.name) + " (lakesql)" }
func (s *scalar) Resolved() bool {
	for _, a := range s.args {
		if !a.Resolved() {
			return false
		}
	}
	return true
}
func (s *scalar) Type() sql.Type             { return s.typ(s.args) }
func (s *scalar) IsNullable() bool           { return true }
func (s *scalar) Children() []sql.Expression { return s.args }
func (s *scalar) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	if types.IsText(s.Type()) {
		return sql.Collation_Default, 4
	}
	return sql.Collation_binary, 5
}

func (s *scalar) String() string {
	parts := make([]string, len(s.args))
	for i, a := range s.args {
		parts[i] = a.String()
	}
	return s.name + "(" + strings.Join(parts, ",") + ")"
}

func (s *scalar) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != len(s.args) {
		return nil, sql.ErrInvalidChildrenNumber.New(s, len(children), len(s.args))
	}
	ns := *s
	ns.args = children
	return &ns, nil
}

func (s *scalar) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	vals := make([]any, len(s.args))
	for i, a := range s.args {
		v, err := a.Eval(ctx, row)
		if err != nil {
			return nil, err
		}
		if v == nil {
			return nil, nil
		}
		if v, err = sql.UnwrapAny(ctx, v); err != nil {
			return nil, err
		}
		vals[i] = v
	}
	res, err := s.eval(ctx, s, vals)
	// A DECIMAL result is shown at the function's scale (ABS of an uncut
	// quotient, arith.go).
	if d, ok := res.(decimal.Decimal); ok && err == nil {
		if dt := decimalType(s.Type()); dt != nil && -d.Exponent() > int32(dt.Scale()) {
			return d.Round(int32(dt.Scale())), nil
		}
	}
	return res, err
}

// fn registers a scalar of arity min..max.
func fn(name string, min, max int, typ func([]sql.Expression) sql.Type, eval func(*sql.Context, *scalar, []any) (any, error)) sql.Function {
	return sql.FunctionN{Name: name, Fn: func(args ...sql.Expression) (sql.Expression, error) {
		if len(args) < min || len(args) > max {
			want := fmt.Sprint(min)
			if max != min {
				want = fmt.Sprintf("%d or %d", min, max)
			}
			return nil, sql.ErrInvalidArgumentNumber.New(strings.ToUpper(name), want, len(args))
		}
		return &scalar{name: name, args: args, typ: typ, eval: eval}, nil
	}}
}

// numericResult is the type of a function that keeps its argument's kind:
// integers stay BIGINT, DECIMAL stays DECIMAL (with the given scale, -1 to
// keep the argument's), everything else is DOUBLE.
func numericResult(arg sql.Type, scale int) sql.Type {
	switch {
	case isInt(arg):
		if types.IsUnsigned(arg) {
			return types.Uint64
		}
		return types.Int64
	case decimalType(arg) != nil:
		dt := decimalType(arg)
		s := int(dt.Scale())
		if scale >= 0 && scale < s {
			s = scale
		}
		return types.MustCreateDecimalType(65, uint8(s))
	}
	return types.Float64
}

// functions are the built-ins lakesql replaces.
var functions = []sql.Function{
	fn("sign", 1, 1, func([]sql.Expression) sql.Type { return types.Int64 }, evalSign),
	fn("ceil", 1, 1, roundingType, evalCeilFloor(true)),
	fn("ceiling", 1, 1, roundingType, evalCeilFloor(true)),
	fn("floor", 1, 1, roundingType, evalCeilFloor(false)),
	fn("truncate", 2, 2, truncateType, evalTruncate),
	fn("abs", 1, 1, func(a []sql.Expression) sql.Type { return numericResult(a[0].Type(), -1) }, evalAbs),
	fn("lpad", 3, 3, func([]sql.Expression) sql.Type { return types.LongText }, evalPad(true)),
	fn("rpad", 3, 3, func([]sql.Expression) sql.Type { return types.LongText }, evalPad(false)),
	sql.FunctionN{Name: "round", Fn: newRound},
	greatestLeast("greatest", true, function.NewGreatest),
	greatestLeast("least", false, function.NewLeast),
}

func evalSign(ctx *sql.Context, s *scalar, v []any) (any, error) {
	n := toNum(v[0], s.args[0].Type())
	switch n.kind {
	case kInt:
		return int64(sgn(float64(n.i))), nil
	case kUint:
		return int64(1), nil
	case kDec:
		return int64(n.d.Sign()), nil
	case kFloat:
		return int64(sgn(n.f)), nil
	}
	return nil, nil
}

func sgn(f float64) int {
	switch {
	case f > 0:
		return 1
	case f < 0:
		return -1
	}
	return 0
}

// roundingType: CEIL/FLOOR of an integer is BIGINT, of a DECIMAL a DECIMAL
// with scale 0 (MySQL returns BIGINT when it fits; the digits are the same),
// of anything else DOUBLE.
func roundingType(a []sql.Expression) sql.Type {
	if isInt(a[0].Type()) && hasDecimal(a[0]) {
		return types.MustCreateDecimalType(65, 0) // GMS types some DECIMAL arithmetic as BIGINT
	}
	_, col := a[0].(*expression.GetField)
	_, lit := a[0].(*expression.Literal)
	// The precision of a column or literal is exact; GMS's guess for an
	// arithmetic result is not, so only those can be BIGINT.
	if dt := decimalType(a[0].Type()); dt != nil && (col || lit) && int(dt.Precision())-int(dt.Scale()) <= 18 {
		return types.Int64 // MySQL: BIGINT when the integer digits fit
	}
	return numericResult(a[0].Type(), 0)
}

func evalCeilFloor(ceil bool) func(*sql.Context, *scalar, []any) (any, error) {
	return func(ctx *sql.Context, s *scalar, v []any) (any, error) {
		typ := s.Type()
		n := toNum(v[0], s.args[0].Type())
		switch {
		case n.kind == kNone:
			return nil, nil
		case isInt(typ):
			switch n.kind {
			case kUint:
				return n.u, nil
			case kInt:
				return n.i, nil
			case kDec:
				r := n.d.Floor()
				if ceil {
					r = n.d.Ceil()
				}
				if !r.BigInt().IsInt64() {
					return nil, errOutOfRange("BIGINT", s)
				}
				return r.IntPart(), nil
			}
		case decimalType(typ) != nil:
			d := n.dec()
			if ceil {
				return d.Ceil(), nil
			}
			return d.Floor(), nil
		}
		if ceil {
			return math.Ceil(n.float()), nil
		}
		return math.Floor(n.float()), nil
	}
}

// truncateType: TRUNCATE(x, d) of a DECIMAL keeps min(scale, d) digits when
// d is a constant.
func truncateType(a []sql.Expression) sql.Type {
	scale := -1
	if lit, ok := a[1].(*expression.Literal); ok {
		if n := toNum(lit.Value(), lit.Type()); n.kind == kInt {
			scale = int(max(0, min(n.i, 30)))
		}
	}
	return numericResult(a[0].Type(), scale)
}

func evalTruncate(ctx *sql.Context, s *scalar, v []any) (any, error) {
	typ := s.Type()
	dn := toNum(v[1], s.args[1].Type())
	var places int64
	switch dn.kind {
	case kInt:
		places = dn.i
	case kUint:
		places = math.MaxInt32
	case kDec:
		places = dn.d.IntPart()
	case kFloat:
		places = int64(math.Round(dn.f))
	default:
		return nil, nil
	}
	places = min(max(places, -100), 100)
	n := toNum(v[0], s.args[0].Type())
	switch {
	case n.kind == kNone:
		return nil, nil
	case isInt(typ) && (n.kind == kInt || n.kind == kUint):
		if places >= 0 {
			if n.kind == kUint {
				return n.u, nil
			}
			return n.i, nil
		}
		d := truncDec(n.dec(), places)
		if n.kind == kUint {
			return d.BigInt().Uint64(), nil
		}
		return d.IntPart(), nil
	case decimalType(typ) != nil:
		return truncDec(n.dec(), places), nil
	}
	f := n.float()
	if places >= 0 {
		p := math.Pow(10, float64(places))
		if math.IsInf(f*p, 0) {
			return f, nil
		}
		return math.Trunc(f*p) / p, nil
	}
	p := math.Pow(10, float64(-places))
	return math.Trunc(f/p) * p, nil
}

// truncDec cuts d to places digits after the point (before it when
// negative), toward zero.
func truncDec(d decimal.Decimal, places int64) decimal.Decimal {
	if places >= 0 {
		return d.Truncate(int32(places))
	}
	return d.Shift(int32(places)).Truncate(0).Shift(int32(-places))
}

func evalAbs(ctx *sql.Context, s *scalar, v []any) (any, error) {
	n := toNum(v[0], s.args[0].Type())
	switch n.kind {
	case kInt:
		if n.i == math.MinInt64 {
			return nil, errOutOfRange("BIGINT", s)
		}
		if n.i < 0 {
			return -n.i, nil
		}
		return n.i, nil
	case kUint:
		return n.u, nil
	case kDec:
		return n.d.Abs(), nil
	case kFloat:
		return math.Abs(n.f), nil
	}
	return nil, nil
}

// maxPadResult is the longest LPAD/RPAD result; MySQL returns NULL beyond
// max_allowed_packet (64 MiB by default).
const maxPadResult = 64 << 20

// evalPad is LPAD/RPAD counting characters, as MySQL does.
func evalPad(left bool) func(*sql.Context, *scalar, []any) (any, error) {
	return func(ctx *sql.Context, s *scalar, v []any) (any, error) {
		str, _, err := types.LongText.Convert(ctx, v[0])
		if err != nil {
			return nil, err
		}
		pad, _, err := types.LongText.Convert(ctx, v[2])
		if err != nil {
			return nil, err
		}
		ln := toNum(v[1], s.args[1].Type())
		var n int64
		switch ln.kind {
		case kInt:
			n = ln.i
		case kUint:
			n = math.MaxInt64
		case kDec:
			n = ln.d.Round(0).IntPart()
		case kFloat:
			n = int64(math.Round(ln.f))
		default:
			return nil, nil
		}
		if n < 0 || n > maxPadResult {
			return nil, nil
		}
		src, padStr := []rune(str.(string)), []rune(pad.(string))
		if int64(len(src)) >= n {
			return string(src[:n]), nil
		}
		if len(padStr) == 0 {
			return nil, nil
		}
		need := int(n) - len(src)
		fill := make([]rune, 0, need)
		for len(fill) < need {
			fill = append(fill, padStr[:min(len(padStr), need-len(fill))]...)
		}
		if left {
			return string(fill) + string(src), nil
		}
		return string(src) + string(fill), nil
	}
}

// greatestLeast is GREATEST/LEAST over numbers (GMS v0.20.0 fails on a
// DECIMAL argument): all integers compare as BIGINT, integers and DECIMALs
// exactly, anything with a DOUBLE or a string as DOUBLE. Other argument
// types (all strings, temporals) keep GMS's function.
func greatestLeast(name string, greatest bool, gms func(...sql.Expression) (sql.Expression, error)) sql.Function {
	return sql.FunctionN{Name: name, Fn: func(args ...sql.Expression) (sql.Expression, error) {
		if len(args) < 2 {
			return nil, sql.ErrInvalidArgumentNumber.New(strings.ToUpper(name), "2 or more", len(args))
		}
		numeric, allText := false, true
		for _, a := range args {
			switch classOf(a.Type()) {
			case clsInt, clsDec, clsFloat:
				numeric, allText = true, false
			case clsString:
			default:
				return gms(args...)
			}
		}
		if !numeric || allText {
			return gms(args...)
		}
		return &scalar{name: name, args: args, typ: greatestLeastType, eval: func(ctx *sql.Context, s *scalar, v []any) (any, error) {
			typ := s.Type()
			var best num
			for i, x := range v {
				n := toNum(x, s.args[i].Type())
				if n.kind == kNone {
					return nil, nil
				}
				if i == 0 {
					best = n
					continue
				}
				var c int
				if decimalType(typ) != nil || isInt(typ) {
					c = n.dec().Cmp(best.dec())
				} else {
					c = sgn(n.float() - best.float())
				}
				if greatest && c > 0 || !greatest && c < 0 {
					best = n
				}
			}
			switch {
			case isInt(typ):
				if best.kind == kUint {
					return best.u, nil
				}
				return best.i, nil
			case decimalType(typ) != nil:
				return best.dec().Round(int32(decimalType(typ).Scale())), nil // at the result's scale, as MySQL prints it
			}
			return best.float(), nil
		}}, nil
	}}
}

func greatestLeastType(args []sql.Expression) sql.Type {
	allInt, exact, scale := true, true, uint8(0)
	for _, a := range args {
		switch classOf(a.Type()) {
		case clsInt:
		case clsDec:
			allInt = false
			scale = max(scale, decimalType(a.Type()).Scale())
		default:
			allInt, exact = false, false
		}
	}
	switch {
	case allInt:
		return types.Int64
	case exact:
		return types.MustCreateDecimalType(65, scale)
	}
	return types.Float64
}

// newRound is ROUND: of a DOUBLE (or a string) MySQL rounds half to even
// (the C library's rint); exact values keep GMS's half away from zero.
func newRound(args ...sql.Expression) (sql.Expression, error) {
	if len(args) < 1 || len(args) > 2 {
		return function.NewRound(args...)
	}
	switch classOf(args[0].Type()) {
	case clsFloat, clsString:
	case clsDec, clsInt:
		return newExactRound(args), nil
	default:
		return function.NewRound(args...)
	}
	return &scalar{name: "round", args: args, typ: func([]sql.Expression) sql.Type { return types.Float64 },
		eval: func(ctx *sql.Context, s *scalar, v []any) (any, error) {
			f := toNum(v[0], s.args[0].Type()).float()
			places := int64(0)
			if len(v) > 1 {
				n := toNum(v[1], s.args[1].Type())
				switch n.kind {
				case kInt:
					places = n.i
				case kDec, kFloat:
					places = int64(math.Round(n.float()))
				default:
					return nil, nil
				}
			}
			places = min(max(places, -308), 308)
			if places >= 0 {
				p := math.Pow(10, float64(places))
				if r := math.RoundToEven(f*p) / p; !math.IsInf(f*p, 0) && !math.IsNaN(r) {
					return r, nil
				}
				return f, nil
			}
			p := math.Pow(10, float64(-places))
			return math.RoundToEven(f/p) * p, nil
		}}, nil
}

// hasDecimal reports whether e has a DECIMAL-typed part.
func hasDecimal(e sql.Expression) bool {
	found := false
	sql.Inspect(e, func(x sql.Expression) bool {
		if x != nil && decimalType(x.Type()) != nil {
			found = true
		}
		return !found
	})
	return found
}

// newExactRound is ROUND of an integer or DECIMAL: half away from zero, the
// result a BIGINT (integers) or a DECIMAL with min(scale, places) digits.
func newExactRound(args []sql.Expression) sql.Expression {
	typ := func(a []sql.Expression) sql.Type {
		if isInt(a[0].Type()) {
			return types.Int64
		}
		scale := 0
		if len(a) > 1 {
			scale = -1
			if lit, ok := a[1].(*expression.Literal); ok {
				if n := toNum(lit.Value(), lit.Type()); n.kind == kInt {
					scale = int(max(0, min(n.i, 30)))
				}
			}
		}
		return numericResult(a[0].Type(), scale)
	}
	return &scalar{name: "round", exact: true, args: args, typ: typ, eval: func(ctx *sql.Context, s *scalar, v []any) (any, error) {
		n := toNum(v[0], s.args[0].Type())
		places := int64(0)
		if len(v) > 1 {
			p := toNum(v[1], s.args[1].Type())
			switch p.kind {
			case kInt:
				places = p.i
			case kDec, kFloat:
				places = int64(math.Round(p.float()))
			default:
				return nil, nil
			}
		}
		places = min(max(places, -70), 30)
		d := n.dec().Round(int32(places))
		if isInt(s.Type()) {
			if !d.BigInt().IsInt64() {
				return nil, errOutOfRange("BIGINT", s)
			}
			return d.IntPart(), nil
		}
		return d, nil
	}}
}
