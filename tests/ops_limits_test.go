package tests

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/lakesql/lakesql/sqlengine"
)

// opsServer starts a server over a fresh local warehouse with cfg.
func opsServer(t *testing.T, cfg sqlengine.Config) *sql.DB {
	t.Helper()
	cfg.Warehouse, cfg.Host, cfg.Port = t.TempDir(), "127.0.0.1", 0
	srv, err := sqlengine.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Start() }()
	db, err := sql.Open("mysql", "root@tcp("+srv.Addr()+")/default?interpolateParams=true")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close(); srv.Close(); <-done })
	for deadline := time.Now().Add(10 * time.Second); db.Ping() != nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("server not ready")
		}
	}
	return db
}

func opsExec(t *testing.T, db interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, qs ...string) {
	t.Helper()
	for _, q := range qs {
		if _, err := db.ExecContext(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func mysqlCode(err error) int {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return int(me.Number)
	}
	return 0
}

// safetyNet bounds a statement that must be stopped: it is not a timing
// assertion (the statements would run for an hour), only a way to fail
// instead of hanging when the stop does not work.
const safetyNet = 2 * time.Minute

// TestKillQueryAndProcessList: SHOW PROCESSLIST shows a running statement
// with its connection id; KILL QUERY stops it (a SLEEP, and a scan whose
// filter calls SLEEP per row) with 1317, and the connection survives;
// KILL of an unknown id is 1094.
func TestKillQueryAndProcessList(t *testing.T) {
	db := opsServer(t, sqlengine.Config{})
	opsExec(t, db, "CREATE TABLE k (id BIGINT PRIMARY KEY, v STRING) WITH ('bucket' = '2')",
		"INSERT INTO k VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')")
	ctx, cancel := context.WithTimeout(context.Background(), safetyNet)
	defer cancel()
	for _, q := range []string{"SELECT SLEEP(3600)", "SELECT count(*) FROM k WHERE SLEEP(1800) = 0"} {
		victim, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var id int64
		if err := victim.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
			t.Fatal(err)
		}
		errc := make(chan error, 1)
		go func() {
			_, err := victim.ExecContext(ctx, q)
			errc <- err
		}()
		// Wait until the process list shows the statement running.
		for {
			var found bool
			rows, err := db.QueryContext(ctx, "SHOW PROCESSLIST")
			if err != nil {
				t.Fatal(err)
			}
			cols, _ := rows.Columns()
			vals := make([]sql.NullString, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			for rows.Next() {
				if err := rows.Scan(ptrs...); err != nil {
					t.Fatal(err)
				}
				if vals[0].String == fmt.Sprint(id) && strings.Contains(vals[7].String, "SLEEP") {
					found = true
				}
			}
			rows.Close()
			if found {
				break
			}
			if ctx.Err() != nil {
				t.Fatalf("%s never showed in SHOW PROCESSLIST", q)
			}
			time.Sleep(10 * time.Millisecond)
		}
		opsExec(t, db, fmt.Sprintf("KILL QUERY %d", id))
		err = <-errc
		if mysqlCode(err) != 1317 {
			t.Errorf("%s after KILL QUERY: %v, want 1317", q, err)
		}
		var one int
		if err := victim.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
			t.Errorf("the killed statement's connection does not serve the next one: %v", err)
		}
		victim.Close()
	}
	if _, err := db.Exec("KILL QUERY 999999"); mysqlCode(err) != 1094 {
		t.Errorf("KILL QUERY 999999: %v, want 1094", err)
	}
}

// TestMaxExecutionTime: the session variable and the optimizer hint stop a
// SELECT with 3024; a writing statement is not limited (MySQL applies
// max_execution_time to SELECT only); the server's default is the global.
func TestMaxExecutionTime(t *testing.T) {
	db := opsServer(t, sqlengine.Config{MaxExecutionTime: 50 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), safetyNet)
	defer cancel()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var global, session int64
	if err := conn.QueryRowContext(ctx, "SELECT @@GLOBAL.max_execution_time, @@SESSION.max_execution_time").Scan(&global, &session); err != nil || global != 50 || session != 50 {
		t.Errorf("max_execution_time global %d session %d (%v), want 50 from the server's configuration", global, session, err)
	}
	if _, err := conn.ExecContext(ctx, "SELECT SLEEP(3600)"); mysqlCode(err) != 3024 {
		t.Errorf("SELECT past the global default: %v, want 3024", err)
	}
	opsExec(t, conn, "SET SESSION max_execution_time = 0", "CREATE TABLE m (id BIGINT PRIMARY KEY, s DOUBLE)")
	if _, err := conn.ExecContext(ctx, "SELECT /*+ MAX_EXECUTION_TIME(20) */ SLEEP(3600)"); mysqlCode(err) != 3024 {
		t.Errorf("the optimizer hint: %v, want 3024", err)
	}
	opsExec(t, conn, "SET SESSION max_execution_time = 20")
	if _, err := conn.ExecContext(ctx, "SELECT id, SLEEP(3600) FROM m UNION ALL SELECT 1, SLEEP(3600)"); mysqlCode(err) != 3024 {
		t.Errorf("SELECT past the session limit: %v, want 3024", err)
	}
	// A write is not limited: this INSERT sleeps longer than the limit and
	// commits.
	opsExec(t, conn, "INSERT INTO m SELECT 1, SLEEP(0.2)")
	var n int
	if err := conn.QueryRowContext(ctx, "SELECT /*+ MAX_EXECUTION_TIME(600000) */ count(*) FROM m").Scan(&n); err != nil || n != 1 {
		t.Errorf("after the INSERT: %d rows, %v", n, err)
	}
}

// TestQueryMemoryLimit: a statement that keeps more rows than
// lakesql_query_memory_limit allows (a sort, a GROUP BY, an INSERT …
// SELECT's buffered rows) fails with 3170 and changes nothing; without the
// limit, or under it, the same statements run.
func TestQueryMemoryLimit(t *testing.T) {
	db := opsServer(t, sqlengine.Config{})
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	opsExec(t, conn, "CREATE TABLE src (id BIGINT PRIMARY KEY, pad STRING) WITH ('bucket' = '2')", "CREATE TABLE dst (id BIGINT PRIMARY KEY, pad STRING)")
	var vals []string
	for i := range 5000 {
		vals = append(vals, fmt.Sprintf("(%d, '%s')", i, strings.Repeat("x", 200)))
	}
	opsExec(t, conn, "INSERT INTO src VALUES "+strings.Join(vals, ", "))
	statements := []string{
		"SELECT id, pad FROM src ORDER BY pad, id DESC",
		"SELECT DISTINCT concat(pad, id) FROM src",
		"INSERT INTO dst SELECT * FROM src",
	}
	opsExec(t, conn, "SET lakesql_query_memory_limit = 200000") // about 200 KB: 5000 rows of 200 bytes do not fit
	for _, q := range statements {
		_, err := conn.ExecContext(ctx, q)
		if mysqlCode(err) != 3170 || !strings.Contains(err.Error(), "lakesql_query_memory_limit") {
			t.Errorf("%s over the limit: %v, want 3170", q, err)
		}
	}
	var n int
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM dst").Scan(&n); err != nil || n != 0 {
		t.Errorf("dst has %d rows after the refused INSERT … SELECT (%v), want 0", n, err)
	}
	opsExec(t, conn, "SET lakesql_query_memory_limit = 100000000") // 100 MB
	for _, q := range statements {
		opsExec(t, conn, q)
	}
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM dst").Scan(&n); err != nil || n != 5000 {
		t.Errorf("dst has %d rows (%v), want 5000", n, err)
	}
	opsExec(t, conn, "SET lakesql_query_memory_limit = 0", "DELETE FROM dst")
	for _, q := range statements {
		opsExec(t, conn, q)
	}
}

