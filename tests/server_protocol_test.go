package tests

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// TestServerProtocol checks, through go-sql-driver over TCP, what issue 14
// items 5 and 10 ask of the wire: statements tools send answered, error
// SQLSTATEs, and the time-travel rewrite never editing literals (the client
// suite in clients_test.go checks the same through other drivers).
func TestServerProtocol(t *testing.T) {
	port := startClientServer(t)
	open := func(params string) *sql.DB {
		db, err := sql.Open("mysql", fmt.Sprintf("root@tcp(127.0.0.1:%s)/default?%s", port, params))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	db := open("interpolateParams=true")
	prepared := open("interpolateParams=false") // server-side prepared statements
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	one := func(db *sql.DB, q string, args ...any) string {
		t.Helper()
		var s sql.NullString
		if err := db.QueryRow(q, args...).Scan(&s); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return s.String
	}
	exec("CREATE TABLE p (id BIGINT PRIMARY KEY, s VARCHAR(60))")

	// Item 10: literals, comments and quoted identifiers are never rewritten.
	exec("INSERT INTO p VALUES (193, 'see VERSION AS OF 3'), (194, 'FOR TIMESTAMP AS OF ''2026-01-01''')")
	if got := one(db, "SELECT s FROM p WHERE id = 193"); got != "see VERSION AS OF 3" {
		t.Errorf("stored %q", got)
	}
	if got := one(db, "SELECT s FROM p WHERE id = 194"); got != "FOR TIMESTAMP AS OF '2026-01-01'" {
		t.Errorf("stored %q", got)
	}
	for q, want := range map[string]string{
		"SELECT 'TIMESTAMP AS OF 7'":                                          "TIMESTAMP AS OF 7",
		"SELECT \"VERSION AS OF 3\" /* VERSION AS OF 4 */":                    "VERSION AS OF 3",
		"SELECT `x VERSION AS OF 1` FROM (SELECT 5 AS `x VERSION AS OF 1`) d": "5",
	} {
		if got := one(db, q); got != want {
			t.Errorf("%s = %q, want %q", q, got, want)
		}
	}
	if got := one(prepared, "SELECT 'AS OF ?'"); got != "AS OF ?" {
		t.Errorf("prepared SELECT 'AS OF ?' = %q", got)
	}
	if got := one(prepared, "SELECT s FROM p WHERE s = 'see VERSION AS OF 3' AND id = ?", 193); got != "see VERSION AS OF 3" {
		t.Errorf("prepared literal = %q", got)
	}

	// SQL-level PREPARE: answered (no malformed OK packet), AS OF ? refused
	// with 1235 and the connection survives.
	conn, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(t.Context(), "PREPARE s1 FROM 'SELECT s FROM p WHERE id = ?'"); err != nil {
		t.Fatalf("PREPARE: %v", err)
	}
	var s string
	if _, err := conn.ExecContext(t.Context(), "SET @i = 193"); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRowContext(t.Context(), "EXECUTE s1 USING @i").Scan(&s); err != nil || s != "see VERSION AS OF 3" {
		t.Errorf("EXECUTE = %q, %v", s, err)
	}
	for _, q := range []string{"PREPARE s2 FROM 'SELECT * FROM p AS OF ?'", "PREPARE s2 FROM 'SELECT * FROM p FOR TIMESTAMP AS OF ?'",
		"PREPARE s2 FROM 'SELECT * FROM p AS OF TIMESTAMP ?'"} {
		_, err := conn.ExecContext(t.Context(), q)
		if mysqlErrNo(err) != 1235 {
			t.Errorf("%s: %v, want error 1235", q, err)
		}
	}
	if _, err := conn.ExecContext(t.Context(), "SET @q = 'SELECT * FROM p VERSION AS OF ?'"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(t.Context(), "PREPARE s3 FROM @q"); mysqlErrNo(err) != 1235 {
		t.Errorf("PREPARE FROM @q: %v, want error 1235", err)
	}
	if err := conn.QueryRowContext(t.Context(), "SELECT 1").Scan(&s); err != nil {
		t.Errorf("connection after the refused PREPARE: %v", err)
	}
	// Server-side prepared AS OF ? (binary protocol) is 1235 too.
	if _, err := prepared.Query("SELECT * FROM p AS OF ?", 1); mysqlErrNo(err) != 1235 {
		t.Errorf("prepared AS OF ?: %v, want 1235", err)
	}

	// Item 5: statements tools send.
	if got, want := one(db, "SELECT VERSION()"), one(db, "SELECT @@version"); got != want || !strings.HasSuffix(got, "-lakesql") {
		t.Errorf("VERSION() = %q, @@version = %q", got, want)
	}
	c2, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	var a, b string
	for _, set := range []string{"SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED", "SET tx_isolation = 'SERIALIZABLE'", "SET transaction_isolation = 'READ-UNCOMMITTED'"} {
		if _, err := c2.ExecContext(t.Context(), set); err != nil {
			t.Fatalf("%s: %v", set, err)
		}
		if err := c2.QueryRowContext(t.Context(), "SELECT @@tx_isolation, @@transaction_isolation").Scan(&a, &b); err != nil || a != b {
			t.Errorf("after %s: @@tx_isolation = %q, @@transaction_isolation = %q (%v)", set, a, b, err)
		}
	}
	exec("DO 1 + 1, SLEEP(0)")
	if got := one(db, "EXPLAIN FORMAT=JSON SELECT * FROM p WHERE id = 193"); !strings.Contains(got, `"query_block"`) {
		t.Errorf("EXPLAIN FORMAT=JSON = %q", got)
	}
	if r, err := db.Query("EXPLAIN FORMAT=TRADITIONAL SELECT * FROM p WHERE id = 193"); err != nil {
		t.Errorf("EXPLAIN FORMAT=TRADITIONAL: %v", err)
	} else {
		if cols, _ := r.Columns(); len(cols) != 12 || cols[0] != "id" {
			t.Errorf("EXPLAIN FORMAT=TRADITIONAL columns %v", cols)
		}
		r.Close()
	}
	// EXPLAIN: absent values are NULL, numeric columns scan as numbers.
	var id int64
	var rows sql.NullInt64
	var tbl sql.NullString
	var rest [9]any
	for i := range rest {
		rest[i] = new(sql.NullString)
	}
	if err := db.QueryRow("EXPLAIN SELECT * FROM p WHERE id = 193").Scan(&id, rest[0], &tbl, rest[1], rest[2], rest[3], rest[4], rest[5], rest[6], &rows, rest[7], rest[8]); err != nil {
		t.Errorf("EXPLAIN scan: %v", err)
	} else if tbl.Valid && tbl.String == "NULL" || rows.Valid {
		t.Errorf("EXPLAIN table = %v, rows = %v: want NULLs", tbl, rows)
	}
	if _, err := prepared.Query("EXPLAIN SELECT * FROM p WHERE id = ?", 193); err != nil {
		t.Errorf("prepared EXPLAIN … WHERE id = ?: %v", err)
	}
	for _, q := range []string{"SHOW TRIGGERS", "SHOW FULL TRIGGERS", "SHOW GRANTS", "SHOW GRANTS FOR CURRENT_USER()", "SHOW GRANTS FOR CURRENT_USER",
		"SELECT User, Host FROM mysql.user", "SELECT COUNT(*) FROM mysql.user u WHERE u.User = 'root'", "SELECT * FROM `mysql`.`user`"} {
		r, err := db.Query(q)
		if err != nil {
			t.Errorf("%s: %v", q, err)
			continue
		}
		r.Close()
	}
	// The accounts are GMS's mysql database (sqlengine/access): with none
	// configured, root@localhost without a password holds every privilege.
	if got := one(db, "SHOW GRANTS FOR CURRENT_USER()"); !strings.HasPrefix(got, "GRANT ") || !strings.HasSuffix(got, " ON *.* TO `root`@`localhost` WITH GRANT OPTION") {
		t.Errorf("SHOW GRANTS = %q", got)
	}
	if got := one(db, "SELECT COUNT(*) FROM mysql.user WHERE User = 'root'"); got != "1" {
		t.Errorf("mysql.user has %s rows for root, want 1", got)
	}
	r, err := db.Query("SHOW TABLE STATUS")
	if err != nil {
		t.Fatal(err)
	}
	cols, _ := r.Columns()
	r.Close()
	if cols[len(cols)-1] != "Comment" {
		t.Errorf("SHOW TABLE STATUS columns end with %q, want Comment", cols[len(cols)-1])
	}

	// 1146 carries SQLSTATE 42S02, through both protocols.
	for _, d := range []*sql.DB{db, prepared} {
		_, err := d.Query("SELECT * FROM no_such_table WHERE 1 = ?", 1)
		var me *mysql.MySQLError
		if !errors.As(err, &me) || me.Number != 1146 || string(me.SQLState[:]) != "42S02" {
			t.Errorf("unknown table: %#v", err)
		}
	}
}
