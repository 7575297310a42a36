package tests

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/lakesql/lakesql/internal/storage"
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
	srv2, other := crashServer(t, dir, nil)
	defer srv2.Close()
	defer other.Close()
	mustExec(t, other, "CREATE TABLE t (k BIGINT PRIMARY KEY, v VARCHAR(16)) WITH ('bucket' = '1')",
		"INSERT INTO t VALUES (1, 'a'), (2, 'b')", "INSERT INTO t VALUES (3, 'c')")

	// The reading server: at its first open of a data file of t while
	// armed, the other server compacts t fully and expires every older
	// snapshot, deleting the files the statement planned.
	base, err := storage.Open(ctx, noSyncURL(dir))
	if err != nil {
		t.Fatal(err)
	}
	var armed atomic.Bool
	var armedOn atomic.Value
	armedOn.Store(".parquet")
	var expired atomic.Int64
	in := &storage.Injector{Decide: func(op storage.Op) storage.Fault {
		if (op.Kind == storage.OpOpen || op.Kind == storage.OpReadAll) && strings.Contains(op.Path, armedOn.Load().(string)) && armed.CompareAndSwap(true, false) {
			mustExec(t, other, "CALL sys.compact(`table` => 't')",
				"CALL sys.expire_snapshots(`table` => 't', retain_min => 1, retain_max => 1)")
			expired.Add(1)
		}
		return storage.NoFault
	}}
	srv, db := crashServer(t, dir, storage.NewFaulty(base, in))
	defer srv.Close()
	defer db.Close()

	// Outside a transaction: planned again, the right rows.
	armed.Store(true)
	var n int
	var s string
	err = db.QueryRow("SELECT count(*), group_concat(v ORDER BY k) FROM t WHERE v <> ''").Scan(&n, &s)
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
	mustExec(t, other, "INSERT INTO t VALUES (4, 'd')")
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
