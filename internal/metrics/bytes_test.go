package metrics

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestFormatBytes: the text read back (number × unit) is n within the
// rounding of one decimal, in the largest unit not above n (just below a
// unit, one decimal rounds up to 1024.0 of the smaller one).
func TestFormatBytes(t *testing.T) {
	units := map[string]float64{"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range append([]int64{0, 1, 1023, 1024, 1<<20 - 1, 1 << 20, 1 << 30, 1 << 40}, r.Int64N(1<<42), r.Int64N(1<<22), r.Int64N(1<<12)) {
		num, unit, ok := strings.Cut(FormatBytes(n), " ")
		f, err := strconv.ParseFloat(num, 64)
		if !ok || err != nil || units[unit] == 0 {
			t.Fatalf("FormatBytes(%d) = %q", n, FormatBytes(n))
		}
		if math.Abs(f*units[unit]-float64(n)) > 0.05*units[unit] || (unit != "GiB" && f > 1024) || (unit != "B" && f < 1) {
			t.Errorf("FormatBytes(%d) = %q", n, FormatBytes(n))
		}
	}
}
