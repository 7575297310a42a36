package schema_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/lakesql/lakesql/internal/schema"
)

func TestParseDataTypeCanonical(t *testing.T) {
	cases := []struct{ in, want string }{
		{"INT", "INT"},
		{"int not null", "INT NOT NULL"},
		{"INTEGER", "INT"},
		{"INT NULL", "INT"},
		{"BIGINT NOT NULL", "BIGINT NOT NULL"},
		{"TINYINT", "TINYINT"},
		{"SMALLINT", "SMALLINT"},
		{"BOOLEAN", "BOOLEAN"},
		{"FLOAT", "FLOAT"},
		{"DOUBLE", "DOUBLE"},
		{"DOUBLE PRECISION", "DOUBLE"},
		{"DECIMAL", "DECIMAL(10, 0)"},
		{"DECIMAL(10,2)", "DECIMAL(10, 2)"},
		{"NUMERIC(5)", "DECIMAL(5, 0)"},
		{"DEC(38, 18) NOT NULL", "DECIMAL(38, 18) NOT NULL"},
		{"STRING", "STRING"},
		{"VARCHAR(2147483647)", "STRING"},
		{"VARCHAR", "VARCHAR(1)"},
		{"VARCHAR(10)", "VARCHAR(10)"},
		{"CHAR", "CHAR(1)"},
		{"CHAR(3)", "CHAR(3)"},
		{"BINARY", "BINARY(1)"},
		{"BINARY(16)", "BINARY(16)"},
		{"VARBINARY(5)", "VARBINARY(5)"},
		{"VARBINARY(2147483647)", "BYTES"},
		{"BYTES NOT NULL", "BYTES NOT NULL"},
		{"DATE", "DATE"},
		{"TIME", "TIME(0)"},
		{"TIME(3)", "TIME(3)"},
		{"TIME(3) WITHOUT TIME ZONE", "TIME(3)"},
		{"TIMESTAMP", "TIMESTAMP(6)"},
		{"TIMESTAMP(9)", "TIMESTAMP(9)"},
		{"TIMESTAMP(3) WITHOUT TIME ZONE", "TIMESTAMP(3)"},
		{"TIMESTAMP(3) WITH LOCAL TIME ZONE", "TIMESTAMP(3) WITH LOCAL TIME ZONE"},
		{"TIMESTAMP WITH LOCAL TIME ZONE NOT NULL", "TIMESTAMP(6) WITH LOCAL TIME ZONE NOT NULL"},
		{"TIMESTAMP_LTZ", "TIMESTAMP(6) WITH LOCAL TIME ZONE"},
		{"timestamp_ltz(0)", "TIMESTAMP(0) WITH LOCAL TIME ZONE"},
		{"VARIANT", "VARIANT"},
		{"BLOB NOT NULL", "BLOB NOT NULL"},
		{"INT ARRAY", "ARRAY<INT>"},
		{"INT NOT NULL MULTISET NOT NULL", "MULTISET<INT NOT NULL> NOT NULL"},
		{"ARRAY<STRING NOT NULL>", "ARRAY<STRING NOT NULL>"},
		{"MAP<INT, ARRAY<BIGINT>> NOT NULL", "MAP<INT, ARRAY<BIGINT>> NOT NULL"},
		{"ROW<a INT, `b c` STRING 'it''s', d ROW<e DATE>>", "ROW<`a` INT, `b c` STRING COMMENT 'it''s', `d` ROW<`e` DATE>>"},
	}
	for _, c := range cases {
		got, err := schema.ParseDataType(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if got.String() != c.want {
			t.Errorf("%q: got %q want %q", c.in, got.String(), c.want)
		}
		again, err := schema.ParseDataType(got.String())
		if err != nil || !again.Equal(got) {
			t.Errorf("%q: String() does not parse back: %v", c.in, err)
		}
	}
}

func TestParseDataTypeRowIDs(t *testing.T) {
	got := schema.MustParseDataType("ROW<a INT, d ROW<e DATE, f INT>, g INT>")
	ids := []int{got.Fields[0].ID, got.Fields[1].ID, got.Fields[1].Type.Fields[0].ID, got.Fields[1].Type.Fields[1].ID, got.Fields[2].ID}
	want := []int{0, 1, 2, 3, 4}
	for i := range want {
		if ids[i] != want[i] {
			t.Fatalf("ids %v want %v", ids, want)
		}
	}
}

func TestParseDataTypeErrors(t *testing.T) {
	for _, in := range []string{"", "FOO", "INT INT", "DECIMAL(0)", "DECIMAL(39, 0)", "DECIMAL(5, 6)",
		"VARCHAR(0)", "TIMESTAMP(10)", "TIME(-1)", "CHAR(", "CHAR(99999999999)", "ARRAY<INT",
		"MAP<INT>", "ROW<a>", "'x", "INTERVAL", "NOT NULL", "TIMESTAMP WITH TIME ZONE"} {
		_, err := schema.ParseDataType(in)
		if err == nil {
			t.Errorf("%q: expected an error", in)
		} else if !errors.Is(err, schema.ErrCorrupt) {
			t.Errorf("%q: %v does not wrap ErrCorrupt", in, err)
		}
	}
}

func TestDataTypeJSON(t *testing.T) {
	cases := []struct{ in, want string }{
		{`"INT NOT NULL"`, `"INT NOT NULL"`},
		{`"DECIMAL(10,2)"`, `"DECIMAL(10, 2)"`},
		{`{"type":"ARRAY NOT NULL","element":"INT"}`, `{"type":"ARRAY NOT NULL","element":"INT"}`},
		{`{"type":"MULTISET","element":"STRING"}`, `{"type":"MULTISET","element":"STRING"}`},
		{`{"type":"MAP","key":"STRING NOT NULL","value":{"type":"ARRAY","element":"INT"}}`, `{"type":"MAP","key":"STRING NOT NULL","value":{"type":"ARRAY","element":"INT"}}`},
		{`{"type":"ROW","fields":[{"id":5,"name":"f0","type":"STRING","description":"d"}]}`, `{"type":"ROW","fields":[{"id":5,"name":"f0","type":"STRING","description":"d"}]}`},
		// Missing ids are numbered like DataTypeJsonParser does.
		{`{"type":"ROW","fields":[{"name":"a","type":{"type":"ROW","fields":[{"name":"b","type":"INT"}]}},{"name":"c","type":"INT"}]}`,
			`{"type":"ROW","fields":[{"id":0,"name":"a","type":{"type":"ROW","fields":[{"id":1,"name":"b","type":"INT"}]}},{"id":2,"name":"c","type":"INT"}]}`},
	}
	for _, c := range cases {
		var dt schema.DataType
		if err := json.Unmarshal([]byte(c.in), &dt); err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		out, err := json.Marshal(dt)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if string(out) != c.want {
			t.Errorf("%s: got %s want %s", c.in, out, c.want)
		}
	}
	for _, bad := range []string{`1`, `{"type":"FOO"}`, `{"type":"ARRAY"}`, `{"element":"INT"}`, `{"type":"ROW","fields":[{"id":1,"name":"a","type":"INT"},{"name":"b","type":"INT"}]}`} {
		if _, err := schema.ParseDataTypeJSON([]byte(bad)); !errors.Is(err, schema.ErrCorrupt) {
			t.Errorf("%s: expected ErrCorrupt, got %v", bad, err)
		}
	}
}

func TestDataTypeEqual(t *testing.T) {
	a := schema.MustParseDataType("ROW<a INT, b STRING>")
	b := schema.MustParseDataType("ROW<a INT, b STRING>")
	if !a.Equal(b) {
		t.Error("equal rows")
	}
	b.Fields = append([]schema.DataField(nil), b.Fields...)
	b.Fields[1].ID = 9
	if a.Equal(b) || !a.EqualIgnoreFieldIDs(b) {
		t.Error("field ids")
	}
	if a.Equal(a.WithNullable(false)) || !a.EqualIgnoreNullability(a.WithNullable(false)) {
		t.Error("nullability")
	}
}

func FuzzParseDataType(f *testing.F) {
	for _, s := range []string{"INT", "DECIMAL(10, 2) NOT NULL", "TIMESTAMP(3) WITH LOCAL TIME ZONE", "ROW<a INT, `b` MAP<STRING, ARRAY<INT>>>", "INT ARRAY MULTISET", "CHAR('x')"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		dt, err := schema.ParseDataType(s)
		if err != nil {
			if !errors.Is(err, schema.ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		if err := dt.Validate(); err != nil {
			t.Fatalf("parsed type invalid: %v", err)
		}
		again, err := schema.ParseDataType(dt.String())
		if err != nil {
			t.Fatalf("String() %q does not parse: %v", dt.String(), err)
		}
		if again.String() != dt.String() {
			t.Fatalf("unstable: %q vs %q", again.String(), dt.String())
		}
		js, err := json.Marshal(dt)
		if err != nil {
			t.Fatal(err)
		}
		back, err := schema.ParseDataTypeJSON(js)
		if err != nil || !back.Equal(dt) {
			t.Fatalf("JSON round trip %s: %v", js, err)
		}
	})
}
