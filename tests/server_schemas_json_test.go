package tests

import (
	"strings"
	"testing"
)

// TestServerSchemasJSONIsJackson: $schemas writes keys and options in
// Jackson's flat JSON, as Java's SchemasTable does: a U+2028 stays as it is
// (encoding/json would write \u2028), '<' and '>' are not escaped, a
// quote is.
func TestServerSchemasJSONIsJackson(t *testing.T) {
	addr := startWarehouseServer(t, t.TempDir())
	mustExec(t, openWarehouseDB(t, addr, "", ""), "CREATE DATABASE sj")
	db := openWarehouseDB(t, addr, "sj", "")
	mustExec(t, db, "CREATE TABLE t (id INT NOT NULL, `p\u2028q` INT NOT NULL, PRIMARY KEY (id, `p\u2028q`) NOT ENFORCED) PARTITIONED BY (`p\u2028q`) WITH ('bucket' = '1', 'x.note' = 'a\u2028b<c>\"')")
	rows := queryStrings(t, db, "SELECT partition_keys, primary_keys, options FROM `t$schemas`")
	if len(rows) != 1 {
		t.Fatalf("$schemas: %v", rows)
	}
	if want := "[\"p\u2028q\"]"; rows[0][0] != want {
		t.Errorf("partition_keys %q, want %q", rows[0][0], want)
	}
	if want := "[\"id\",\"p\u2028q\"]"; rows[0][1] != want {
		t.Errorf("primary_keys %q, want %q", rows[0][1], want)
	}
	if want := "\"x.note\":\"a\u2028b<c>\\\"\""; !strings.Contains(rows[0][2], want) {
		t.Errorf("options %q, want them to hold %q", rows[0][2], want)
	}
}
