package provider

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/internal/schema"
)

// loadTestTypes are the Paimon types whose LOAD values have a fast path,
// with their edges (precision, scale, length).
var loadTestTypes = []schema.DataType{
	{Root: schema.TypeTinyInt, Nullable: true},
	{Root: schema.TypeSmallInt, Nullable: true},
	{Root: schema.TypeInt, Nullable: true},
	{Root: schema.TypeBigInt, Nullable: true},
	{Root: schema.TypeDecimal, Precision: 12, Scale: 2, Nullable: true},
	{Root: schema.TypeDecimal, Precision: 18, Scale: 0, Nullable: true},
	{Root: schema.TypeDecimal, Precision: 5, Scale: 5, Nullable: true},
	{Root: schema.TypeDouble, Nullable: true},
	{Root: schema.TypeVarChar, Length: 8, Nullable: true},
	{Root: schema.TypeChar, Length: 3, Nullable: true},
	{Root: schema.TypeVarChar, Length: schema.MaxLength, Nullable: true},
	{Root: schema.TypeDate, Nullable: true},
	{Root: schema.TypeTimestamp, Precision: 0, Nullable: true},
	{Root: schema.TypeTimestamp, Precision: 3, Nullable: true},
	{Root: schema.TypeTimestamp, Precision: 6, Nullable: true},
}

// checkLoadFast checks the LOAD fast path on text for column type pt:
// when it takes the value, the INSERT path's steps (the reader's value,
// the strict check, GMS's conversion, the value model) accept the text
// and give the same value.
func checkLoadFast(t *testing.T, ctx *sql.Context, pt schema.DataType, text string) {
	st, err := sqlType(&pt)
	if err != nil {
		t.Fatal(err)
	}
	c := loadCol{col: &sql.Column{Name: "c", Type: st, Nullable: true}, field: 0, root: pt.Root}
	c.setKind(&pt)
	if c.kind == loadSlow {
		t.Fatalf("%s has no fast path", pt.String())
	}
	v, ok := c.fast(text)
	if !ok {
		return
	}
	gv, err := c.gmsValue(ctx, []LoadField{{Text: text}})
	if err != nil {
		t.Fatalf("%s %q: reader value: %v", pt.String(), text, err)
	}
	if err := checkStrict(ctx, c.col, gv, 1); err != nil {
		t.Fatalf("%s %q: fast path took %v, the strict check refuses: %v", pt.String(), text, v, err)
	}
	conv, inRange, err := st.Convert(ctx, gv)
	if err != nil || !inRange {
		t.Fatalf("%s %q: fast path took %v, GMS's conversion refuses: %v (in range %v)", pt.String(), text, v, err, inRange)
	}
	want, err := fromSQL(&pt, conv)
	if err != nil {
		t.Fatalf("%s %q: value model: %v", pt.String(), text, err)
	}
	if fmt.Sprintf("%T", want) != fmt.Sprintf("%T", v) || schema.Compare(&pt, want, v) != 0 {
		t.Fatalf("%s %q: fast path %#v, INSERT path %#v", pt.String(), text, v, want)
	}
}

// FuzzLoadFastPath: any text the LOAD fast path converts, the INSERT
// path's steps accept and convert to the same value.
func FuzzLoadFastPath(f *testing.F) {
	for _, s := range []string{"0", "-0", "127", "-128", "128", "007", "12.50", "1.234", "-0.00001", "0.5",
		"99999999999999999", "2024-02-29", "2023-02-29", "2024-01-01 10:00:00.123", "1000-01-01 00:00:00",
		"é漢", "abcdefghi", "1e3", "+5", " 5", "1.", ".5", "\xff"} {
		f.Add(s, uint8(0))
	}
	ctx := sql.NewEmptyContext()
	f.Fuzz(func(t *testing.T, text string, k uint8) {
		checkLoadFast(t, ctx, loadTestTypes[int(k)%len(loadTestTypes)], text)
	})
}

// TestLoadFastPathModel is FuzzLoadFastPath over random texts built from
// numbers, dates and strings near each type's edges.
func TestLoadFastPathModel(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	ctx := sql.NewEmptyContext()
	digits := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteByte(byte('0' + r.Intn(10)))
		}
		return b.String()
	}
	taken := 0
	for i := 0; i < 200_000; i++ {
		var text string
		switch r.Intn(6) {
		case 0:
			text = digits(1 + r.Intn(20))
		case 1:
			text = "-" + digits(1+r.Intn(20))
		case 2:
			text = digits(1+r.Intn(12)) + "." + digits(1+r.Intn(8))
		case 3:
			text = fmt.Sprintf("%04d-%02d-%02d", r.Intn(10000), r.Intn(14), r.Intn(33))
		case 4:
			text = fmt.Sprintf("%04d-%02d-%02d %02d:%02d:%02d", 900+r.Intn(9200), 1+r.Intn(12), 1+r.Intn(31), r.Intn(25), r.Intn(61), r.Intn(61))
			if r.Intn(2) == 0 {
				text += "." + digits(1+r.Intn(9))
			}
		default:
			text = strings.Repeat("é", r.Intn(5)) + digits(r.Intn(8))
		}
		pt := loadTestTypes[r.Intn(len(loadTestTypes))]
		checkLoadFast(t, ctx, pt, text)
		st, _ := sqlType(&pt)
		c := loadCol{col: &sql.Column{Type: st}, root: pt.Root}
		c.setKind(&pt)
		if _, ok := c.fast(text); ok {
			taken++
		}
	}
	if taken < 20_000 {
		t.Errorf("the fast path took only %d of 200,000 values", taken)
	}
}

// TestCanonicalDatetimeModel: canonical DATE/DATETIME text read by
// canonicalDatetime passes the strict check and converts, in GMS, to the
// same value as the text itself.
func TestCanonicalDatetimeModel(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	ctx := sql.NewEmptyContext()
	taken := 0
	for i := 0; i < 100_000; i++ {
		pt := schema.DataType{Root: schema.TypeTimestamp, Precision: r.Intn(7), Nullable: true}
		if r.Intn(3) == 0 {
			pt = schema.DataType{Root: schema.TypeDate, Nullable: true}
		}
		st, err := sqlType(&pt)
		if err != nil {
			t.Fatal(err)
		}
		text := fmt.Sprintf("%04d-%02d-%02d", 900+r.Intn(9200), r.Intn(14), r.Intn(33))
		if r.Intn(3) > 0 {
			text += fmt.Sprintf(" %02d:%02d:%02d", r.Intn(25), r.Intn(61), r.Intn(61))
			if r.Intn(2) == 0 {
				text += "." + fmt.Sprintf("%09d", r.Intn(1000000000))[:1+r.Intn(9)]
			}
		}
		tm, ok := canonicalDatetime(st, text)
		if !ok {
			continue
		}
		taken++
		if err := checkStrict(ctx, &sql.Column{Name: "c", Type: st}, text, 1); err != nil {
			t.Fatalf("%s %q: canonical, but the strict check refuses: %v", st, text, err)
		}
		want, _, err := st.Convert(ctx, text)
		if err != nil {
			t.Fatalf("%s %q: canonical, but GMS refuses: %v", st, text, err)
		}
		got, _, err := st.Convert(ctx, tm)
		if err != nil || got != want {
			t.Fatalf("%s %q: GMS converts the text to %v, the canonical time to %v (%v)", st, text, want, got, err)
		}
	}
	if taken < 10_000 {
		t.Errorf("only %d of 100,000 texts were canonical", taken)
	}
}
