package kv_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
)

func mustTypes(t testing.TB, specs ...string) []schema.DataType {
	t.Helper()
	out := make([]schema.DataType, len(specs))
	for i, s := range specs {
		dt, err := parseType(s)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = dt
	}
	return out
}

var roundTripTypes = []string{
	"INT", "BOOLEAN", "TINYINT", "SMALLINT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL(38,3)", "STRING",
	"BYTES", "DATE", "TIME(3)", "TIMESTAMP(9)", "ARRAY<INT>", "MAP<STRING,BIGINT>", "ROW<a INT, b STRING>",
}

func TestTextFormatRoundTrip(t *testing.T) {
	types := mustTypes(t, roundTripTypes...)
	for _, line := range []string{
		"+I[1, true, -8, 300, 9223372036854775807, 1.5, -2.25e-300, -12345678901234567890123456789.123, 'it''s', X'00ff', DATE '1969-12-31', TIME '23:59:59.999', TIMESTAMP '1969-12-31 23:59:59.999999999', [1, NULL, 3], {'a' -> 1, 'b' -> NULL}, [7, 'x']] seq=42 level=3",
		"-D[NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL] seq=0",
		"-U[0, false, 0, 0, 0, NaN, -Infinity, 0.000, '', X'', DATE '2024-02-29', TIME '00:00:00', TIMESTAMP '2024-02-29 12:00:00.001', [], {}, [NULL, NULL]] seq=-1",
		"+U[2147483647, false, 127, -32768, -1, Infinity, 0.1, 0.001, '[a, b]', X'0a', DATE '0001-01-01', TIME '12:00:00.500', TIMESTAMP '2024-01-01 00:00:00', [2], {'' -> 5}, [1, '']] seq=7",
	} {
		r, err := kv.ParseKeyValue(line, types, []int{0, 8})
		if err != nil {
			t.Fatalf("parse %q: %v", line, err)
		}
		if got := kv.FormatKeyValue(r); got != line {
			t.Errorf("round trip\n got %s\nwant %s", got, line)
		}
		if len(r.Key) != 2 || r.Key[0] != r.Value[0] || r.Key[1] != r.Value[8] {
			t.Errorf("key %v not taken from value %v", r.Key, r.Value)
		}
	}
}

func TestTextFormatValues(t *testing.T) {
	types := mustTypes(t, "DECIMAL(5,2)", "FLOAT", "TIMESTAMP(3)", "DATE")
	r, err := kv.ParseRow("[1.5, 0.1, '2024-01-02 03:04:05', '1970-01-02']", types)
	if err != nil {
		t.Fatal(err)
	}
	if d := r[0].(schema.Decimal); d.Compact != 150 || d.Scale != 2 || d.Big != nil {
		t.Errorf("decimal %+v", d)
	}
	if f := r[1].(float32); f != float32(0.1) {
		t.Errorf("float %v", f)
	}
	if ts := r[2].(schema.Timestamp); ts.Millis != 1704164645000 || ts.NanoOfMilli != 0 {
		t.Errorf("timestamp %+v", ts)
	}
	if d := r[3].(schema.Date); d != 1 {
		t.Errorf("date %v", d)
	}
	for _, bad := range []string{"[1.555, 0, NULL, NULL]", "[1, x, NULL, NULL]", "[1, 0, NULL]", "[1, 0, NULL, NULL] extra", "[1, 0, 'x', NULL]"} {
		if _, err := kv.ParseRow(bad, types); !errors.Is(err, kv.ErrCorrupt) {
			t.Errorf("ParseRow(%q) = %v, want ErrCorrupt", bad, err)
		}
	}
	for _, bad := range []string{"", "+X[1] seq=1", "+I[1] seq=x", "+I[1] lvl=2", "+I[1"} {
		if _, err := kv.ParseKeyValue(bad, mustTypes(t, "INT"), []int{0}); !errors.Is(err, kv.ErrCorrupt) {
			t.Errorf("ParseKeyValue(%q) = %v, want ErrCorrupt", bad, err)
		}
	}
}

// FuzzParseKeyValue: parsing never panics, and whatever parses formats back
// to text that parses to the same text again.
func FuzzParseKeyValue(f *testing.F) {
	f.Add("+I[1, 'a', NULL, [1], {'k' -> 2}, 1.25, X'00', TIMESTAMP '2024-01-01 00:00:00'] seq=3 level=1")
	f.Add("-D[NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL] seq=0")
	f.Add("+U[-1, '''', NULL, [], {}, -0.5, X'', '1970-01-01 00:00:00.123456789'] seq=9")
	types := mustTypes(f, "INT", "STRING", "BOOLEAN", "ARRAY<BIGINT>", "MAP<STRING,INT>", "DECIMAL(20,2)", "BYTES", "TIMESTAMP(9)")
	f.Fuzz(func(t *testing.T, s string) {
		r, err := kv.ParseKeyValue(s, types, []int{0})
		if err != nil {
			if !errors.Is(err, kv.ErrCorrupt) {
				t.Fatalf("error does not wrap ErrCorrupt: %v", err)
			}
			return
		}
		text := kv.FormatKeyValue(r)
		if r.Level < 0 {
			return // negative levels are not printed
		}
		r2, err := kv.ParseKeyValue(text, types, []int{0})
		if err != nil {
			t.Fatalf("formatted %q does not parse: %v", text, err)
		}
		if text2 := kv.FormatKeyValue(r2); text2 != text && !strings.Contains(text, "NaN") {
			t.Fatalf("not stable: %q -> %q", text, text2)
		}
	})
}
