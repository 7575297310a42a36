package schema_test

import (
	"testing"
	"time"
	_ "time/tzdata" // zones for time-zone cases on machines without zoneinfo

	"github.com/lakesql/lakesql/internal/schema"
)

func TestCastValueInZone(t *testing.T) {
	sh, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Skipf("no zoneinfo for Asia/Shanghai: %v", err)
	}
	ts0 := schema.TimestampType(0)
	ltz6 := schema.LocalZonedTimestampType(6)
	ts9 := schema.TimestampType(9)
	i32 := schema.AtomicType(schema.TypeInt)
	str := schema.StringType()
	cases := []struct {
		v        any
		from, to schema.DataType
		want     any
	}{
		// A wall clock of 00:00:01 in UTC+8 is 28799 s before the epoch.
		{schema.Timestamp{Millis: 1000}, ts0, i32, int32(-28799)},
		// An instant turns into the Shanghai wall clock.
		{schema.Timestamp{Millis: 0, NanoOfMilli: 2000}, ltz6, str, "1970-01-01 08:00:00.000002"},
		{schema.Timestamp{Millis: 0, NanoOfMilli: 2}, schema.LocalZonedTimestampType(9), ts9, schema.Timestamp{Millis: 8 * 3600 * 1000, NanoOfMilli: 2}},
		// Epoch seconds name an instant, shown as a Shanghai wall clock.
		{int32(0), i32, ts0, schema.Timestamp{Millis: 8 * 3600 * 1000}},
		{int32(0), i32, ltz6, schema.Timestamp{}},
	}
	for _, c := range cases {
		got, err := schema.CastValueIn(c.v, &c.from, &c.to, sh)
		if err != nil {
			t.Fatalf("%v %s→%s: %v", c.v, c.from, c.to, err)
		}
		if got != c.want {
			t.Errorf("%v %s→%s: got %v, want %v", c.v, c.from, c.to, got, c.want)
		}
		// UTC behaves as CastValue.
		a, _ := schema.CastValueIn(c.v, &c.from, &c.to, time.UTC)
		b, _ := schema.CastValue(c.v, &c.from, &c.to)
		if a != b {
			t.Errorf("UTC: %v != %v", a, b)
		}
	}
}
