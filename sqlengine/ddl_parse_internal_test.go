package sqlengine

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/internal/schema"

	"github.com/lakesql/lakesql/provider"
)

func TestParseCreateTable(t *testing.T) {
	q := "create table if not exists cat.db1.`my t` (\n" +
		"  a BIGINT NOT NULL COMMENT 'it''s a', -- comment\n" +
		"  b ROW<x INT NOT NULL, y ARRAY<MAP<STRING, INT>>>,\n" +
		"  c TIMESTAMP(3) WITH LOCAL TIME ZONE NULL,\n" +
		"  /* block */ d DECIMAL(10, 2),\n" +
		"  CONSTRAINT pk PRIMARY KEY (a, d) NOT ENFORCED\n" +
		") COMMENT = 'tbl' PARTITIONED BY (d) WITH ('k.1' = 'v''1', bucket = 2);"
	st, ok, err := parseDDL(q)
	if err != nil || !ok {
		t.Fatalf("parseDDL: ok %v, err %v", ok, err)
	}
	s := st.(*createTableStmt)
	if s.db != "db1" || s.name != "my t" || !s.ifNotExists || !s.flink {
		t.Errorf("header %+v", s)
	}
	var cols []string
	for _, c := range s.cols {
		cols = append(cols, fmt.Sprintf("%s|%s|%v", c.name, c.typeText, c.notNull))
	}
	want := []string{"a|BIGINT|true", "b|ROW<x INT NOT NULL, y ARRAY<MAP<STRING, INT>>>|false",
		"c|TIMESTAMP(3) WITH LOCAL TIME ZONE|false", "d|DECIMAL(10, 2)|false"}
	if !slices.Equal(cols, want) {
		t.Errorf("columns %q, want %q", cols, want)
	}
	if *s.cols[0].comment != "it's a" || *s.comment != "tbl" || !slices.Equal(s.primaryKey, []string{"a", "d"}) || !slices.Equal(s.partitionKeys, []string{"d"}) {
		t.Errorf("comments/keys: %+v", s)
	}
	if fmt.Sprint(s.options) != "[[k.1 v'1] [bucket 2]]" {
		t.Errorf("options %v", s.options)
	}
	ts, err := s.tableSchema()
	if err != nil {
		t.Fatal(err)
	}
	if got := ts.Fields[1].Type.String(); got != "ROW<`x` INT NOT NULL, `y` ARRAY<MAP<STRING, INT>>>" {
		t.Errorf("nested type %s", got)
	}
}

func TestParseDDLRouting(t *testing.T) {
	for q, want := range map[string]string{
		"SELECT 1":                                     "not ddl",
		"SHOW CREATE TABLE t":                          "ok",
		"SHOW CREATE TABLE `t$snapshots`":              "not ddl",
		"SHOW CREATE TABLE t AS OF 3":                  "not ddl",
		"CREATE TABLE t (a INT, KEY k (a))":            "error",
		"CREATE TABLE t (a INT":                        "error",
		"CREATE TABLE t (a INT DEFAULT 1)":             "error",
		"CREATE TABLE t LIKE s":                        "ok",
		"CREATE TABLE t (LIKE s)":                      "ok",
		"ALTER TABLE t ADD COLUMN c INT FIRST":         "ok",
		"ALTER TABLE t ADD (c INT, d STRING AFTER c)":  "ok",
		"ALTER TABLE t DROP (c, d)":                    "ok",
		"ALTER TABLE t SET TBLPROPERTIES ('a' = 'b')":  "ok",
		"ALTER TABLE t UNSET TBLPROPERTIES ('a')":      "ok",
		"ALTER TABLE t ADD INDEX i (a)":                "error",
		"ALTER TABLE t RENAME TO u":                    "error",
		"CREATE TABLE t (a INT) 'oops'":                "error",
		"CREATE TABLE t (a INT) WITH ('a' = 'b') junk": "error",
	} {
		_, ok, err := parseDDL(q)
		got := "ok"
		switch {
		case !ok:
			got = "not ddl"
		case err != nil:
			got = "error"
		}
		if got != want {
			t.Errorf("parseDDL(%q): %s (%v), want %s", q, got, err, want)
		}
	}
}

