package binaryrow

import (
	"errors"
	"math/big"
	"math/rand"
	"testing"

	"github.com/lakesql/lakesql/internal/schema"
)

// TestUnscaledAtIsRescale: the writer's unscaled value is schema's one
// rescale, split into int64 and big.Int, and a value that does not fit is
// an ErrValue error.
func TestUnscaledAtIsRescale(t *testing.T) {
	r := rand.New(rand.NewSource(rand.Int63()))
	var big64, wide, bad int
	for i := 0; i < 50000; i++ {
		u := new(big.Int).Rand(r, schema.BigPow10(r.Intn(40)))
		if r.Intn(2) == 0 {
			u.Neg(u)
		}
		d := schema.DecimalFromUnscaled(u, r.Intn(50)-10)
		precision := 1 + r.Intn(schema.MaxDecimalPrecision)
		scale := r.Intn(precision + 1)
		want, werr := d.Rescale(precision, scale)
		gu, gb, err := unscaledAt(d, precision, scale)
		switch {
		case werr != nil:
			bad++
			if err == nil || !errors.Is(err, ErrValue) {
				t.Fatalf("%v to DECIMAL(%d, %d): %v, want an ErrValue error", d, precision, scale, err)
			}
		case err != nil:
			t.Fatalf("%v to DECIMAL(%d, %d): %v", d, precision, scale, err)
		case gb == nil:
			big64++
			if want.Unscaled().Cmp(big.NewInt(gu)) != 0 {
				t.Fatalf("%v to DECIMAL(%d, %d) = %d, want %v", d, precision, scale, gu, want)
			}
		default:
			wide++
			if gb.IsInt64() || gb.Cmp(want.Unscaled()) != 0 {
				t.Fatalf("%v to DECIMAL(%d, %d) = big %v, want %v", d, precision, scale, gb, want)
			}
		}
	}
	if big64 < 1000 || wide < 1000 || bad < 1000 {
		t.Fatalf("cases not covered: %d int64, %d big, %d not fitting", big64, wide, bad)
	}
}
