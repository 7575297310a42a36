package provider

import (
	"fmt"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/internal/schema"
)

// TestColumnBound: a bound lands on the column's values exactly, or between
// two of them (floor, ceil), never rounded or clamped onto one.
func TestColumnBound(t *testing.T) {
	intT := &schema.DataType{Root: schema.TypeInt}
	decT := &schema.DataType{Root: schema.TypeDecimal, Precision: 6, Scale: 2}
	dateT := &schema.DataType{Root: schema.TypeDate}
	tsT := &schema.DataType{Root: schema.TypeTimestamp, Precision: 3}
	day := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	str := func(b colBound) string {
		if b.exact {
			return fmt.Sprintf("=%v", b.val)
		}
		return fmt.Sprintf("(%v,%v)", b.floor, b.ceil)
	}
	for _, c := range []struct {
		t    *schema.DataType
		v    any
		want string
	}{
		{intT, int64(5), "=5"},
		{intT, int64(3000000000), "(2147483647,<nil>)"},
		{intT, int64(-3000000000), "(<nil>,-2147483648)"},
		{intT, 5.5, "(5,6)"},
		{intT, -5.5, "(-6,-5)"},
		{intT, decimal.RequireFromString("7.000"), "=7"},
		{intT, uint64(1 << 63), "(2147483647,<nil>)"},
		{decT, decimal.RequireFromString("1.234"), "(1.23,1.24)"},
		{decT, decimal.RequireFromString("-1.234"), "(-1.24,-1.23)"},
		{decT, decimal.RequireFromString("1.230"), "=1.23"},
		{decT, decimal.RequireFromString("10000"), "(9999.99,<nil>)"},
		{decT, int64(5), "=5.00"},
		{dateT, day, "=2020-01-01"},
		{dateT, day.Add(time.Hour), "(2020-01-01,2020-01-02)"},
		{tsT, day.Add(123 * time.Millisecond), "=" + fmt.Sprint(schema.TimestampFromTime(day.Add(123*time.Millisecond)))},
		{tsT, day.Add(123456 * time.Microsecond), fmt.Sprintf("(%v,%v)", schema.TimestampFromTime(day.Add(123*time.Millisecond)), schema.TimestampFromTime(day.Add(124*time.Millisecond)))},
	} {
		b, err := columnBound(c.t, c.v)
		if err != nil {
			t.Errorf("%s %v: %v", c.t, c.v, err)
			continue
		}
		if got := str(b); got != c.want {
			t.Errorf("%s %v (%T) = %s, want %s", c.t, c.v, c.v, got, c.want)
		}
	}
	if _, err := columnBound(intT, "12abc"); err == nil {
		t.Errorf("a string bound for an INT key converted")
	}
}
