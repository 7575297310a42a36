package tests

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// TestNoDefaultForFieldMatchesMariaDB runs the statements that leave a NOT
// NULL column without a default out of their column list on lakesql and on
// a private MariaDB (MySQL 8's sql_mode; MariaDB answers these as MySQL
// does) and compares, statement by statement, the error code and SQLSTATE,
// the warnings (level, code, message) and then the rows stored. Strict mode
// errors, IGNORE, LOAD DATA LOCAL and a non-strict sql_mode warn.
// (Non-LOCAL LOAD DATA INFILE in strict mode is where MariaDB differs from
// MySQL 8.0 — it warns, MySQL fails — so it is TestServerNoDefaultForField's.)
func TestNoDefaultForFieldMatchesMariaDB(t *testing.T) {
	ctx := context.Background()
	maria := startMariaDB(t)
	wh := t.TempDir()
	addr := startWarehouseServer(t, wh)
	mustExec(t, openWarehouseDB(t, addr, "", ""), "SET GLOBAL local_infile = 1", "CREATE DATABASE nd")
	mdb, err := sql.Open("mysql", "root@tcp("+maria.Addr+")/?allowAllFiles=true")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mdb.Close() })
	mustExec(t, mdb, "CREATE DATABASE nd")
	csv := filepath.Join(t.TempDir(), "a.csv")
	if err := os.WriteFile(csv, []byte("7\n8\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	conns := map[string]*sql.Conn{}
	for name, db := range map[string]*sql.DB{"lakesql": openWarehouseDB(t, addr, "nd", "&allowAllFiles=true"), "mariadb": mdb} {
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		mustExec(t, c, "USE nd", "CREATE TABLE t (a INT NOT NULL, b INT NOT NULL, s VARCHAR(10) NOT NULL)")
		conns[name] = c
	}
	// outcome is what a statement did: its error, or its warnings.
	outcome := func(c *sql.Conn, q string) string {
		if _, err := c.ExecContext(ctx, q); err != nil {
			var me *mysql.MySQLError
			if !errors.As(err, &me) {
				return "error " + err.Error()
			}
			return fmt.Sprintf("error %d (%s) %s", me.Number, me.SQLState, me.Message)
		}
		var ws []string
		for _, row := range queryStrings(t, c, "SHOW WARNINGS") {
			ws = append(ws, strings.Join(row, " "))
		}
		slices.Sort(ws)
		return "ok " + strings.Join(ws, "; ")
	}
	load := "LOAD DATA LOCAL INFILE '" + filepath.ToSlash(csv) + "' INTO TABLE t (a)"
	for _, q := range []string{
		"INSERT INTO t (a) VALUES (1)",
		"INSERT INTO t (a, b) VALUES (1, 1), (2, 2)",
		"INSERT INTO t (a) SELECT 3",
		"INSERT INTO t (a) SELECT a FROM t WHERE a < 0",
		"INSERT INTO t (s) SELECT s FROM t WHERE a < 0",
		"INSERT IGNORE INTO t (a) VALUES (5), (6)",
		"INSERT IGNORE INTO t (a, b) SELECT 9, 1",
		load,
		load + " SET b = 4",
		"SET sql_mode = ''",
		"INSERT INTO t (a) VALUES (2), (22)",
		"INSERT INTO t (a, s) SELECT 3, 'x'",
		"SET sql_mode = DEFAULT",
		"INSERT INTO t (a) VALUES (1)",
	} {
		if strings.HasPrefix(q, "SET ") {
			// MySQL and MariaDB keep the last statement's warnings across
			// a SET (it uses no table); GMS clears them. Not compared.
			mustExec(t, conns["lakesql"], q)
			mustExec(t, conns["mariadb"], q)
			continue
		}
		l, m := outcome(conns["lakesql"], q), outcome(conns["mariadb"], q)
		if l != m {
			t.Errorf("%s:\n lakesql: %s\n mariadb: %s", q, l, m)
		}
	}
	rows := func(c *sql.Conn) []string {
		return column(queryStrings(t, c, "SELECT CONCAT(a, ' ', b, ' ', s) FROM t ORDER BY a, b, s"), 0)
	}
	if l, m := rows(conns["lakesql"]), rows(conns["mariadb"]); !slices.Equal(l, m) {
		t.Errorf("rows stored:\n lakesql: %q\n mariadb: %q", l, m)
	}
}
