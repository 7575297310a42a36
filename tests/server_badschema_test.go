package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServerUnparsableSchema: a table whose schema lakesql cannot parse (a
// Paimon 2.x VECTOR(FLOAT, 4) column) does not break the catalog: SHOW
// TABLES, SHOW TABLE STATUS and information_schema.TABLES/COLUMNS list it
// and every other table of every database; reading it fails naming the
// unsupported type, not "corrupt". (DESCRIBE shows no columns: GMS takes
// the schema from the stand-in table.)
func TestServerUnparsableSchema(t *testing.T) {
	s := startDDLServer(t)
	s.exec(t, "CREATE TABLE good (id BIGINT PRIMARY KEY, v STRING)", "CREATE TABLE vec (id BIGINT PRIMARY KEY, e STRING)",
		"CREATE DATABASE other", "CREATE TABLE other.fine (x INT)", "INSERT INTO good VALUES (1, 'a')")
	p := filepath.Join(s.wh, "ddl.db", "vec", "schema", "schema-0")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"type" : "STRING"`) {
		t.Fatalf("schema-0 has no STRING field:\n%s", b)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), `"type" : "STRING"`, `"type" : "VECTOR(FLOAT, 4)"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(q string, want ...string) {
		t.Helper()
		rows := queryStrings(t, s.conn, q)
		var flat []string
		for _, r := range rows {
			flat = append(flat, strings.Join(r, "|"))
		}
		all := strings.Join(flat, "\n")
		for _, w := range want {
			if !strings.Contains(all, w) {
				t.Errorf("%s lacks %q:\n%s", q, w, all)
			}
		}
	}
	check("SHOW TABLES", "good", "vec")
	check("SHOW FULL TABLES", "good", "vec")
	check("SHOW TABLE STATUS", "good", "vec")
	check("SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA IN ('ddl', 'other') ORDER BY 1, 2",
		"ddl|good", "ddl|vec", "other|fine")
	check("SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA IN ('ddl', 'other') ORDER BY 1, 2, 3",
		"ddl|good|id", "ddl|good|v", "other|fine|x")
	check("SELECT COUNT(*) FROM information_schema.COLUMNS", "")
	check("SELECT * FROM good", "1|a")
	// It is listed with no columns and the reason as its comment.
	check("SELECT TABLE_COMMENT FROM information_schema.TABLES WHERE TABLE_NAME = 'vec'", "VECTOR(FLOAT, 4)")
	if rows := queryStrings(t, s.conn, "DESCRIBE vec"); len(rows) != 0 {
		t.Errorf("DESCRIBE vec = %q", rows)
	}
	for _, q := range []string{"SELECT * FROM vec", "SELECT COUNT(*) FROM vec", "SHOW CREATE TABLE vec", "SHOW CREATE PAIMON TABLE vec"} {
		s.fails(t, q, 0, "VECTOR(FLOAT, 4)")
		_, err := s.conn.ExecContext(t.Context(), q)
		if err != nil && strings.Contains(strings.ToLower(err.Error()), "corrupt") {
			t.Errorf("%s: %v says corrupt", q, err)
		}
	}
}
