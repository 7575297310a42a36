package tests

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/sqlengine"
)

// TestReadOfExpiredSnapshotIsPlannedAgain: a statement whose snapshot
// another server expires while it reads (a full compaction, then
// expire_snapshots deleting the files the statement planned) used to fail
// with 1105 naming the deleted file. Outside a transaction, before any row
// reached the client, it is planned again on the latest snapshot and
// answers the right rows; inside a transaction it answers 1412 saying the
// snapshot was expired by another writer, and the transaction goes on.
func TestReadOfExpiredSnapshotIsPlannedAgain(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "wh")
	x := expiringWarehouse(t, dir)
	armed, armedOn, expired := &x.armed, &x.armedOn, &x.expired
	srv, db := crashServer(t, dir, x.st)
	defer srv.Close()
	defer db.Close()

	// Outside a transaction: planned again, the right rows.
	armed.Store(true)
	var n int
	var s string
	err := db.QueryRow("SELECT count(*), group_concat(v ORDER BY k) FROM t WHERE v <> ''").Scan(&n, &s)
	if expired.Load() != 1 {
		t.Fatalf("the expiration did not run during the statement (%d)", expired.Load())
	}
	if err != nil || n != 3 || s != "a,b,c" {
		t.Fatalf("SELECT while another server expired its snapshot: %d %q, %v; want 3 \"a,b,c\"", n, s, err)
	}

	// A write reads the latest snapshot's manifests to place its rows:
	// planned again as well.
	armedOn.Store("manifest-list-")
	armed.Store(true)
	if _, err := db.Exec("INSERT INTO t VALUES (5, 'e')"); err != nil || expired.Load() != 2 {
		t.Fatalf("INSERT while another server expired its snapshot: %v (expirations %d)", err, expired.Load())
	}
	armedOn.Store(".parquet")

	// Inside a transaction: 1412 naming what happened; the transaction
	// continues.
	mustExec(t, x.other, "INSERT INTO t VALUES (4, 'd')")
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	mustExec(t, conn, "BEGIN")
	armed.Store(true)
	err = conn.QueryRowContext(ctx, "SELECT count(*) FROM t WHERE v <> ''").Scan(&n)
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1412 || !strings.Contains(me.Message, "expired the snapshot") {
		t.Fatalf("SELECT in a transaction while another server expired its snapshot: %v, want 1412 saying so", err)
	}
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM t WHERE v <> ''").Scan(&n); err != nil || n != 5 {
		t.Fatalf("the next statement of the transaction: %d, %v; want 5", n, err)
	}
	mustExec(t, conn, "COMMIT")
}

// TestReadOfTableDroppedTwiceAnswers1146: a SELECT whose table another
// server drops and creates again while it reads the schema of its data
// files, and again under its re-plan, used to answer 1105 "schema not
// found: schema 0 of branch main" (the error named no table, so the
// mapping could not tell a dropped table from a lost file). It answers
// 1146 for dd.
func TestReadOfTableDroppedTwiceAnswers1146(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "wh")
	srv2, other := crashServer(t, dir, nil)
	defer srv2.Close()
	defer other.Close()
	// Files written under schema-0, read through schema-1: the read of
	// schema-0 comes after the table resolved.
	incarnation := []string{
		"CREATE TABLE dd (k BIGINT PRIMARY KEY, v BIGINT) WITH ('bucket' = '1')",
		"INSERT INTO dd VALUES (1, 1), (2, 2)",
		"ALTER TABLE dd ADD COLUMN c BIGINT",
	}
	mustExec(t, other, incarnation...)
	base, err := storage.Open(ctx, noSyncURL(dir))
	if err != nil {
		t.Fatal(err)
	}
	// The reading server's read of schema-0 finds dd dropped; its next
	// storage operation finds dd created again.
	var armed atomic.Int64
	var dropped atomic.Bool
	in := &storage.Injector{Decide: func(op storage.Op) storage.Fault {
		if dropped.CompareAndSwap(true, false) {
			mustExec(t, other, incarnation...)
			return storage.NoFault
		}
		if (op.Kind == storage.OpOpen || op.Kind == storage.OpReadAll) && strings.HasSuffix(op.Path, "default.db/dd/schema/schema-0") && armed.Add(-1) >= 0 {
			mustExec(t, other, "DROP TABLE dd")
			dropped.Store(true)
		}
		return storage.NoFault
	}}
	srv, db := crashServer(t, dir, storage.NewFaulty(base, in))
	defer srv.Close()
	defer db.Close()
	armed.Store(2) // the statement and its re-plan
	var n int
	err = db.QueryRow("SELECT count(*) FROM dd WHERE v > 0").Scan(&n)
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1146 || !strings.Contains(me.Message, "'default.dd'") {
		t.Fatalf("SELECT of a table dropped under it and under its re-plan: %d, %v; want 1146 for default.dd", n, err)
	}
	if armed.Load() > 1 {
		t.Fatalf("the table was not dropped during the statement (%d drops left)", armed.Load())
	}
}

