package kv

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"

	"github.com/lakesql/lakesql/internal/schema"
)

// Decimal arithmetic with the exact semantics of Java Paimon's
// org.apache.paimon.data.Decimal and DecimalUtils, as used by the sum and
// product aggregate functions:
//
//   - add/subtract of two compact decimals (precision <= 18) of equal scale
//     is a plain int64 operation when it does not overflow int64, and the
//     result is NOT checked against the precision (Java returns
//     Decimal.fromUnscaledLong as is);
//   - every other case goes through BigDecimal and fromBigDecimal: the result
//     is rounded HALF_UP to the column scale and becomes NULL when it has more
//     digits than the column precision.

const maxCompactPrecision = 18

var bigTen = big.NewInt(10)

func pow10(n int) *big.Int {
	return new(big.Int).Exp(bigTen, big.NewInt(int64(n)), nil)
}

func decUnscaled(d schema.Decimal) *big.Int {
	if d.Big != nil {
		return d.Big
	}
	return big.NewInt(d.Compact)
}

// decFromUnscaled builds a canonical Decimal (Compact when it fits int64).
func decFromUnscaled(u *big.Int, scale int32) schema.Decimal {
	if u.IsInt64() {
		return schema.Decimal{Compact: u.Int64(), Scale: scale}
	}
	return schema.Decimal{Big: u, Scale: scale}
}

// bigPrecision mirrors BigDecimal.precision(): the number of decimal digits
// of the unscaled value, 1 for zero.
func bigPrecision(u *big.Int) int {
	if u.Sign() == 0 {
		return 1
	}
	if u.IsInt64() {
		v := u.Int64()
		var x uint64
		if v < 0 {
			x = uint64(-v)
		} else {
			x = uint64(v)
		}
		n := 0
		for x > 0 {
			x /= 10
			n++
		}
		return n
	}
	s := new(big.Int).Abs(u).String()
	return len(s)
}

