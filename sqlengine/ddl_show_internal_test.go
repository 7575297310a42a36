package sqlengine

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/internal/schema"
)

// TestShowCreateTableMySQLRoundTrip: the MySQL form is MySQL-shaped (lower
// case types, PRIMARY KEY (…), ENGINE=) and parses back to the same Paimon
// schema: types (exact, through /*!99999 TYPE */ where MySQL's spelling
// loses something), nullability, keys, partitioning, options and comments.
func TestShowCreateTableMySQLRoundTrip(t *testing.T) {
	desc := "it's"
	cmt := "tab`le 'x'"
	types := []string{"BOOLEAN", "TINYINT", "SMALLINT", "INT NOT NULL", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL(38, 10)",
		"CHAR(4)", "CHAR(300)", "VARCHAR(10)", "VARCHAR(20000)", "STRING", "BINARY(3)", "BINARY(300)", "VARBINARY(7)",
		"BYTES", "DATE", "TIME", "TIME(3)", "TIMESTAMP(0)", "TIMESTAMP(3)", "TIMESTAMP(6)", "TIMESTAMP(9)",
		"TIMESTAMP(3) WITH LOCAL TIME ZONE", "TIMESTAMP(6) WITH LOCAL TIME ZONE", "ARRAY<INT NOT NULL>",
		"MAP<STRING, ARRAY<BYTES>>", "ROW<`x` INT 'c', `y` STRING>", "MULTISET<STRING>", "VARIANT"}
	var fields []schema.DataField
	for i, s := range types {
		fields = append(fields, schema.DataField{Name: fmt.Sprintf("c%d", i), Type: schema.MustParseDataType(s)})
	}
	fields[1].Description = &desc
	keyed := append([]schema.DataField{
		{Name: "k`s", Type: schema.MustParseDataType("STRING NOT NULL")},
		{Name: "dt", Type: schema.MustParseDataType("STRING NOT NULL")},
		{Name: "b", Type: schema.MustParseDataType("BYTES NOT NULL")},
	}, fields...)
	for _, ts := range []*schema.TableSchema{
		{Fields: fields},
		{Fields: keyed, PrimaryKeys: []string{"k`s", "dt", "b"}, PartitionKeys: []string{"dt"}, Comment: &cmt,
			Options: schema.Options{"bucket": "2", "x'y": "a\\b", "merge-engine": "partial-update"}},
		{Fields: keyed[:2], PartitionKeys: []string{"dt"}},
		{Fields: keyed[:2], Options: schema.Options{"file.format": "parquet"}},
	} {
		ddl, err := ShowCreateTableMySQL("t", ts)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(ddl, "\n")[1:] {
			if strings.HasPrefix(line, "  `") {
				typ := strings.Fields(line[strings.LastIndex(line[:strings.Index(line[3:], "` ")+4], "`")+1:])[0]
				if typ != strings.ToLower(typ) {
					t.Errorf("type %q is not lower case in %q", typ, line)
				}
			}
		}
		if len(ts.PrimaryKeys) > 0 && !strings.Contains(ddl, "\n  PRIMARY KEY (`k``s`,`dt`,`b`)\n) ENGINE=Paimon") {
			t.Errorf("no MySQL PRIMARY KEY line:\n%s", ddl)
		}
		if len(ts.PrimaryKeys) > 0 && (strings.Contains(ddl, "longtext NOT NULL") || strings.Contains(ddl, "longblob NOT NULL")) {
			t.Errorf("a key column is shown with a TEXT/BLOB type:\n%s", ddl)
		}
		st, ok, err := parseDDL(ddl)
		if err != nil || !ok {
			t.Fatalf("parse %s: %v", ddl, err)
		}
		got, err := st.(*createTableStmt).tableSchema()
		if err != nil {
			t.Fatalf("%s: %v", ddl, err)
		}
		if len(got.Fields) != len(ts.Fields) {
			t.Fatalf("%s\n%d fields, want %d", ddl, len(got.Fields), len(ts.Fields))
		}
		for i := range ts.Fields {
			w, g := ts.Fields[i], got.Fields[i]
			if w.Name != g.Name || !w.Type.EqualIgnoreFieldIDs(g.Type) || fmt.Sprint(w.Description) != fmt.Sprint(g.Description) && *w.Description != *g.Description {
				t.Errorf("%s\nfield %d: got %s %s, want %s %s", ddl, i, g.Name, g.Type, w.Name, w.Type)
			}
		}
		if !slices.Equal(got.PrimaryKeys, ts.PrimaryKeys) || !slices.Equal(got.PartitionKeys, ts.PartitionKeys) ||
			fmt.Sprint(map[string]string(got.Options)) != fmt.Sprint(map[string]string(ts.Options)) && len(ts.Options) > 0 {
			t.Errorf("%s\nkeys/options: %+v", ddl, got)
		}
		if ts.Comment != nil && (got.Comment == nil || *got.Comment != *ts.Comment) {
			t.Errorf("%s\ncomment %v", ddl, got.Comment)
		}
	}
}

// Executable comments: the text is tokenized, marked; an unterminated one
// is a syntax error.
func TestTokenizeExecutableComment(t *testing.T) {
	toks, err := tokens("a /*!99999 b 'c*/' */ d /* e */ /*!f*/", ddlDialect, errDDLSyntax)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tk := range toks[:len(toks)-1] {
		got = append(got, fmt.Sprintf("%s:%d", tk.text, tk.exec))
	}
	if want := []string{"a:0", "b:1", "c*/:1", "d:0", "f:2"}; !slices.Equal(got, want) {
		t.Errorf("tokens %q, want %q", got, want)
	}
	if _, err := tokens("a /*!99999 b", ddlDialect, errDDLSyntax); err == nil {
		t.Error("unterminated executable comment accepted")
	}
}
