package tests

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/sqlengine"
)

// MERGE INTO and INSERT OVERWRITE through the MySQL protocol, on a writable
// server over an empty temporary warehouse (database mw).

type mergeServer struct {
	db   *sql.DB
	conn *sql.Conn // one session, for transactions
}

func startMergeServer(t *testing.T) *mergeServer {
	t.Helper()
	srv, err := sqlengine.New(context.Background(), sqlengine.Config{Warehouse: t.TempDir(), Host: "127.0.0.1", Port: 0})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Start() }()
	t.Cleanup(func() {
		srv.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("server did not stop")
		}
	})
	open := func(db string) *sql.DB {
		d, err := sql.Open("mysql", fmt.Sprintf("root@tcp(%s)/%s?parseTime=true&interpolateParams=true", srv.Addr(), db))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		return d
	}
	boot := open("")
	waitReady(t, boot)
	if _, err := boot.Exec("CREATE DATABASE mw"); err != nil {
		t.Fatal(err)
	}
	s := &mergeServer{db: open("mw")}
	s.conn, err = s.db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.conn.Close() })
	return s
}

// exec runs statements on the server's session connection.
func (s *mergeServer) exec(t *testing.T, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if _, err := s.conn.ExecContext(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// affected runs q and returns its affected-row count.
func (s *mergeServer) affected(t *testing.T, q string) int64 {
	t.Helper()
	res, err := s.conn.ExecContext(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// fails runs q, which must fail with MySQL error code (0: any code).
func (s *mergeServer) fails(t *testing.T, q string, code uint16, want string) {
	t.Helper()
	_, err := s.conn.ExecContext(context.Background(), q)
	if err == nil {
		t.Fatalf("%s: succeeded, want an error", q)
	}
	if code != 0 && mysqlErrNo(err) != code {
		t.Errorf("%s: error %v, want code %d", q, err, code)
	}
	if !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(want)) {
		t.Errorf("%s: error %q, want it to mention %q", q, err, want)
	}
}

// rows returns the rows of q as text lines, sorted.
func (s *mergeServer) rows(t *testing.T, q string) []string {
	t.Helper()
	var out []string
	for _, r := range queryStrings(t, s.conn, q) {
		out = append(out, strings.Join(r, "|"))
	}
	slices.Sort(out)
	return out
}

func (s *mergeServer) snapshots(t *testing.T, table string) []string {
	t.Helper()
	return s.rows(t, "SELECT snapshot_id, commit_kind FROM `"+table+"$snapshots`")
}

func mergeSameRows(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

func TestServerMergeSmoke(t *testing.T) {
	s := startMergeServer(t)
	s.exec(t,
		"CREATE TABLE tgt (id INT PRIMARY KEY, v INT, name VARCHAR(20))",
		"CREATE TABLE src (id INT PRIMARY KEY, v INT, name VARCHAR(20), op VARCHAR(1))",
		"INSERT INTO tgt VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, 'c'), (4, 5, 'd')",
		"INSERT INTO src VALUES (1, 11, 'A', 'U'), (2, 0, 'B', 'D'), (5, 50, 'E', 'I'), (6, 60, 'F', 'D')",
	)
	n := s.affected(t, `MERGE INTO tgt t USING src s ON t.id = s.id
		WHEN MATCHED AND s.op = 'D' THEN DELETE
		WHEN MATCHED THEN UPDATE SET v = s.v, name = s.name
		WHEN NOT MATCHED AND s.op <> 'D' THEN INSERT (id, v, name) VALUES (s.id, s.v, s.name)`)
	t.Logf("affected %d", n)
	t.Log(s.rows(t, "SELECT * FROM tgt"))
	t.Log(s.snapshots(t, "tgt"))
}
