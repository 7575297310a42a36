package tests

import (
	"errors"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/lakesql/lakesql/sqlengine"
)

// TestServerGMSErrorCodes: the errors GMS raises and casts to 1105 itself
// reach the client with MySQL's code and SQLSTATE (provider/errors.go):
// through GMS's handler, where only their text reaches lakesql, and through
// the MERGE front, which runs its statements through the engine itself and
// matches the same errors by kind.
func TestServerGMSErrorCodes(t *testing.T) {
	srv := startSecure(t, sqlengine.Config{Warehouse: t.TempDir()})
	root := mustConnect(t, srv.Addr(), "root", "", "", "")
	mustExec(t, root, "CREATE DATABASE ge", "USE ge",
		"CREATE TABLE ge.e (id BIGINT PRIMARY KEY, ti TINYINT, v VARCHAR(3), d DATETIME)",
		"CREATE TABLE ge.e2 (id BIGINT PRIMARY KEY)", "CREATE TABLE ge.s (id BIGINT PRIMARY KEY, ti INT, v VARCHAR(10), d VARCHAR(30))",
		"INSERT INTO ge.e VALUES (1, 1, 'a', '2026-01-01 00:00:00')", "INSERT INTO ge.e2 VALUES (1)",
		"INSERT INTO ge.s VALUES (2, 300, 'a', NULL), (3, 1, 'abcdef', NULL), (4, 1, 'a', 'not a time')",
		"CREATE DATABASE ge2", "CREATE TABLE ge2.x (id BIGINT PRIMARY KEY)", "CREATE USER 'eve'@'%' IDENTIFIED BY 'pw'", "GRANT SELECT ON ge.e2 TO 'eve'@'%'")
	eve := mustConnect(t, srv.Addr(), "eve", "pw", "", "")
	ro := mustConnect(t, startSecure(t, sqlengine.Config{Warehouse: t.TempDir(), ReadOnly: true}).Addr(), "root", "", "", "")
	merge := func(src, action string) string {
		return "MERGE INTO ge.e USING (" + src + ") AS s ON e.id = s.id " + action
	}
	const insert = "WHEN NOT MATCHED THEN INSERT (id, ti, v, d) VALUES (s.id, s.ti, s.v, s.d)"
	for _, c := range []struct {
		query string
		code  uint16
		state string
	}{
		// Through GMS's handler (text).
		{"SELECT FROM WHERE", 1064, "42000"},
		{"SELECT nosuch FROM ge.e", 1054, "42S22"},
		{"INSERT INTO ge.e (id, ti) SELECT id, 1 FROM ge.e2 ON DUPLICATE KEY UPDATE ti = VALUES(nosuch)", 1054, "42S22"},
		{"SELECT id FROM ge.e, ge.e2", 1052, "23000"},
		{"SET @@SESSION.version = '1'", 1238, "HY000"},
		{"RENAME TABLE ge.e TO ge.e3", 1235, "42000"},
		{"CREATE TEMPORARY TABLE ge.tmp (a INT)", 1235, "42000"},
		{"INSERT INTO ge.e VALUES (2, 1, 'abcdef', NULL)", 1406, "22001"},
		{"INSERT INTO ge.e VALUES (3, 300, 'a', NULL)", 1264, "22003"},
		{"INSERT INTO ge.e VALUES (4, 1, 'a', 'not a time')", 1292, "22007"},
		{"SELECT * FROM ge.e AS OF CONVERT(1, SIGNED)", 1210, "HY000"},
		{"SELECT * FROM ge.e FOR TIMESTAMP AS OF CONVERT(1, SIGNED)", 1210, "HY000"},
		// Through the MERGE front (by kind).
		{merge("SELECT nosuch FROM ge.e2", "WHEN MATCHED THEN DELETE"), 1054, "42S22"},
		{merge("SELECT id FROM ge.e, ge.e2", "WHEN MATCHED THEN DELETE"), 1052, "23000"},
		{merge("SELECT * FROM ge.s WHERE id = 2", insert), 1264, "22003"},
		{merge("SELECT * FROM ge.s WHERE id = 3", insert), 1406, "22001"},
		{merge("SELECT * FROM ge.s WHERE id = 4", insert), 1292, "22007"},
	} {
		_, err := root.Exec(c.query)
		checkCode(t, c.query, err, c.code, c.state)
	}
	// GMS's privilege checks.
	_, err := eve.Exec("SELECT * FROM ge.e")
	checkCode(t, "eve reads ge.e", err, 1142, "42000")
	_, err = eve.Exec("SELECT * FROM ge2.x")
	checkCode(t, "eve reads ge2", err, 1044, "42000")
	_, err = eve.Exec("CREATE DATABASE evedb")
	checkCode(t, "eve creates a database", err, 1142, "42000")
	// A read-only server.
	_, err = ro.Exec("CREATE DATABASE x")
	checkCode(t, "CREATE DATABASE on a read-only server", err, 1290, "HY000")
}

func checkCode(t *testing.T, what string, err error, code uint16, state string) {
	t.Helper()
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != code || string(me.SQLState[:]) != state {
		t.Errorf("%s: %v, want %d (%s)", what, err, code, state)
	}
}
