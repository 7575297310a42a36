package provider

import (
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// TestStrictFastPath checks the strict check's fast path against the full
// check on random numeric text and integers for integer and DECIMAL
// columns: whatever the fast path accepts, the full check accepts too, and
// it accepts the plain values LOAD DATA brings (so it is used).
func TestStrictFastPath(t *testing.T) {
	seed := time.Now().UnixNano()
	r := rand.New(rand.NewSource(seed))
	ctx := sql.NewEmptyContext()
	colTypes := []sql.Type{types.Int8, types.Int16, types.Int24, types.Int32, types.Int64,
		types.Uint8, types.Uint16, types.Uint24, types.Uint32, types.Uint64,
		types.MustCreateDecimalType(12, 2), types.MustCreateDecimalType(5, 0), types.MustCreateDecimalType(4, 4),
		types.MustCreateDecimalType(65, 30), types.MustCreateDecimalType(3, 1)}
	alphabet := "0123456789000999-+. e"
	fast := 0
	for range 200000 {
		ct := colTypes[r.Intn(len(colTypes))]
		var v any
		switch r.Intn(3) {
		case 0:
			var b strings.Builder
			for range 1 + r.Intn(22) {
				b.WriteByte(alphabet[r.Intn(len(alphabet))])
			}
			v = b.String()
		case 1:
			v = strings.Repeat("9", 1+r.Intn(20))
			if r.Intn(2) == 0 {
				v = "-" + v.(string)
			}
		default:
			v = r.Int63() >> r.Intn(63)
			if r.Intn(2) == 0 {
				v = -v.(int64)
			}
		}
		col := &sql.Column{Name: "c", Type: ct}
		if strictFastOK(ct, v) {
			fast++
			if err := checkStrictFull(ctx, col, v, 1); err != nil {
				t.Fatalf("seed %d: %v into %s: the fast path accepts it, the full check says %v", seed, v, ct, err)
			}
		}
	}
	for _, c := range []struct {
		t sql.Type
		v any
	}{{types.Int64, "98102"}, {types.Int64, int64(-5)}, {types.MustCreateDecimalType(12, 2), "9019.72"}, {types.MustCreateDecimalType(12, 2), "-0.5"}} {
		if !strictFastOK(c.t, c.v) {
			t.Errorf("%v into %s takes the slow path", c.v, c.t)
		}
	}
	if fast == 0 {
		t.Fatalf("seed %d: no value took the fast path", seed)
	}
}
