package tests

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/sqlengine"
)

// TestServerSpecialStatements: the statements MySQL treats specially
// (sqlengine/statements.go) get MySQL's answers, and the connection keeps
// working after each error.
func TestServerSpecialStatements(t *testing.T) {
	s := startDDLServer(t)
	long := strings.Repeat("n", 65)
	for _, c := range []struct {
		q    string
		code uint16
		want string
	}{
		{"", 1065, "Query was empty"},
		{";;;", 1065, "Query was empty"},
		{" -- nothing\n/* at all */ ;", 1065, "Query was empty"},
		{"KILL 999999", 1094, "999999"},
		{"KILL QUERY 999999", 1094, "999999"},
		{"SET time_zone = 'Nowhere/Nowhere'", 1298, "Nowhere/Nowhere"},
		{"SET @@session.time_zone = '+25:00'", 1298, "+25:00"},
		{"SET lakesql.x = 1", 1193, "lakesql.x"},
		{"SET SESSION lakesql.x = 1", 1193, "lakesql.x"},
		{"SET GLOBAL read_only = 1", 1238, "--read-only"},
		{"SET GLOBAL super_read_only = ON", 1238, "super_read_only"},
		{"CREATE TABLE " + long + " (id BIGINT)", 1059, long},
		{"CREATE TABLE ok1 (" + long + " BIGINT)", 1059, long},
		{"CREATE TABLE ok2 (id BIGINT, " + long + " INT, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1')", 1059, long},
		{"CREATE DATABASE " + long, 1059, long},
	} {
		s.fails(t, c.q, c.code, c.want)
	}
	s.exec(t, "CREATE TABLE k (id BIGINT, v INT, PRIMARY KEY (id) NOT ENFORCED)")
	s.fails(t, "SELECT v FROM k a JOIN k b ON a.id = b.id", 1052, "ambiguous")
	s.fails(t, "SET GLOBAL log_error = '/tmp/lakesql-log'", 1238, "read only")
	s.fails(t, "CREATE TEMPORARY TABLE tmp (a INT)", 1235, "TEMPORARY")
	s.fails(t, "ALTER TABLE k ADD COLUMN "+long+" INT", 1059, long)
	s.fails(t, "ALTER TABLE k RENAME COLUMN v TO "+long, 1059, long)
	if got := s.tables(t); strings.Contains(strings.Join(got, ","), long) {
		t.Errorf("a table with a long name was created: %q", got)
	}
	// 64 characters are allowed.
	ok := strings.Repeat("n", 64)
	s.exec(t, "CREATE TABLE "+ok+" (id BIGINT)", "DROP TABLE "+ok)

	// A valid time zone still works, NOW() keeps working after a refused one.
	s.exec(t, "SET time_zone = '+05:30'", "SET time_zone = 'SYSTEM'", "SET @x_read_only = 1")
	var now time.Time
	if err := s.conn.QueryRowContext(context.Background(), "SELECT NOW()").Scan(&now); err != nil {
		t.Errorf("NOW() after a refused time zone: %v", err)
	}
	// KILL of a connection that exists is not 1094.
	other, err := s.db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	var id int64
	if err := other.QueryRowContext(context.Background(), "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	if _, err := s.conn.ExecContext(context.Background(), fmt.Sprintf("KILL QUERY %d", id)); err != nil {
		t.Errorf("KILL QUERY of an existing connection: %v", err)
	}
	// Multi-statement queries with a trailing semicolon or white space are
	// not "empty".
	multi, err := sql.Open("mysql", fmt.Sprintf("root@tcp(%s)/ddl?multiStatements=true", s.addr))
	if err != nil {
		t.Fatal(err)
	}
	defer multi.Close()
	if _, err := multi.Exec("INSERT INTO k VALUES (1, 1); INSERT INTO k VALUES (2, 2);  \n"); err != nil {
		t.Errorf("multi-statement query with a trailing semicolon: %v", err)
	}
	// An AS OF value that cannot be evaluated: a clear message, no Go struct.
	_, err = s.conn.ExecContext(context.Background(), "SELECT * FROM k FOR TIMESTAMP AS OF 99999999999")
	if err == nil || strings.Contains(err.Error(), "&{") || strings.Contains(err.Error(), "%!") {
		t.Errorf("FOR TIMESTAMP AS OF 99999999999: %v", err)
	}
}

