package schema_test

import (
	"errors"
	"math"
	"math/big"
	"math/rand"
	"testing"

	"github.com/lakesql/lakesql/internal/schema"
)

// halfUp is the model of Rescale's rounding: unscaled × 10^(to-from),
// rounded half away from zero (BigDecimal.setScale(to, HALF_UP)), computed
// on exact rationals.
func halfUp(unscaled *big.Int, from, to int) *big.Int {
	x := new(big.Rat).SetInt(unscaled)
	p := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(to-from))), nil))
	if to >= from {
		x.Mul(x, p)
	} else {
		x.Quo(x, p)
	}
	neg := x.Sign() < 0
	x.Abs(x)
	x.Add(x, big.NewRat(1, 2))
	q := new(big.Int).Quo(x.Num(), x.Denom()) // floor of a non-negative rational
	if neg {
		q.Neg(q)
	}
	return q
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// randomUnscaled draws an unscaled value of 0 to 45 digits, with the int64
// edges and halves (…5) made likely.
func randomUnscaled(r *rand.Rand) *big.Int {
	switch r.Intn(8) {
	case 0:
		return big.NewInt([]int64{0, 1, -1, math.MaxInt64, math.MinInt64, 5, -5, 15, -25, 999999999999999999}[r.Intn(10)])
	case 1:
		v := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(r.Intn(40))), nil)
		v.Mul(v, big.NewInt(int64(r.Intn(19)-9)))
		return v.Add(v, big.NewInt(int64(r.Intn(3)-1)))
	}
	digits := r.Intn(46)
	v := new(big.Int)
	for i := 0; i < digits; i++ {
		v.Mul(v, big.NewInt(10)).Add(v, big.NewInt(int64(r.Intn(10))))
	}
	if r.Intn(4) == 0 {
		v.Mul(v, big.NewInt(10)).Add(v, big.NewInt(5)) // a half at some scale
	}
	if r.Intn(2) == 0 {
		v.Neg(v)
	}
	return v
}

// TestDecimalRescaleRandom: the one rescale (used by values, casts and the
// BinaryRow writer) against exact rational arithmetic, over every precision
// and scale (also invalid ones), source scales from -45 to 60, compact and
// big unscaled values (also a big.Int holding a small value), and values
// that do not fit: an error wrapping ErrInvalidValue, never a panic.
func TestDecimalRescaleRandom(t *testing.T) {
	r := rand.New(rand.NewSource(rand.Int63()))
	var fits, overflows, invalid, rounded int
	for i := 0; i < 200000; i++ {
		u := randomUnscaled(r)
		from := r.Intn(106) - 45
		d := schema.Decimal{Big: new(big.Int).Set(u), Scale: int32(from)}
		if u.IsInt64() && r.Intn(4) != 0 {
			d = schema.DecimalFromInt64(u.Int64(), from)
		}
		precision := r.Intn(42) - 1
		scale := r.Intn(precision+4) - 2
		if i%5 == 0 && precision >= 1 && precision <= schema.MaxDecimalPrecision {
			scale = r.Intn(precision + 1)
		}
		got, err := d.Rescale(precision, scale)
		if precision < 1 || precision > schema.MaxDecimalPrecision || scale < 0 || scale > precision {
			invalid++
			if err == nil || !errors.Is(err, schema.ErrInvalidValue) {
				t.Fatalf("%v (scale %d) to DECIMAL(%d, %d): %v, want an invalid type error", u, from, precision, scale, err)
			}
			continue
		}
		want := halfUp(u, from, scale)
		if new(big.Int).Abs(want).Cmp(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(precision)), nil)) >= 0 {
			overflows++
			if err == nil || !errors.Is(err, schema.ErrInvalidValue) {
				t.Fatalf("%v (scale %d) to DECIMAL(%d, %d) = %v, want does-not-fit (%v)", u, from, precision, scale, got, want)
			}
			continue
		}
		fits++
		if err != nil {
			t.Fatalf("%v (scale %d) to DECIMAL(%d, %d): %v, want %v", u, from, precision, scale, err, want)
		}
		if got.Unscaled().Cmp(want) != 0 || int(got.Scale) != scale || !got.Fits(precision) {
			t.Fatalf("%v (scale %d) to DECIMAL(%d, %d) = %v scale %d, want %v", u, from, precision, scale, got.Unscaled(), got.Scale, want)
		}
		if scale < from && want.Sign() != 0 {
			rounded++
		}
	}
	if fits < 10000 || overflows < 10000 || invalid < 10000 || rounded < 1000 {
		t.Fatalf("cases not covered: %d fit, %d overflow, %d invalid types, %d rounded", fits, overflows, invalid, rounded)
	}
}
