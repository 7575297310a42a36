package tests

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/sqlengine"
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

// TestMultiTableCommitTableCreatedAgain: a transaction over two tables
// whose second table another server drops and creates again before the
// COMMIT answers 1146 and commits nothing: the first table stays empty and
// the new table does not take the old one's rows (the multi-table commit
// checked only that a schema file existed, not that it was the same
// table's). The retry on the new table commits both.
func TestMultiTableCommitTableCreatedAgain(t *testing.T) {
	wh := filepath.Join(t.TempDir(), "wh")
	db := openWarehouseDB(t, startWarehouseServer(t, wh), "default", "")
	other := openWarehouseDB(t, startWarehouseServer(t, wh), "default", "")
	ctx := context.Background()
	mustExec(t, db,
		"CREATE TABLE z1 (k BIGINT PRIMARY KEY, s VARCHAR(32))",
		"CREATE TABLE z2 (k BIGINT PRIMARY KEY, v BIGINT)")
	c1, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c1.Close()
	mustExec(t, c1, "BEGIN", "INSERT INTO z1 VALUES (1, 'txn')", "INSERT INTO z2 VALUES (1, 100)")
	time.Sleep(5 * time.Millisecond) // the new schema's timeMillis differs
	mustExec(t, other, "DROP TABLE z2", "CREATE TABLE z2 (k BIGINT PRIMARY KEY, v BIGINT)")
	_, err = c1.ExecContext(ctx, "COMMIT")
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1146 {
		t.Fatalf("COMMIT: %v, want error 1146 (z2 was dropped and created again)", err)
	}
	for _, q := range []string{"SELECT count(*) FROM z1", "SELECT count(*) FROM z2"} {
		var n int
		if err := other.QueryRow(q).Scan(&n); err != nil || n != 0 {
			t.Errorf("%s = %d (%v) after the failed transaction, want 0", q, n, err)
		}
	}
	mustExec(t, c1, "BEGIN", "INSERT INTO z1 VALUES (1, 'retried')", "INSERT INTO z2 VALUES (1, 101)", "COMMIT")
	var n, v int64
	if err := other.QueryRow("SELECT count(*), sum(v) FROM z2").Scan(&n, &v); err != nil || n != 1 || v != 101 {
		t.Errorf("z2 after the retry: %d rows, sum %d (%v), want 1 row of 101", n, v, err)
	}
}

// Issue 12: "BEGIN; INSERT INTO y1 …; INSERT INTO y2 …; COMMIT" killed as
// soon as y1's new snapshot appeared left y1 with its row and y2 empty. A
// server whose storage "crashes" (storage.NewFaulty) right after the
// first table's snapshot is published, before the second's, leaves the
// transaction record; a new server on the warehouse rolls the
// transaction forward on start-up, so both tables hold their rows, each
// committed once.
func TestMultiTableCrashBetweenTablesRollsForward(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "wh")
	base, err := storage.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu        sync.Mutex
		recorded  bool // the transaction record is written
		published int  // snapshots published since
		armed     atomic.Bool
	)
	in := &storage.Injector{Decide: func(op storage.Op) storage.Fault {
		if !armed.Load() || !op.Kind.IsWrite() {
			return storage.NoFault
		}
		mu.Lock()
		defer mu.Unlock()
		if strings.HasPrefix(op.Path, snapshot.TxRecordDir+"/") {
			recorded = true
			return storage.NoFault
		}
		if recorded && strings.Contains(op.Path, "/snapshot/snapshot-") {
			published++
			if published == 2 {
				return storage.CrashBefore
			}
		}
		return storage.NoFault
	}}
	srv, err := sqlengine.New(ctx, sqlengine.Config{Warehouse: dir, Storage: storage.NewFaulty(base, in), Host: "127.0.0.1", CompactionWorkers: -1})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Start() }()
	db := openWarehouseDB(t, srv.Addr(), "default", "")
	mustExec(t, db,
		"CREATE TABLE y1 (k BIGINT PRIMARY KEY, s VARCHAR(32))",
		"CREATE TABLE y2 (k BIGINT PRIMARY KEY, v BIGINT)",
		"INSERT INTO y2 VALUES (0, 0)")
	armed.Store(true)
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "BEGIN", "INSERT INTO y1 VALUES (1, 'one')", "INSERT INTO y2 SELECT k + 1, v + 7 FROM y2", "INSERT INTO y2 VALUES (5, 5)")
	_, err = c.ExecContext(ctx, "COMMIT")
	if !in.Crashed() {
		t.Fatalf("COMMIT: %v; the storage did not crash between the tables' commits", err)
	}
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1180 {
		t.Errorf("COMMIT after the crash: %v, want error 1180 (the transaction completes by recovery)", err)
	}
	c.Close()
	db.Close()
	srv.Close()
	<-done

	// On disk: one table committed, the other not, and the record left.
	var users []string
	for _, name := range []string{"y1", "y2"} {
		s, err := snapshot.NewSnapshotManager(base.Sub("default.db/"+name), "").Latest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		users = append(users, s.CommitUser)
	}
	var records int
	for _, err := range snapshot.ListTxRecords(ctx, base) {
		if err != nil {
			t.Fatal(err)
		}
		records++
	}
	if records != 1 {
		t.Fatalf("%d transaction records after the crash, want 1", records)
	}
	if users[0] == users[1] {
		t.Fatalf("both tables committed by %q before the crash: it did not fall between them", users[0])
	}

	// A new server rolls the transaction forward before it serves.
	db2 := openWarehouseDB(t, startServerConfig(t, sqlengine.Config{Warehouse: dir, Host: "127.0.0.1", CompactionWorkers: -1}), "default", "")
	got := func(q string) string {
		t.Helper()
		var out []string
		rows, err := db2.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var a, b string
			if err := rows.Scan(&a, &b); err != nil {
				t.Fatal(err)
			}
			out = append(out, a+"="+b)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return strings.Join(out, ",")
	}
	if g := got("SELECT k, s FROM y1 ORDER BY k"); g != "1=one" {
		t.Errorf("y1 after recovery: %s, want 1=one", g)
	}
	if g := got("SELECT k, v FROM y2 ORDER BY k"); g != "0=0,1=7,5=5" {
		t.Errorf("y2 after recovery: %s, want 0=0,1=7,5=5", g)
	}
	var u1, u2 string
	if err := db2.QueryRow("SELECT commit_user FROM `y1$snapshots` ORDER BY snapshot_id DESC LIMIT 1").Scan(&u1); err != nil {
		t.Fatal(err)
	}
	if err := db2.QueryRow("SELECT commit_user FROM `y2$snapshots` ORDER BY snapshot_id DESC LIMIT 1").Scan(&u2); err != nil {
		t.Fatal(err)
	}
	if u1 != u2 {
		t.Errorf("after recovery the tables' last commits are by %q and %q, want the transaction's", u1, u2)
	}
	for _, name := range []string{"y1", "y2"} {
		var n int
		if err := db2.QueryRow("SELECT count(*) FROM `"+name+"$snapshots` WHERE commit_user = ?", u1).Scan(&n); err != nil || n != 1 {
			t.Errorf("%s has %d snapshots of the transaction (%v), want 1", name, n, err)
		}
	}
	for _, err := range snapshot.ListTxRecords(ctx, base) {
		if err != nil {
			t.Fatal(err)
		}
		t.Error("a transaction record is left after recovery")
	}
}