func TestColumnType(t *testing.T) {
	for _, c := range []struct {
		text  string
		flink bool
		want  string
	}{
		{"INT", false, "INT"}, {"int(11) unsigned", false, "BIGINT"}, {"BIGINT UNSIGNED", false, "DECIMAL(20, 0)"},
		{"TINYINT(1)", false, "BOOLEAN"}, {"TINYINT(1)", true, "TINYINT"}, {"MEDIUMINT", false, "INT"},
		{"VARCHAR(20)", false, "VARCHAR(20)"}, {"TEXT", false, "STRING"}, {"LONGTEXT", true, "STRING"},
		{"DATETIME(3)", false, "TIMESTAMP(3)"}, {"DATETIME", false, "TIMESTAMP(0)"},
		{"TIMESTAMP(3)", false, "TIMESTAMP(3) WITH LOCAL TIME ZONE"}, {"TIMESTAMP(3)", true, "TIMESTAMP(3)"},
		{"TIMESTAMP", true, "TIMESTAMP(6)"}, {"TIMESTAMP_LTZ(3)", false, "TIMESTAMP(3) WITH LOCAL TIME ZONE"},
		{"TIME(3)", false, "TIME(3)"}, {"TIME", false, "TIME(0)"}, {"BLOB", false, "BYTES"}, {"BYTES", false, "BYTES"},
		{"DOUBLE PRECISION", false, "DOUBLE"}, {"DECIMAL", false, "DECIMAL(10, 0)"}, {"numeric(38,10)", false, "DECIMAL(38, 10)"},
		{"ARRAY<ROW<a INT>>", true, "ARRAY<ROW<`a` INT>>"}, {"BOOLEAN", false, "BOOLEAN"},
	} {
		got, err := columnType(c.text, c.flink)
		if err != nil || got.String() != c.want {
			t.Errorf("columnType(%q, flink=%v) = %s, %v; want %s", c.text, c.flink, got, err, c.want)
		}
	}
	for _, bad := range []string{"JSON", "YEAR", "ENUM('a','b')", "SET('a')", "BIT(1)", "DECIMAL(65, 2)", "POINT", "NOSUCH", "VARCHAR(0)", "TIMESTAMP(12)"} {
		if got, err := columnType(bad, false); err == nil {
			t.Errorf("columnType(%q) = %s, want an error", bad, got)
		}
	}
}

// TestShowCreateTableRoundTrip: the DDL SHOW CREATE TABLE prints parses
// back to the same columns, keys, options and comment.
func TestShowCreateTableRoundTrip(t *testing.T) {
	desc := "it's"
	cmt := "tab`le"
	for _, ts := range []*schema.TableSchema{
		{
			Fields: []schema.DataField{
				{Name: "a", Type: schema.MustParseDataType("BIGINT NOT NULL"), Description: &desc},
				{Name: "b`q", Type: schema.MustParseDataType("ROW<`x` INT 'c', `y` MAP<STRING, ARRAY<BYTES>>>")},
				{Name: "ts", Type: schema.MustParseDataType("TIMESTAMP(9)")},
				{Name: "ltz", Type: schema.MustParseDataType("TIMESTAMP(3) WITH LOCAL TIME ZONE")},
				{Name: "d", Type: schema.MustParseDataType("DATE NOT NULL")},
			},
			PrimaryKeys: []string{"a", "d"}, PartitionKeys: []string{"d"}, Comment: &cmt,
			Options: schema.Options{"bucket": "2", "x'y": "a\\b"},
		},
		{Fields: []schema.DataField{
			{Name: "ts", Type: schema.MustParseDataType("TIMESTAMP(3)")},
			{Name: "b", Type: schema.MustParseDataType("BOOLEAN")},
			{Name: "c", Type: schema.MustParseDataType("CHAR(4)")},
			{Name: "t", Type: schema.MustParseDataType("TIME(3)")},
		}},
	} {
		ddl := ShowCreateTable("t", ts)
		st, ok, err := parseDDL(ddl)
		if err != nil || !ok {
			t.Fatalf("parse %s: %v", ddl, err)
		}
		got, err := st.(*createTableStmt).tableSchema()
		if err != nil {
			t.Fatalf("%s: %v", ddl, err)
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

func TestSQLErrorCodes(t *testing.T) {
	_, _, err := parseDDL("ALTER TABLE t ADD PRIMARY KEY (a)")
	if !errors.Is(err, provider.ErrUnsupportedDDL) {
		t.Fatalf("ADD PRIMARY KEY: %v", err)
	}
	if msg := provider.SQLError(err).Error(); !strings.Contains(msg, "lakesql: changing the primary key") || strings.Contains(msg, "unsupported:") {
		t.Errorf("sqlError message %q", msg)
	}
}

// FuzzParseDDL: the DDL front never panics, and whatever it accepts as
// CREATE TABLE either maps to a schema or reports an error.
func FuzzParseDDL(f *testing.F) {
	for _, s := range []string{
		"CREATE TABLE t (a INT, PRIMARY KEY (a) NOT ENFORCED) WITH ('bucket' = '1')",
		"CREATE TABLE t (a ROW<b ARRAY<MAP<STRING, INT>>>) PARTITIONED BY (a)",
		"ALTER TABLE t ADD (c INT, d STRING AFTER c), DROP e, SET ('k' = 'v')",
		"ALTER TABLE t CHANGE a b BIGINT COMMENT 'x' FIRST",
		"SHOW CREATE TABLE db.t", "CREATE TABLE `a``b` LIKE c", "CREATE TABLE t (a INT) COMMENT = 'x''y' -- z",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		st, ok, err := parseDDL(q)
		if !ok || err != nil {
			return
		}
		switch s := st.(type) {
		case *createTableStmt:
			_, _ = s.tableSchema()
		case *alterTableStmt:
			_, _ = s.schemaChanges()
		}
	})
}