// roundHalfUp divides num by den (den > 0) rounding half away from zero.
func roundHalfUp(num, den *big.Int) *big.Int {
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	if r.Sign() == 0 {
		return q
	}
	r2 := new(big.Int).Abs(r)
	r2.Lsh(r2, 1)
	if r2.Cmp(den) >= 0 {
		if num.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

// decFromBig mirrors Decimal.fromBigDecimal: rescale unscaled×10^-fromScale
// to scale with HALF_UP and return ok=false (NULL) on precision overflow.
func decFromBig(u *big.Int, fromScale int32, precision int, scale int32) (schema.Decimal, bool) {
	switch {
	case fromScale < scale:
		u = new(big.Int).Mul(u, pow10(int(scale-fromScale)))
	case fromScale > scale:
		u = roundHalfUp(u, pow10(int(fromScale-scale)))
	}
	if bigPrecision(u) > precision {
		return schema.Decimal{}, false
	}
	return decFromUnscaled(u, scale), true
}

func asDecimal(v any) (schema.Decimal, error) {
	d, ok := v.(schema.Decimal)
	if !ok {
		return d, fmt.Errorf("%w: value of Go type %T for type DECIMAL", ErrCorrupt, v)
	}
	return d, nil
}

// decAddSub mirrors DecimalUtils.add / DecimalUtils.subtract.
func decAddSub(x, y schema.Decimal, precision int, scale int32, sub bool) any {
	if x.Big == nil && y.Big == nil && x.Scale == y.Scale && precision <= maxCompactPrecision {
		var r int64
		var overflow bool
		if sub {
			r = x.Compact - y.Compact
			overflow = (x.Compact >= 0) != (y.Compact >= 0) && (r >= 0) != (x.Compact >= 0)
		} else {
			r = x.Compact + y.Compact
			overflow = (x.Compact >= 0) == (y.Compact >= 0) && (r >= 0) != (x.Compact >= 0)
		}
		if !overflow {
			return schema.Decimal{Compact: r, Scale: scale}
		}
	}
	a, b := decUnscaled(x), decUnscaled(y)
	s := x.Scale
	switch {
	case x.Scale < y.Scale:
		a = new(big.Int).Mul(a, pow10(int(y.Scale-x.Scale)))
		s = y.Scale
	case x.Scale > y.Scale:
		b = new(big.Int).Mul(b, pow10(int(x.Scale-y.Scale)))
	}
	r := new(big.Int)
	if sub {
		r.Sub(a, b)
	} else {
		r.Add(a, b)
	}
	d, ok := decFromBig(r, s, precision, scale)
	if !ok {
		return nil
	}
	return d
}

// decMul mirrors BigDecimal.multiply followed by Decimal.fromBigDecimal.
func decMul(x, y schema.Decimal, precision int, scale int32) any {
	var r *big.Int
	if x.Big == nil && y.Big == nil {
		hi, lo := bits.Mul64(uint64(abs64(x.Compact)), uint64(abs64(y.Compact)))
		if hi == 0 && lo <= math.MaxInt64 && x.Compact != math.MinInt64 && y.Compact != math.MinInt64 {
			v := int64(lo)
			if (x.Compact < 0) != (y.Compact < 0) {
				v = -v
			}
			r = big.NewInt(v)
		}
	}
	if r == nil {
		r = new(big.Int).Mul(decUnscaled(x), decUnscaled(y))
	}
	d, ok := decFromBig(r, x.Scale+y.Scale, precision, scale)
	if !ok {
		return nil
	}
	return d
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// decDiv mirrors BigDecimal.divide(BigDecimal) (exact quotient, an
// ArithmeticException when it does not terminate or the divisor is zero)
// followed by Decimal.fromBigDecimal.
func decDiv(x, y schema.Decimal, precision int, scale int32) (any, error) {
	a, b := decUnscaled(x), decUnscaled(y)
	if b.Sign() == 0 {
		if a.Sign() == 0 {
			return nil, fmt.Errorf("%w: decimal division undefined", ErrArithmetic)
		}
		return nil, fmt.Errorf("%w: decimal division by zero", ErrArithmetic)
	}
	// x/y = (a/b) × 10^(y.Scale - x.Scale)
	num, den := new(big.Int).Set(a), new(big.Int).Set(b)
	if e := int(y.Scale - x.Scale); e > 0 {
		num.Mul(num, pow10(e))
	} else if e < 0 {
		den.Mul(den, pow10(-e))
	}
	if den.Sign() < 0 {
		num.Neg(num)
		den.Neg(den)
	}
	g := new(big.Int).GCD(nil, nil, new(big.Int).Abs(num), den)
	if g.Sign() != 0 {
		num.Quo(num, g)
		den.Quo(den, g)
	}
	// Terminating iff the reduced denominator has no prime factors but 2 and 5.
	rest := new(big.Int).Set(den)
	two, five, m := big.NewInt(2), big.NewInt(5), new(big.Int)
	for {
		if m.Mod(rest, two); m.Sign() != 0 {
			break
		}
		rest.Quo(rest, two)
	}
	for {
		if m.Mod(rest, five); m.Sign() != 0 {
			break
		}
		rest.Quo(rest, five)
	}
	if rest.Cmp(big.NewInt(1)) != 0 {
		return nil, fmt.Errorf("%w: non-terminating decimal expansion; no exact representable decimal result", ErrArithmetic)
	}
	u := roundHalfUp(new(big.Int).Mul(num, pow10(int(scale))), den)
	if bigPrecision(u) > precision {
		return nil, nil
	}
	return decFromUnscaled(u, scale), nil
}

// decNeg mirrors Decimal.fromBigDecimal(d.toBigDecimal().negate(), p, s).
func decNeg(x schema.Decimal, precision int, scale int32) any {
	d, ok := decFromBig(new(big.Int).Neg(decUnscaled(x)), x.Scale, precision, scale)
	if !ok {
		return nil
	}
	return d
}