// syncBuffer is a bytes.Buffer safe for the logger's concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestSlowQueryLog: a statement over --slow-query-ms logs one JSON line
// with the statement, its duration, rows and the figures of its scans (the
// partition filter leaves 1 of 3 partitions, whose 2 files are read in one
// split); a fast one logs none; commits log at info.
func TestSlowQueryLog(t *testing.T) {
	var buf syncBuffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo})))
	defer slog.SetDefault(old)
	db := opsServer(t, sqlengine.Config{SlowQuery: 150 * time.Millisecond})
	opsExec(t, db, "CREATE TABLE sq (id BIGINT, dt STRING, PRIMARY KEY (id, dt) NOT ENFORCED) PARTITIONED BY (dt) WITH ('bucket' = '2')",
		"INSERT INTO sq VALUES (1, 'a'), (2, 'b'), (3, 'c')",
		"INSERT INTO sq VALUES (4, 'a')")
	var got int
	if err := db.QueryRow("SELECT count(*) FROM sq WHERE dt = 'a' AND SLEEP(0.2) = 0").Scan(&got); err != nil || got != 2 {
		t.Fatalf("slow query: %d, %v", got, err)
	}
	if err := db.QueryRow("SELECT count(*) FROM sq").Scan(&got); err != nil {
		t.Fatal(err)
	}
	var slow []map[string]any
	commits := 0
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q is not JSON: %v", line, err)
		}
		switch m["msg"] {
		case "slow query":
			slow = append(slow, m)
		case "commit":
			if m["table"] == "default.sq" && m["level"] == "INFO" {
				commits++
			}
		}
	}
	if commits != 2 {
		t.Errorf("%d commit lines for default.sq, want 2:\n%s", commits, buf.String())
	}
	if len(slow) != 1 {
		t.Fatalf("%d slow-query lines, want 1:\n%s", len(slow), buf.String())
	}
	s := slow[0]
	if !strings.Contains(fmt.Sprint(s["statement"]), "SLEEP(0.2)") || s["rows_sent"] != float64(1) || s["kind"] != "select" ||
		s["scans"] != float64(1) || s["partitions"] != float64(1) || s["files"] != float64(2) || s["files_pruned"] != float64(0) ||
		s["splits"] != float64(1) || s["duration_ms"].(float64) < 150 {
		t.Errorf("slow-query line %v", s)
	}
}