// TestMultiStatementReadOfExpiredSnapshotIsPlannedAgain: the statements of
// a multi-statement query (COM_QUERY with CLIENT_MULTI_STATEMENTS, where
// each statement is answered in turn) get the same one-time re-plan as a
// single statement when another server expires the snapshot they read.
// Before, the statement answered 1412 and the statements after it did
// not run.
func TestMultiStatementReadOfExpiredSnapshotIsPlannedAgain(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "wh")
	x := expiringWarehouse(t, dir)
	armed, armedOn, expired := &x.armed, &x.armedOn, &x.expired
	addr := startServerConfig(t, sqlengine.Config{Warehouse: noSyncURL(dir), Storage: x.st, Host: "127.0.0.1", Port: 0})
	db := openWarehouseDB(t, addr, "default", "&multiStatements=true")
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()

	// A read in the middle of a multi-statement query: planned again, the
	// right rows, and the statement after it runs.
	armed.Store(true)
	rows, err := conn.QueryContext(ctx, "SELECT 0; SELECT count(*), group_concat(v ORDER BY k) FROM t WHERE v <> ''; SELECT 7")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		for rows.Next() {
			cols, _ := rows.Columns()
			vals := make([]sql.NullString, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for i, v := range vals {
				if i > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(v.String)
			}
			got = append(got, b.String())
		}
		if !rows.NextResultSet() {
			break
		}
	}
	err = rows.Err()
	rows.Close()
	if expired.Load() != 1 {
		t.Fatalf("the expiration did not run during the statement (%d)", expired.Load())
	}
	if err != nil || strings.Join(got, "|") != "0|3 a,b,c|7" {
		t.Fatalf("multi-statement SELECTs while another server expired the snapshot: %q, %v; want \"0|3 a,b,c|7\"", got, err)
	}

	// Writes of a multi-statement query place their rows by the latest
	// snapshot's manifests: planned again as well, and every statement
	// runs.
	armedOn.Store("manifest-list-")
	armed.Store(true)
	if _, err := conn.ExecContext(ctx, "INSERT INTO t VALUES (5, 'e'); INSERT INTO t VALUES (6, 'f')"); err != nil || expired.Load() != 2 {
		t.Fatalf("multi-statement INSERTs while another server expired the snapshot: %v (expirations %d)", err, expired.Load())
	}
	var n int
	var s string
	if err := conn.QueryRowContext(ctx, "SELECT count(*), group_concat(v ORDER BY k) FROM t").Scan(&n, &s); err != nil || n != 5 || s != "a,b,c,e,f" {
		t.Fatalf("after the INSERTs: %d %q, %v; want 5 \"a,b,c,e,f\"", n, s, err)
	}
}

// expiring is a warehouse whose table t another server expires under a
// reading statement.
type expiring struct {
	st      storage.Storage // the reading server's store
	other   *sql.DB         // the other server
	armed   atomic.Bool     // set: expire at the next matching read
	armedOn atomic.Value    // a string the read file's path holds
	expired atomic.Int64    // expirations so far
}

// expiringWarehouse creates table t (3 rows, two snapshots) in the
// warehouse dir through a second server and returns the reading server's
// store: at its first open of a file whose path holds armedOn while
// armed, the other server compacts t fully and expires every older
// snapshot, deleting the files the statement planned.
func expiringWarehouse(t *testing.T, dir string) *expiring {
	t.Helper()
	srv2, other := crashServer(t, dir, nil)
	t.Cleanup(func() { other.Close(); srv2.Close() })
	mustExec(t, other, "CREATE TABLE t (k BIGINT PRIMARY KEY, v VARCHAR(16)) WITH ('bucket' = '1')",
		"INSERT INTO t VALUES (1, 'a'), (2, 'b')", "INSERT INTO t VALUES (3, 'c')")
	base, err := storage.Open(context.Background(), noSyncURL(dir))
	if err != nil {
		t.Fatal(err)
	}
	x := &expiring{other: other}
	x.armedOn.Store(".parquet")
	x.st = storage.NewFaulty(base, &storage.Injector{Decide: func(op storage.Op) storage.Fault {
		if (op.Kind == storage.OpOpen || op.Kind == storage.OpReadAll) && strings.Contains(op.Path, x.armedOn.Load().(string)) && x.armed.CompareAndSwap(true, false) {
			mustExec(t, other, "CALL sys.compact(`table` => 't')",
				"CALL sys.expire_snapshots(`table` => 't', retain_min => 1, retain_max => 1)")
			x.expired.Add(1)
		}
		return storage.NoFault
	}})
	return x
}
