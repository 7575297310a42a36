package schema

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Decimal helpers mirroring org.apache.paimon.data.Decimal (exact
// arithmetic, Java BigDecimal semantics with RoundingMode.HALF_UP).

var bigTen = big.NewInt(10)

// Pow10 holds 10^0 .. 10^18, the powers of ten an int64 holds.
var Pow10 = func() [19]int64 {
	var p [19]int64
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// bigPow10s holds 10^0 .. 10^38 (read-only after init).
var bigPow10s = func() [39]*big.Int {
	var p [39]*big.Int
	p[0] = big.NewInt(1)
	for i := 1; i < len(p); i++ {
		p[i] = new(big.Int).Mul(p[i-1], bigTen)
	}
	return p
}()

// BigPow10 returns 10^n: for 0 <= n <= 38 (every decimal precision) a shared
// value the caller must not modify.
func BigPow10(n int) *big.Int {
	if n >= 0 && n < len(bigPow10s) {
		return bigPow10s[n]
	}
	return new(big.Int).Exp(bigTen, big.NewInt(int64(n)), nil)
}

// DecimalFromUnscaled returns unscaled × 10^-scale (compact when it fits an int64).
func DecimalFromUnscaled(unscaled *big.Int, scale int) Decimal {
	if unscaled.IsInt64() {
		return Decimal{Compact: unscaled.Int64(), Scale: int32(scale)}
	}
	return Decimal{Big: new(big.Int).Set(unscaled), Scale: int32(scale)}
}

// DecimalFromInt64 returns unscaled × 10^-scale.
func DecimalFromInt64(unscaled int64, scale int) Decimal {
	return Decimal{Compact: unscaled, Scale: int32(scale)}
}

// Unscaled returns the unscaled value as a new big.Int.
func (d Decimal) Unscaled() *big.Int {
	if d.Big != nil {
		return new(big.Int).Set(d.Big)
	}
	return big.NewInt(d.Compact)
}

// IsCompact reports whether the unscaled value is held in Compact.
func (d Decimal) IsCompact() bool { return d.Big == nil }

// Sign returns -1, 0 or +1.
func (d Decimal) Sign() int {
	if d.Big != nil {
		return d.Big.Sign()
	}
	switch {
	case d.Compact < 0:
		return -1
	case d.Compact > 0:
		return 1
	}
	return 0
}

// DecimalFromString parses decimal text exactly ("-12.345", "1e3", "+.5")
// and brings it to DECIMAL(precision, scale) with HALF_UP rounding. It
// fails when the text is not a number or the value needs more than
// precision digits (where Java's Decimal.fromBigDecimal returns null).
func DecimalFromString(s string, precision, scale int) (Decimal, error) {
	unscaled, sc, err := parseDecimalText(strings.TrimSpace(s))
	if err != nil {
		return Decimal{}, fmt.Errorf("%w: decimal %q: %v", ErrInvalidValue, s, err)
	}
	d := DecimalFromUnscaled(unscaled, sc)
	return d.Rescale(precision, scale)
}

func parseDecimalText(s string) (*big.Int, int, error) {
	if s == "" {
		return nil, 0, fmt.Errorf("empty")
	}
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant = s[:i]
		e, err := strconv.Atoi(s[i+1:])
		if err != nil || e > 1000 || e < -1000 {
			return nil, 0, fmt.Errorf("bad exponent")
		}
		exp = e
	}
	neg := false
	if mant != "" && (mant[0] == '+' || mant[0] == '-') {
		neg = mant[0] == '-'
		mant = mant[1:]
	}
	intPart, frac := mant, ""
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		intPart, frac = mant[:i], mant[i+1:]
	}
	digits := intPart + frac
	if digits == "" || len(digits) > 1000 {
		return nil, 0, fmt.Errorf("no digits")
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return nil, 0, fmt.Errorf("invalid character %q", digits[i])
		}
	}
	v, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return nil, 0, fmt.Errorf("not a number")
	}
	if neg {
		v.Neg(v)
	}
	return v, len(frac) - exp, nil
}

// Rescale brings d to DECIMAL(precision, scale): the scale is changed with
// HALF_UP rounding (BigDecimal.setScale(scale, HALF_UP)); an error wrapping
// ErrInvalidValue is returned when the result needs more than precision
// digits.
func (d Decimal) Rescale(precision, scale int) (Decimal, error) {
	if precision < 1 || precision > MaxDecimalPrecision || scale < 0 || scale > precision {
		return Decimal{}, fmt.Errorf("%w: invalid DECIMAL(%d, %d)", ErrInvalidValue, precision, scale)
	}
	diff := scale - int(d.Scale)
	switch {
	case diff > precision && d.Sign() != 0:
		// At least diff+1 digits: no need to build 10^diff to know.
		return Decimal{}, fmt.Errorf("%w: %s does not fit DECIMAL(%d, %d)", ErrInvalidValue, d.String(), precision, scale)
	case diff < 0 && -diff > d.digitsAtMost():
		// |d| < 10^-diff / 10 of a unit of the new scale: rounds to zero.
		return Decimal{Scale: int32(scale)}, nil
	}
	r := d.setScale(scale)
	if !r.Fits(precision) {
		return Decimal{}, fmt.Errorf("%w: %s does not fit DECIMAL(%d, %d)", ErrInvalidValue, r.String(), precision, scale)
	}
	return r, nil
}