// TestServerImplicitCommit: DDL inside a transaction commits it first, as
// MySQL does, for DDL of the lakesql front (Flink and MySQL CREATE TABLE,
// ALTER) and of GMS (DROP TABLE, CREATE DATABASE).
func TestServerImplicitCommit(t *testing.T) {
	s := startDDLServer(t)
	s.exec(t, "CREATE TABLE a (id BIGINT, v INT, PRIMARY KEY (id) NOT ENFORCED)")
	for i, ddl := range []string{
		"CREATE TABLE b1 (id BIGINT, PRIMARY KEY (id) NOT ENFORCED)",
		"CREATE TABLE b2 (id BIGINT PRIMARY KEY)",
		"ALTER TABLE b1 ADD COLUMN c INT",
		"DROP TABLE b2",
		"CREATE DATABASE other_db",
	} {
		s.exec(t, "BEGIN", fmt.Sprintf("INSERT INTO a VALUES (%d, 1)", i), ddl, "ROLLBACK")
		if got := s.countRows(t, "a"); got != fmt.Sprint(i+1) {
			t.Errorf("BEGIN; INSERT; %s; ROLLBACK: a has %s rows, want %d (the INSERT committed by the DDL)", ddl, got, i+1)
		}
	}
	// After the implicit commit the session is back in autocommit mode.
	s.exec(t, "INSERT INTO a VALUES (100, 1)")
	other := s.open(t, "ddl")
	var n int
	if err := other.QueryRow("SELECT COUNT(*) FROM a WHERE id = 100").Scan(&n); err != nil || n != 1 {
		t.Errorf("autocommit after the implicit commit: other connection sees %d rows, %v", n, err)
	}
}

// TestServerMaxAllowedPacket: a query larger than max_allowed_packet gets
// 1153 and the connection is closed, as MySQL does; smaller ones work.
func TestServerMaxAllowedPacket(t *testing.T) {
	s := startDDLServer(t)
	var def int64
	if err := s.conn.QueryRowContext(context.Background(), "SELECT @@max_allowed_packet").Scan(&def); err != nil || def != 64<<20 {
		t.Errorf("@@max_allowed_packet = %d, %v; want MySQL's default 67108864", def, err)
	}
	s.exec(t, "SET GLOBAL max_allowed_packet = 1048576")
	defer s.exec(t, fmt.Sprintf("SET GLOBAL max_allowed_packet = %d", def))
	conn, err := s.db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	big := "SELECT '" + strings.Repeat("x", 2<<20) + "'"
	_, err = conn.ExecContext(context.Background(), big)
	if mysqlErrNo(err) != 1153 {
		t.Errorf("2 MB query with max_allowed_packet 1 MB: %.200v, want 1153", err)
	}
	time.Sleep(500 * time.Millisecond)
	if err := conn.PingContext(context.Background()); err == nil {
		t.Error("the connection is still open after 1153")
	}
	var n int
	if err := s.conn.QueryRowContext(context.Background(), "SELECT LENGTH('"+strings.Repeat("y", 512<<10)+"')").Scan(&n); err != nil || n != 512<<10 {
		t.Errorf("512 KB query: %d, %v", n, err)
	}
}

// TestServerReadOnlyCodes: writes on a --read-only server fail with 1290,
// MySQL's ER_OPTION_PREVENTS_STATEMENT, through GMS and the DDL front.
func TestServerReadOnlyCodes(t *testing.T) {
	srv, err := sqlengine.New(context.Background(), sqlengine.Config{Warehouse: t.TempDir(), Host: "127.0.0.1", Port: 0, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Start() }()
	defer func() { srv.Close(); <-done }()
	db, err := sql.Open("mysql", fmt.Sprintf("root@tcp(%s)/", srv.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	waitReady(t, db)
	for _, q := range []string{
		"CREATE TABLE x (id BIGINT, PRIMARY KEY (id) NOT ENFORCED)",
		"CREATE DATABASE y",
	} {
		if _, err := db.Exec(q); mysqlErrNo(err) != 1290 {
			t.Errorf("%s on a read-only server: %v, want 1290", q, err)
		}
	}
}
