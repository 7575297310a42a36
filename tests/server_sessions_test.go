package tests

import (
	"strings"
	"testing"
)

// TestServerReadOnlyTransactions: writes inside START TRANSACTION READ ONLY
// or after SET SESSION TRANSACTION READ ONLY fail with 1792 (GMS's own
// writes and the MERGE INTO / INSERT OVERWRITE front alike) and store
// nothing; reads work; READ WRITE restores writes.
func TestServerReadOnlyTransactions(t *testing.T) {
	s := startDDLServer(t)
	s.exec(t, "CREATE TABLE t (id BIGINT PRIMARY KEY, v INT)", "CREATE TABLE src (id BIGINT PRIMARY KEY, v INT)",
		"INSERT INTO t VALUES (1, 1)", "INSERT INTO src VALUES (1, 10), (2, 20)")
	writes := []string{
		"INSERT INTO t VALUES (2, 2)", "UPDATE t SET v = 5", "DELETE FROM t", "REPLACE INTO t VALUES (1, 9)",
		"INSERT INTO t SELECT id, v FROM src",
		"MERGE INTO t USING src ON t.id = src.id WHEN MATCHED THEN UPDATE SET v = src.v WHEN NOT MATCHED THEN INSERT VALUES (src.id, src.v)",
		"INSERT OVERWRITE t SELECT id, v FROM src",
	}
	s.exec(t, "START TRANSACTION READ ONLY")
	for _, q := range writes {
		s.fails(t, q, 1792, "READ ONLY")
	}
	if got := queryStrings(t, s.conn, "SELECT id, v FROM t"); len(got) != 1 || got[0][1] != "1" {
		t.Fatalf("SELECT in the read-only transaction = %q", got)
	}
	s.exec(t, "COMMIT", "SET SESSION TRANSACTION READ ONLY")
	for _, q := range writes {
		s.fails(t, q, 1792, "READ ONLY")
	}
	if got := queryStrings(t, s.conn, "SELECT id, v FROM t"); len(got) != 1 || got[0][1] != "1" {
		t.Fatalf("rows after refused writes = %q", got)
	}
	s.exec(t, "SET SESSION TRANSACTION READ WRITE", "INSERT INTO t VALUES (2, 2)")
	if got := queryStrings(t, s.conn, "SELECT COUNT(*) FROM t"); got[0][0] != "2" {
		t.Fatalf("COUNT after READ WRITE = %q", got)
	}
}

// TestServerViewsRefused: CREATE VIEW is refused with 1235 (Paimon's
// filesystem catalog has no views) and nothing is stored; system tables
// that do not read one snapshot refuse AS OF instead of ignoring it.
func TestServerViewsRefused(t *testing.T) {
	s := startDDLServer(t)
	s.exec(t, "CREATE TABLE t (id BIGINT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 1)", "INSERT INTO t VALUES (2, 2)")
	s.fails(t, "CREATE VIEW vv AS SELECT * FROM t", 1235, "no views")
	s.fails(t, "CREATE OR REPLACE VIEW vv AS SELECT * FROM t", 1235, "no views")
	s.fails(t, "SELECT * FROM vv", 1146)
	if got := queryStrings(t, s.conn, "SELECT COUNT(*) FROM information_schema.VIEWS WHERE TABLE_SCHEMA = 'ddl'"); got[0][0] != "0" {
		t.Errorf("information_schema.VIEWS = %q", got)
	}
	for _, sys := range []string{"snapshots", "schemas", "options", "tags", "branches", "consumers"} {
		s.fails(t, "SELECT * FROM `t$"+sys+"` AS OF 1", 1235, "AS OF")
		s.fails(t, "SELECT * FROM `t$"+sys+"` FOR SYSTEM_TIME AS OF '2020-01-01 00:00:00'", 0, "")
	}
	// The ones that read a snapshot apply it.
	for _, c := range []struct{ sys, want string }{{"files", "1"}, {"partitions", "1"}, {"buckets", "1"}} {
		if got := queryStrings(t, s.conn, "SELECT COUNT(*) FROM `t$"+c.sys+"` AS OF 1"); got[0][0] != c.want {
			t.Errorf("t$%s AS OF 1: %q, want %s", c.sys, got, c.want)
		}
	}
	if got := queryStrings(t, s.conn, "SELECT COUNT(*) FROM `t$files`"); strings.TrimSpace(got[0][0]) != "2" {
		t.Errorf("t$files now: %q", got)
	}
}