// Fits reports whether the unscaled value has at most precision digits
// (|unscaled| < 10^precision), as a DECIMAL(precision, d.Scale) requires.
func (d Decimal) Fits(precision int) bool {
	if d.Big == nil {
		if precision > 18 {
			return true
		}
		return d.Compact < Pow10[precision] && d.Compact > -Pow10[precision]
	}
	return d.Big.CmpAbs(BigPow10(precision)) < 0
}

// digitsAtMost bounds Digits from above without formatting: |unscaled| <
// 2^bitlen <= 8^(bitlen/3+1) < 10^(bitlen/3+1).
func (d Decimal) digitsAtMost() int {
	if d.Big == nil {
		return 19
	}
	return d.Big.BitLen()/3 + 1
}

// setScale changes the scale with HALF_UP rounding, without a precision check.
func (d Decimal) setScale(scale int) Decimal {
	diff := scale - int(d.Scale)
	switch {
	case diff == 0:
		return d
	case diff > 0:
		if d.Big == nil && diff < len(Pow10) {
			ok, v := bitsMul(d.Compact, Pow10[diff])
			if ok {
				return Decimal{Compact: v, Scale: int32(scale)}
			}
		}
		u := d.Unscaled()
		u.Mul(u, BigPow10(diff))
		return DecimalFromUnscaled(u, scale)
	default:
		n := -diff
		if d.Big == nil && n < len(Pow10) {
			p := Pow10[n]
			q, r := d.Compact/p, d.Compact%p
			if r < 0 {
				r = -r
			}
			if r*2 >= p { // r < p <= 10^18, so 2r fits
				if d.Compact < 0 {
					q--
				} else {
					q++
				}
			}
			return Decimal{Compact: q, Scale: int32(scale)}
		}
		u := d.Unscaled()
		p := BigPow10(n)
		q, r := new(big.Int).QuoRem(u, p, new(big.Int))
		r.Abs(r).Lsh(r, 1)
		if r.Cmp(p) >= 0 {
			if u.Sign() < 0 {
				q.Sub(q, big.NewInt(1))
			} else {
				q.Add(q, big.NewInt(1))
			}
		}
		return DecimalFromUnscaled(q, scale)
	}
}

// bitsMul returns a*b and whether it did not overflow.
func bitsMul(a, b int64) (bool, int64) {
	if a == 0 || b == 0 {
		return true, 0
	}
	c := a * b
	if c/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return false, 0
	}
	return true, c
}

// String returns the plain decimal text (BigDecimal.toPlainString), with
// exactly Scale fraction digits: "12.30", "-0.01", "5".
func (d Decimal) String() string { return string(d.Append(nil)) }

// Cmp compares the numeric values of d and o (scales may differ): -1, 0, +1.
func (d Decimal) Cmp(o Decimal) int {
	if d.Scale == o.Scale && d.Big == nil && o.Big == nil {
		switch {
		case d.Compact < o.Compact:
			return -1
		case d.Compact > o.Compact:
			return 1
		}
		return 0
	}
	if ds, os := d.Sign(), o.Sign(); ds != os {
		if ds < os {
			return -1
		}
		return 1
	}
	a, b := d.Unscaled(), o.Unscaled()
	switch {
	case d.Scale < o.Scale:
		a.Mul(a, BigPow10(int(o.Scale-d.Scale)))
	case d.Scale > o.Scale:
		b.Mul(b, BigPow10(int(d.Scale-o.Scale)))
	}
	return a.Cmp(b)
}

// Float64 returns the nearest float64.
func (d Decimal) Float64() float64 {
	if d.Big == nil && d.Scale >= 0 && d.Scale < int32(len(Pow10)) && d.Compact > -(1<<53) && d.Compact < 1<<53 {
		return float64(d.Compact) / float64(Pow10[d.Scale])
	}
	r := new(big.Rat)
	if d.Scale >= 0 {
		r.SetFrac(d.Unscaled(), BigPow10(int(d.Scale)))
	} else {
		r.SetInt(new(big.Int).Mul(d.Unscaled(), BigPow10(int(-d.Scale))))
	}
	f, _ := r.Float64()
	return f
}

// DecimalFromFloat64 converts f like Java's BigDecimal.valueOf(double) (the
// shortest decimal text that round-trips) and rescales it HALF_UP.
func DecimalFromFloat64(f float64, precision, scale int) (Decimal, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return Decimal{}, fmt.Errorf("%w: %v is not a decimal", ErrInvalidValue, f)
	}
	return DecimalFromString(strconv.FormatFloat(f, 'g', -1, 64), precision, scale)
}
