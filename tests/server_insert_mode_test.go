package tests

import (
	"testing"
)

// TestServerInsertModeFromPlan: whether an INSERT looks its keys up (INSERT
// IGNORE, ON DUPLICATE KEY UPDATE) comes from the statement's plan, not
// from its text: a plain INSERT whose string value spells "ON DUPLICATE KEY
// UPDATE" is an upsert (a text match made it fail with 1062), and INSERT
// IGNORE after a comment, in a prepared statement, keeps the existing row.
func TestServerInsertModeFromPlan(t *testing.T) {
	addr := startWarehouseServer(t, t.TempDir())
	mustExec(t, openWarehouseDB(t, addr, "", ""), "CREATE DATABASE im")
	db := openWarehouseDB(t, addr, "im", "")
	mustExec(t, db,
		"CREATE TABLE t (id BIGINT PRIMARY KEY, note VARCHAR(64))",
		"INSERT INTO t VALUES (1, 'first'), (2, 'second')",
		"INSERT INTO t VALUES (1, 'x ON DUPLICATE KEY UPDATE y')",
		"/* a comment */ INSERT IGNORE INTO t VALUES (2, 'ignored'), (3, 'third')",
	)
	if _, err := db.Exec("INSERT IGNORE INTO t VALUES (?, ?)", 3, "ignored too"); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, "INSERT INTO t VALUES (3, 'n') ON DUPLICATE KEY UPDATE note = CONCAT(note, '+')")
	got := queryStrings(t, db, "SELECT id, note FROM t ORDER BY id")
	want := [][]string{{"1", "x ON DUPLICATE KEY UPDATE y"}, {"2", "second"}, {"3", "third+"}}
	diffRows(t, "t", got, want)
}
