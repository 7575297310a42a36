package provider

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/lakesql/lakesql/internal/schema"
)

// literalValue is the value GMS's planner gives the SQL literal text of
// kind (0 integer, 1 number with a point, 2 number with an exponent,
// 3 string), as planbuilder.ConvertVal does; ok is false when it gives none.
func literalValue(ctx *sql.Context, text string, kind uint8) (any, bool) {
	switch kind % 4 {
	case 0:
		if i, err := strconv.ParseInt(text, 10, 8); err == nil {
			return int8(i), true
		}
		if i, err := strconv.ParseInt(text, 10, 16); err == nil {
			return int16(i), true
		}
		if i, err := strconv.ParseInt(text, 10, 32); err == nil {
			return int32(i), true
		}
		if i, err := strconv.ParseInt(text, 10, 64); err == nil {
			return i, true
		}
		if u, err := strconv.ParseUint(text, 10, 64); err == nil {
			return u, true
		}
		return nil, false
	case 1:
		if strings.Count(text, ".") != 1 {
			return nil, false
		}
		p, s := expression.GetDecimalPrecisionAndScale(text)
		dt, err := types.CreateDecimalType(p, s)
		if err != nil {
			return nil, false
		}
		d, _, err := dt.Convert(ctx, text)
		return d, err == nil
	case 2:
		f, err := strconv.ParseFloat(text, 64)
		return f, err == nil
	}
	return text, true
}

// checkValuesFast checks the INSERT … VALUES fast path on the literal
// value v for column type pt: when it takes the value, the INSERT path's
// steps (the strict check, GMS's conversion, the value model) accept it
// and give the same value.
func checkValuesFast(t *testing.T, ctx *sql.Context, pt schema.DataType, v any) bool {
	st, err := sqlType(&pt)
	if err != nil {
		t.Fatal(err)
	}
	c := loadCol{col: &sql.Column{Name: "c", Type: st, Nullable: true}, field: -1, root: pt.Root}
	c.setKind(&pt)
	got, ok := c.fastValue(v)
	if !ok {
		return false
	}
	gv := v
	if s, ok := v.(string); ok {
		if tm, ok := canonicalDatetime(st, s); ok {
			gv = tm
		}
	}
	if err := checkStrict(ctx, c.col, gv, 1); err != nil {
		t.Fatalf("%s %#v: fast path took %v, the strict check refuses: %v", pt.String(), v, got, err)
	}
	conv, inRange, err := st.Convert(ctx, gv)
	if err != nil || !inRange {
		t.Fatalf("%s %#v: fast path took %v, GMS's conversion refuses: %v (in range %v)", pt.String(), v, got, err, inRange)
	}
	want, err := fromSQL(&pt, conv)
	if err != nil {
		t.Fatalf("%s %#v: value model: %v", pt.String(), v, err)
	}
	if fmt.Sprintf("%T", want) != fmt.Sprintf("%T", got) || schema.Compare(&pt, want, got) != 0 {
		t.Fatalf("%s %#v: fast path %#v, INSERT path %#v", pt.String(), v, got, want)
	}
	return true
}

// FuzzInsertFastPath: any literal the INSERT … VALUES fast path converts,
// the INSERT path's steps accept and convert to the same value.
func FuzzInsertFastPath(f *testing.F) {
	for _, s := range []string{"0", "-0", "127", "-128", "128", "32768", "2147483648", "9223372036854775807",
		"12.50", "1.234", "-0.00001", "0.5", "-0.000", "99999999999999999.5", "1e3", "2.5e-3",
		"2024-02-29", "2023-02-29", "2024-01-01 10:00:00.123", "é漢", "abcdefghi", "\xff"} {
		for k := uint8(0); k < 4; k++ {
			f.Add(s, k, uint8(0))
		}
	}
	ctx := sql.NewEmptyContext()
	f.Fuzz(func(t *testing.T, text string, kind, k uint8) {
		if v, ok := literalValue(ctx, text, kind); ok {
			checkValuesFast(t, ctx, loadTestTypes[int(k)%len(loadTestTypes)], v)
		}
	})
}

// TestInsertFastPathModel is FuzzInsertFastPath over random literals near
// each type's edges.
func TestInsertFastPathModel(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	ctx := sql.NewEmptyContext()
	digits := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteByte(byte('0' + r.Intn(10)))
		}
		return b.String()
	}
	sign := func() string {
		if r.Intn(3) == 0 {
			return "-"
		}
		return ""
	}
	taken := 0
	for i := 0; i < 200_000; i++ {
		var text string
		kind := uint8(r.Intn(4))
		switch kind {
		case 0:
			text = sign() + digits(1+r.Intn(20))
		case 1:
			text = sign() + digits(1+r.Intn(19)) + "." + digits(1+r.Intn(8))
		case 2:
			text = sign() + digits(1+r.Intn(5)) + "e" + sign() + digits(1+r.Intn(3))
		default:
			switch r.Intn(3) {
			case 0:
				text = fmt.Sprintf("%04d-%02d-%02d", r.Intn(10000), r.Intn(14), r.Intn(33))
			case 1:
				text = fmt.Sprintf("%04d-%02d-%02d %02d:%02d:%02d", 900+r.Intn(9200), 1+r.Intn(12), 1+r.Intn(31), r.Intn(25), r.Intn(61), r.Intn(61))
				if r.Intn(2) == 0 {
					text += "." + digits(1+r.Intn(9))
				}
			default:
				text = strings.Repeat("é", r.Intn(5)) + digits(r.Intn(8))
			}
		}
		v, ok := literalValue(ctx, text, kind)
		if !ok {
			continue
		}
		if checkValuesFast(t, ctx, loadTestTypes[r.Intn(len(loadTestTypes))], v) {
			taken++
		}
	}
	if taken < 10_000 {
		t.Errorf("the fast path took only %d of 200,000 values", taken)
	}
}
