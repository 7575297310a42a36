package tests

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// Issue 12: "BEGIN; INSERT INTO x1 …; UPDATE x2 SET v=v+1 WHERE k=1;",
// another connection updates x2's row, then COMMIT returned 1213 — yet x1
// held the row, and a client retrying on 1213, as told, inserted it twice.
// Now every table's conflicts are checked before the first commits: 1213
// means nothing was committed, and the retry commits both once.
func TestMultiTableConflictCommitsNothing(t *testing.T) {
	addr := startWarehouseServer(t, filepath.Join(t.TempDir(), "wh"))
	db := openWarehouseDB(t, addr, "default", "")
	ctx := context.Background()
	mustExec(t, db,
		"CREATE TABLE x1 (k BIGINT PRIMARY KEY, s VARCHAR(32))",
		"CREATE TABLE x2 (k BIGINT PRIMARY KEY, v BIGINT)",
		"INSERT INTO x2 VALUES (1, 0)")
	c1, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c1.Close()
	mustExec(t, c1, "BEGIN", "INSERT INTO x1 VALUES (1, 'from-failed-txn')", "UPDATE x2 SET v = v + 1 WHERE k = 1")
	mustExec(t, db, "UPDATE x2 SET v = v + 10 WHERE k = 1") // another connection, autocommit
	_, err = c1.ExecContext(ctx, "COMMIT")
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1213 {
		t.Fatalf("COMMIT: %v, want error 1213", err)
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM x1").Scan(&n); err != nil || n != 0 {
		t.Fatalf("x1 has %d rows (%v) after the failed transaction, want 0", n, err)
	}
	var v int64
	if err := db.QueryRow("SELECT v FROM x2 WHERE k = 1").Scan(&v); err != nil || v != 10 {
		t.Fatalf("x2.v = %d (%v), want 10", v, err)
	}
	// The retry commits both tables once.
	mustExec(t, c1, "BEGIN", "INSERT INTO x1 VALUES (1, 'retried')", "UPDATE x2 SET v = v + 1 WHERE k = 1", "COMMIT")
	var s string
	if err := db.QueryRow("SELECT s FROM x1 WHERE k = 1").Scan(&s); err != nil || s != "retried" {
		t.Fatalf("x1 after the retry: %q, %v", s, err)
	}
	if err := db.QueryRow("SELECT v FROM x2 WHERE k = 1").Scan(&v); err != nil || v != 11 {
		t.Fatalf("x2.v after the retry = %d (%v), want 11", v, err)
	}
	// Both snapshots carry the transaction's id as commit user.
	var u1, u2 string
	if err := db.QueryRow("SELECT commit_user FROM `x1$snapshots` ORDER BY snapshot_id DESC LIMIT 1").Scan(&u1); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow("SELECT commit_user FROM `x2$snapshots` ORDER BY snapshot_id DESC LIMIT 1").Scan(&u2); err != nil {
		t.Fatal(err)
	}
	if u1 != u2 {
		t.Errorf("commit users %q and %q, want one transaction id", u1, u2)
	}
}
