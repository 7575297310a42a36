package sqlengine

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/provider"
)

// TestPointScratchEqualsResultOf: a direct point answer made in a
// connection's reused buffers (pointScratch) is byte for byte what
// resultOf makes with fresh ones, answer after answer: rows of many types,
// NULLs, strings longer than the buffer, 0–3 rows, and column definitions
// that the protocol layer changed in place after the previous answer.
func TestPointScratchEqualsResultOf(t *testing.T) {
	ctx := sql.NewEmptyContext()
	sch := sql.Schema{
		{Name: "id", Type: types.Int64},
		{Name: "note", Type: types.LongText},
		{Name: "amt", Type: types.MustCreateDecimalType(12, 2)},
		{Name: "ts", Type: types.MustCreateDatetimeType(querypb.Type_DATETIME, 3)},
		{Name: "f", Type: types.Float64},
		{Name: "d", Type: types.Date},
		{Name: "ok", Type: types.Boolean},
	}
	fields := make([]*querypb.Field, len(sch))
	for i, c := range sch {
		fields[i] = &querypb.Field{Name: c.Name, Type: c.Type.Type(), Table: "t", OrgTable: "t", Database: "db", OrgName: c.Name,
			ColumnLength: uint32(10 + i), Charset: 255, Decimals: uint32(i), Flags: uint32(i * 3)}
	}
	rng := rand.New(rand.NewPCG(7, 70))
	value := func(i int) any {
		if rng.IntN(5) == 0 {
			return nil
		}
		switch i {
		case 0:
			return rng.Int64() - rng.Int64()
		case 1:
			return strings.Repeat(string(rune('a'+rng.IntN(26))), rng.IntN(3)*rng.IntN(400))
		case 2:
			return decimal.New(rng.Int64N(1e12)-5e11, -2)
		case 3:
			return time.UnixMilli(rng.Int64N(4e12)).UTC()
		case 4:
			return rng.NormFloat64() * 1e6
		case 5:
			return time.Date(1990+rng.IntN(60), time.Month(1+rng.IntN(12)), 1+rng.IntN(28), 0, 0, 0, 0, time.UTC)
		default:
			return int8(rng.IntN(2))
		}
	}
	var s pointScratch
	for n := range 2000 {
		res := &provider.PointResult{Schema: sch}
		for range rng.IntN(4) {
			row := make(sql.Row, len(sch))
			for i := range row {
				row[i] = value(i)
			}
			res.Rows = append(res.Rows, row)
		}
		want, err := resultOf(ctx, fields, res)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.result(ctx, fields, res)
		if err != nil {
			t.Fatal(err)
		}
		if !sameResult(got, want) || fmt.Sprint(got.Rows) != fmt.Sprint(want.Rows) {
			t.Fatalf("answer %d:\n got %v\nwant %v", n, got.Rows, want.Rows)
		}
		// The protocol layer adjusts the definitions it sends in place.
		for _, f := range got.Fields {
			f.Charset, f.Flags, f.ColumnLength = 63, f.Flags|128, 1
		}
	}
	if got := fields[0].Charset; got != 255 {
		t.Fatalf("the shape's column definitions were changed: charset %d", got)
	}
}
