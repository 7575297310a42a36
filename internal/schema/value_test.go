package schema_test

import (
	"errors"
	"math"
	"math/big"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/schema"
)

func TestDecimalFromString(t *testing.T) {
	cases := []struct {
		in      string
		p, s    int
		want    string
		wantErr bool
	}{
		{"34.95", 5, 2, "34.95", false},
		{"-0.01", 5, 2, "-0.01", false},
		{"1.005", 5, 2, "1.01", false},   // HALF_UP
		{"-1.005", 5, 2, "-1.01", false}, // away from zero
		{"1.004", 5, 2, "1.00", false},
		{"12", 5, 2, "12.00", false},
		{"1e2", 5, 0, "100", false},
		{"+.5", 3, 0, "1", false},
		{"-3121800083643799333438540749.27", 30, 2, "-3121800083643799333438540749.27", false},
		{"99999999999999999999999999999999999999", 38, 0, "99999999999999999999999999999999999999", false},
		{"1234.5", 5, 2, "", true}, // needs 6 digits
		{"abc", 5, 2, "", true},
		{"", 5, 2, "", true},
		{"1.2.3", 5, 2, "", true},
	}
	for _, c := range cases {
		d, err := schema.DecimalFromString(c.in, c.p, c.s)
		if c.wantErr {
			if !errors.Is(err, schema.ErrInvalidValue) {
				t.Errorf("%q: expected ErrInvalidValue, got %v (%s)", c.in, err, d)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if d.String() != c.want {
			t.Errorf("%q: got %s want %s", c.in, d, c.want)
		}
		if int(d.Scale) != c.s {
			t.Errorf("%q: scale %d", c.in, d.Scale)
		}
	}
	d, _ := schema.DecimalFromString("-3121800083643799333438540749.27", 30, 2)
	if d.IsCompact() || d.Unscaled().String() != "-312180008364379933343854074927" {
		t.Errorf("unscaled %s", d.Unscaled())
	}
	small, _ := schema.DecimalFromString("34.95", 5, 2)
	if !small.IsCompact() || small.Compact != 3495 {
		t.Errorf("compact %+v", small)
	}
}

func TestDecimalCmpRescale(t *testing.T) {
	a := schema.DecimalFromInt64(1050, 2)              // 10.50
	b := schema.DecimalFromInt64(105, 1)               // 10.5
	c := schema.DecimalFromUnscaled(big.NewInt(-1), 0) // -1
	big1, _ := new(big.Int).SetString("100000000000000000000000", 10)
	huge := schema.DecimalFromUnscaled(big1, 2)
	if a.Cmp(b) != 0 || b.Cmp(c) != 1 || c.Cmp(a) != -1 || huge.Cmp(a) != 1 || a.Cmp(huge) != -1 {
		t.Error("Cmp")
	}
	r, err := a.Rescale(4, 1)
	if err != nil || r.String() != "10.5" {
		t.Errorf("rescale %s %v", r, err)
	}
	if _, err := a.Rescale(3, 2); err == nil {
		t.Error("10.50 does not fit DECIMAL(3, 2)")
	}
	if got := schema.DecimalFromInt64(5, 3).String(); got != "0.005" {
		t.Errorf("String %s", got)
	}
	if got := schema.DecimalFromInt64(math.MinInt64, 0).String(); got != "-9223372036854775808" {
		t.Errorf("String %s", got)
	}
	if f := schema.DecimalFromInt64(-125, 2).Float64(); f != -1.25 {
		t.Errorf("Float64 %v", f)
	}
}

func TestTimestampHelpers(t *testing.T) {
	ts := schema.TimestampFromEpochNanos(-500_000) // 1969-12-31T23:59:59.9995
	if ts.Millis != -1 || ts.NanoOfMilli != 500_000 {
		t.Errorf("floor split %+v", ts)
	}
	if ts.EpochNanos() != -500_000 {
		t.Error("EpochNanos")
	}
	if got := ts.String(); got != "1969-12-31T23:59:59.999500" {
		t.Errorf("String %s", got)
	}
	cases := map[string]string{
		"2024-01-01T00:00":              "2024-01-01T00:00",
		"2024-01-01 10:20:30":           "2024-01-01T10:20:30",
		"2024-01-01T10:20:30.123":       "2024-01-01T10:20:30.123",
		"2024-01-01T10:20:30.1234":      "2024-01-01T10:20:30.123400",
		"2024-01-01T10:20:30.123456789": "2024-01-01T10:20:30.123456789",
		"2024-01-01":                    "2024-01-01T00:00",
	}
	for in, want := range cases {
		p, err := schema.ParseTimestamp(in)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if p.String() != want {
			t.Errorf("%s: got %s want %s", in, p, want)
		}
	}
	now := time.Date(2025, 4, 14, 10, 0, 0, 123456789, time.UTC)
	got := schema.TimestampFromTime(now)
	if !got.ToTime().Equal(now) || got.Millis != now.UnixMilli() || got.NanoOfMilli != 456789 {
		t.Errorf("time round trip %+v", got)
	}
	loc := time.FixedZone("x", 3600)
	wall := schema.TimestampFromWallClock(time.Date(2025, 4, 14, 10, 0, 0, 0, loc))
	if wall.String() != "2025-04-14T10:00" {
		t.Errorf("wall clock %s", wall)
	}
	if schema.TimestampFromEpochMicros(-1).String() != "1969-12-31T23:59:59.999999" {
		t.Error("micros")
	}
	if got := schema.FormatTimestamp(schema.TimestampFromEpochMillis(1500), 3); got != "1970-01-01 00:00:01.500" {
		t.Errorf("FormatTimestamp %s", got)
	}
	if a, b := schema.TimestampFromEpochNanos(1), schema.TimestampFromEpochNanos(2); a.Compare(b) != -1 || b.Compare(a) != 1 || a.Compare(a) != 0 {
		t.Error("Compare")
	}
	if tr := schema.TimestampFromEpochNanos(1_234_567_891).Truncate(3); tr.Millis != 1234 || tr.NanoOfMilli != 0 {
		t.Errorf("truncate %+v", tr)
	}
	for _, bad := range []string{"", "2024-13-01", "2024-02-30", "2024-01-01T25:00", "x", "2024-01-01T10:20:30.1234567891"} {
		if _, err := schema.ParseTimestamp(bad); err == nil {
			t.Errorf("%q: expected an error", bad)
		}
	}
}

func TestDateTimeHelpers(t *testing.T) {
	d, err := schema.ParseDate("2024-01-01")
	if err != nil || d != 19723 || d.String() != "2024-01-01" {
		t.Errorf("date %d %v", d, err)
	}
	if schema.Date(-1).String() != "1969-12-31" {
		t.Error("negative date")
	}
	if schema.DateFromTime(time.Date(2024, 1, 1, 23, 0, 0, 0, time.FixedZone("x", -5*3600))) != 19723 {
		t.Error("DateFromTime")
	}
	if !schema.Date(19723).ToTime().Equal(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Error("ToTime")
	}
	for in, want := range map[string]string{"10:20": "10:20", "10:20:30": "10:20:30", "10:20:30.5": "10:20:30.500", "00:00:00": "00:00"} {
		tm, err := schema.ParseTime(in)
		if err != nil || tm.String() != want {
			t.Errorf("%s: %s %v", in, tm, err)
		}
	}
}

func mustType(t *testing.T, s string) *schema.DataType {
	t.Helper()
	dt, err := schema.ParseDataType(s)
	if err != nil {
		t.Fatal(err)
	}
	return &dt
}

func TestCompare(t *testing.T) {
	nan32 := float32(math.NaN())
	negZero := math.Copysign(0, -1)
	cases := []struct {
		typ  string
		a, b any
		want int
	}{
		{"INT", nil, int32(1), -1},
		{"INT", int32(1), nil, 1},
		{"INT", nil, nil, 0},
		{"INT", int32(-5), int32(3), -1},
		{"BIGINT", int64(7), int64(7), 0},
		{"BOOLEAN", false, true, -1},
		{"FLOAT", nan32, float32(math.Inf(1)), 1},
		{"FLOAT", nan32, nan32, 0},
		{"FLOAT", float32(negZero), float32(0), -1},
		{"DOUBLE", negZero, 0.0, -1},
		{"DOUBLE", math.NaN(), 1.0, 1},
		{"DOUBLE", -1.0, 2.0, -1},
		{"DECIMAL(10, 2)", schema.DecimalFromInt64(1050, 2), schema.DecimalFromInt64(105, 1), 0},
		{"STRING", "a", "b", -1},
		{"STRING", "é", "z", 1}, // by UTF-8 bytes
		{"BYTES", []byte{0x80}, []byte{0x7f}, 1},
		{"BYTES", []byte{1}, []byte{1, 0}, -1},
		{"DATE", schema.Date(1), schema.Date(2), -1},
		{"TIME(3)", schema.Time(5), schema.Time(4), 1},
		{"TIMESTAMP(9)", schema.Timestamp{Millis: 1, NanoOfMilli: 2}, schema.Timestamp{Millis: 1, NanoOfMilli: 1}, 1},
		{"ARRAY<INT>", []any{int32(1), int32(2)}, []any{int32(1), int32(3)}, -1},
		{"ARRAY<INT>", []any{int32(1)}, []any{int32(1), nil}, -1},
		{"ROW<a INT, b STRING>", []any{int32(1), "b"}, []any{int32(1), "a"}, 1},
		{"MAP<INT, INT>", schema.Map{Keys: []any{int32(1)}, Values: []any{int32(2)}}, schema.Map{Keys: []any{int32(1)}, Values: []any{int32(3)}}, -1},
		{"INT", int32(1), "mistyped", -1}, // never panics; well-typed first
	}
	for _, c := range cases {
		typ := mustType(t, c.typ)
		if got := schema.Compare(typ, c.a, c.b); got != c.want {
			t.Errorf("%s: Compare(%v, %v) = %d want %d", c.typ, c.a, c.b, got, c.want)
		}
		if got := schema.Compare(typ, c.b, c.a); got != -c.want {
			t.Errorf("%s: Compare(%v, %v) = %d want %d (antisymmetry)", c.typ, c.b, c.a, got, -c.want)
		}
	}
	if !schema.Equal(mustType(t, "STRING"), "x", "x") || schema.Equal(mustType(t, "DOUBLE"), 0.0, negZero) {
		t.Error("Equal")
	}
}

func TestSupportsCast(t *testing.T) {
	yes := [][2]string{{"INT", "BIGINT"}, {"FLOAT", "DOUBLE"}, {"INT", "DECIMAL(10, 0)"}, {"INT", "DOUBLE"},
		{"DECIMAL(5, 2)", "DECIMAL(10, 4)"}, {"VARCHAR(5)", "VARCHAR(10)"}, {"CHAR(3)", "STRING"},
		{"TIMESTAMP(3)", "TIMESTAMP(6)"}, {"TIMESTAMP(6)", "DATE"}, {"TINYINT", "SMALLINT"}}
	for _, c := range yes {
		if !schema.SupportsCast(mustType(t, c[0]), mustType(t, c[1]), false) {
			t.Errorf("%s -> %s should be implicit", c[0], c[1])
		}
	}
	explicitOnly := [][2]string{{"BIGINT", "INT"}, {"STRING", "INT"}, {"INT", "STRING"}, {"DOUBLE", "INT"},
		{"DATE", "TIMESTAMP(3)"}, {"TIMESTAMP(3)", "BIGINT"}, {"STRING", "DATE"}, {"INT", "BOOLEAN"}}
	for _, c := range explicitOnly {
		from, to := mustType(t, c[0]), mustType(t, c[1])
		if schema.SupportsCast(from, to, false) || !schema.SupportsCast(from, to, true) {
			t.Errorf("%s -> %s should be explicit only", c[0], c[1])
		}
	}
	never := [][2]string{{"DATE", "INT"}, {"BOOLEAN", "DATE"}, {"BYTES", "INT"}, {"INT", "BYTES"}, {"ARRAY<INT>", "INT"}}
	for _, c := range never {
		if schema.SupportsCast(mustType(t, c[0]), mustType(t, c[1]), true) {
			t.Errorf("%s -> %s must be rejected", c[0], c[1])
		}
	}
	if schema.SupportsCast(mustType(t, "INT"), mustType(t, "INT NOT NULL"), false) {
		t.Error("nullable to NOT NULL is not implicit")
	}
}

func TestCastValue(t *testing.T) {
	cases := []struct {
		from, to string
		in, want any
	}{
		{"INT", "BIGINT", int32(-7), int64(-7)},
		{"FLOAT", "DOUBLE", float32(1.5), 1.5},
		{"INT", "DECIMAL(10, 2)", int32(12), schema.DecimalFromInt64(1200, 2)},
		{"INT", "DOUBLE", int32(3), 3.0},
		{"DECIMAL(5, 2)", "DECIMAL(10, 1)", schema.DecimalFromInt64(1255, 2), schema.DecimalFromInt64(126, 1)},
		{"DECIMAL(10, 2)", "DECIMAL(3, 2)", schema.DecimalFromInt64(123456, 2), nil}, // overflow → null like Java
		{"VARCHAR(10)", "VARCHAR(3)", "abcdef", "abc"},
		{"CHAR(3)", "STRING", "ab ", "ab "},
		{"STRING", "CHAR(4)", "ab", "ab  "},
		{"INT", "STRING", int32(42), "42"},
		{"DOUBLE", "STRING", 1e7, "1.0E7"},
		{"DOUBLE", "STRING", 0.5, "0.5"},
		{"FLOAT", "STRING", float32(100), "100.0"},
		{"DECIMAL(5, 2)", "STRING", schema.DecimalFromInt64(-1, 2), "-0.01"},
		{"STRING", "INT", " 42 ", int32(42)},
		{"STRING", "DECIMAL(5, 2)", "1.005", schema.DecimalFromInt64(101, 2)},
		{"STRING", "DOUBLE", "2.5", 2.5},
		{"BIGINT", "INT", int64(1) << 32, int32(0)},   // Java narrowing wraps
		{"DOUBLE", "INT", 1e20, int32(math.MaxInt32)}, // saturates
		{"DECIMAL(5, 2)", "INT", schema.DecimalFromInt64(-199, 2), int32(-1)},
		{"TIMESTAMP(9)", "TIMESTAMP(3)", schema.Timestamp{Millis: 5, NanoOfMilli: 999}, schema.Timestamp{Millis: 5}},
		{"TIMESTAMP(3)", "TIMESTAMP(6) WITH LOCAL TIME ZONE", schema.Timestamp{Millis: 5}, schema.Timestamp{Millis: 5}},
		{"DATE", "TIMESTAMP(3)", schema.Date(1), schema.Timestamp{Millis: 86_400_000}},
		{"TIMESTAMP(3)", "DATE", schema.Timestamp{Millis: -1}, schema.Date(-1)},
		{"TIMESTAMP(3)", "STRING", schema.Timestamp{Millis: 1500}, "1970-01-01 00:00:01.500"},
		{"DATE", "STRING", schema.Date(19723), "2024-01-01"},
		{"STRING", "DATE", "2024-01-01", schema.Date(19723)},
		{"STRING", "TIMESTAMP(3)", "2024-01-01 00:00:00.1239", schema.Timestamp{Millis: 19723*86_400_000 + 123}},
		{"INT", "BOOLEAN", int32(2), true},
		{"STRING", "BOOLEAN", "false", false},
		{"STRING", "BYTES", "hi", []byte("hi")},
		{"VARBINARY(2)", "BINARY(4)", []byte{1, 2}, []byte{1, 2, 0, 0}},
		{"ARRAY<INT>", "ARRAY<INT> NOT NULL", []any{int32(1)}, []any{int32(1)}},
		{"INT", "BIGINT", nil, nil},
	}
	for _, c := range cases {
		from, to := mustType(t, c.from), mustType(t, c.to)
		got, err := schema.CastValue(c.in, from, to)
		if err != nil {
			t.Errorf("%s -> %s (%v): %v", c.from, c.to, c.in, err)
			continue
		}
		if schema.Compare(to, got, c.want) != 0 {
			t.Errorf("%s -> %s (%v): got %#v want %#v", c.from, c.to, c.in, got, c.want)
		}
	}
	for _, c := range [][2]string{{"DATE", "INT"}, {"ARRAY<INT>", "ARRAY<BIGINT>"}, {"BOOLEAN", "DATE"}} {
		if _, err := schema.CastValue(int32(1), mustType(t, c[0]), mustType(t, c[1])); !errors.Is(err, schema.ErrUnsupportedCast) {
			t.Errorf("%s -> %s: expected ErrUnsupportedCast, got %v", c[0], c[1], err)
		}
	}
	if _, err := schema.CastValue("x1", mustType(t, "STRING"), mustType(t, "INT")); !errors.Is(err, schema.ErrInvalidValue) {
		t.Errorf("bad number: %v", err)
	}
	if _, err := schema.CastValue("abc", mustType(t, "INT"), mustType(t, "BIGINT")); !errors.Is(err, schema.ErrInvalidValue) {
		t.Errorf("wrong Go type: %v", err)
	}
}

func TestJavaDoubleString(t *testing.T) {
	for f, want := range map[float64]string{1: "1.0", 0.001: "0.001", 1e-4: "1.0E-4", 1234567.5: "1234567.5",
		12345678: "1.2345678E7", -2.5e-10: "-2.5E-10", math.Inf(-1): "-Infinity"} {
		if got := schema.JavaDoubleString(f); got != want {
			t.Errorf("%v: got %s want %s", f, got, want)
		}
	}
	if schema.JavaFloatString(0.1) != "0.1" {
		t.Errorf("float 0.1 = %s", schema.JavaFloatString(0.1))
	}
}
