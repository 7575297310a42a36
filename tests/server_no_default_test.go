package tests

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// TestServerNoDefaultForField: a NOT NULL column without a default left out
// of an INSERT, INSERT … SELECT or LOAD DATA column list, as MySQL 8.0
// answers it. Strict mode (lakesql's default sql_mode): 1364 (HY000)
// "Field 'b' doesn't have a default value" and nothing stored. INSERT
// IGNORE, LOAD DATA LOCAL or IGNORE, and a non-strict sql_mode: the row
// with the implicit defaults (0, ”) and one Warning 1364 per left-out
// column. LOAD DATA through lakesql's direct node and through GMS's path
// (lakesql_load_direct = 0).
func TestServerNoDefaultForField(t *testing.T) {
	ctx := context.Background()
	wh, files := t.TempDir(), t.TempDir()
	addr := startFilesServer(t, wh, files)
	db := openWarehouseDB(t, addr, "", "&allowAllFiles=true")
	mustExec(t, db, "SET GLOBAL local_infile = 1", "CREATE DATABASE nd", "CREATE TABLE nd.t (a INT NOT NULL, b INT NOT NULL, s VARCHAR(10) NOT NULL)")
	csv := filepath.ToSlash(filepath.Join(files, "a.csv"))
	if err := os.WriteFile(csv, []byte("7\n8\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	mustExec(t, conn, "USE nd")
	var want []string // the model: the rows t holds, "a b s"
	warnings := func(q string) []string {
		t.Helper()
		rows, err := conn.QueryContext(ctx, "SHOW WARNINGS")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var level, msg string
			var code int
			if err := rows.Scan(&level, &code, &msg); err != nil {
				t.Fatal(err)
			}
			out = append(out, level+" "+strconv.Itoa(code)+" "+msg)
		}
		slices.Sort(out)
		return out
	}
	fails := func(q, col string) {
		t.Helper()
		_, err := conn.ExecContext(ctx, q)
		var me *mysql.MySQLError
		if !errors.As(err, &me) || me.Number != 1364 || string(me.SQLState[:]) != "HY000" || me.Message != "Field '"+col+"' doesn't have a default value" {
			t.Errorf("%s: %v, want error 1364 (HY000) Field '%s' doesn't have a default value", q, err, col)
		}
	}
	stores := func(q string, as []string, cols ...string) {
		t.Helper()
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Errorf("%s: %v", q, err)
			return
		}
		var wantW []string
		for _, c := range cols {
			wantW = append(wantW, "Warning 1364 Field '"+c+"' doesn't have a default value")
		}
		if got := warnings(q); !slices.Equal(got, wantW) {
			t.Errorf("%s: warnings %q, want %q", q, got, wantW)
		}
		for _, a := range as {
			b := "0"
			if !slices.Contains(cols, "b") {
				b = "1"
			}
			want = append(want, a+" "+b+" ")
		}
	}
	check := func(what string) {
		t.Helper()
		got := column(queryStrings(t, conn, "SELECT CONCAT(a, ' ', b, ' ', s) FROM t"), 0)
		slices.Sort(got)
		w := slices.Clone(want)
		slices.Sort(w)
		if !slices.Equal(got, w) {
			t.Errorf("%s: t holds %q, want %q", what, got, w)
		}
	}
	load := func(local, ignore bool, set string) string {
		q := "LOAD DATA "
		if local {
			q += "LOCAL "
		}
		q += "INFILE '" + csv + "' "
		if ignore {
			q += "IGNORE "
		}
		return q + "INTO TABLE t (a)" + set
	}

	// Strict mode.
	fails("INSERT INTO t (a) VALUES (1)", "b")
	fails("INSERT INTO t (a, b) VALUES (1, 1), (2, 2)", "s")
	fails("INSERT INTO t (a) SELECT 3", "b")
	fails("INSERT INTO t (a) SELECT a FROM t WHERE a < 0", "b") // no rows
	for _, direct := range []string{"1", "0"} {
		mustExec(t, conn, "SET lakesql_load_direct = "+direct)
		fails(load(false, false, ""), "b")
		fails(load(false, false, " SET b = 1"), "s")
	}
	check("strict mode")

	// IGNORE and LOCAL.
	stores("INSERT IGNORE INTO t (a) VALUES (5), (6)", []string{"5", "6"}, "b", "s")
	stores("INSERT IGNORE INTO t (a, b) SELECT 9, 1", []string{"9"}, "s")
	for _, direct := range []string{"1", "0"} {
		mustExec(t, conn, "SET lakesql_load_direct = "+direct)
		stores(load(true, false, ""), []string{"7", "8"}, "b", "s")
		stores(load(false, true, ""), []string{"7", "8"}, "b", "s")
		stores(load(false, true, " SET b = 1"), []string{"7", "8"}, "s")
	}
	check("IGNORE and LOCAL")

	// Non-strict mode.
	mustExec(t, conn, "SET sql_mode = ''")
	stores("INSERT INTO t (a) VALUES (2), (22)", []string{"2", "22"}, "b", "s")
	stores("INSERT INTO t (a) SELECT 3", []string{"3"}, "b", "s")
	for _, direct := range []string{"1", "0"} {
		mustExec(t, conn, "SET lakesql_load_direct = "+direct)
		stores(load(false, false, ""), []string{"7", "8"}, "b", "s")
	}
	check("non-strict mode")

	// Back in strict mode it fails again.
	mustExec(t, conn, "SET sql_mode = DEFAULT")
	fails("INSERT INTO t (a) VALUES (1)", "b")
	check("strict mode again")
}

// TestServerNoDefaultForFieldPrepared: a server-side prepared INSERT that
// leaves a NOT NULL column without a default out prepares, as in MySQL, and
// each execution follows the session's sql_mode at that time: 1364 in
// strict mode, the implicit default with Warning 1364 in non-strict mode.
func TestServerNoDefaultForFieldPrepared(t *testing.T) {
	ctx := context.Background()
	addr := startWarehouseServer(t, t.TempDir())
	mustExec(t, openWarehouseDB(t, addr, "", ""), "CREATE DATABASE nd", "CREATE TABLE nd.t (a INT NOT NULL, b INT NOT NULL)")
	conn, err := openWarehouseDB(t, addr, "nd", "&interpolateParams=false").Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, mode := range []string{"DEFAULT", "''"} {
		mustExec(t, conn, "SET sql_mode = "+mode)
		st, err := conn.PrepareContext(ctx, "INSERT INTO t (a) VALUES (?)")
		if err != nil {
			t.Fatalf("PREPARE with sql_mode %s: %v", mode, err)
		}
		for i, exec := range []string{"DEFAULT", "''", "DEFAULT"} {
			mustExec(t, conn, "SET sql_mode = "+exec)
			_, err := st.ExecContext(ctx, i)
			if strict := exec == "DEFAULT"; strict != (mysqlErrNo(err) == 1364) {
				t.Errorf("prepared with sql_mode %s, executed with %s: %v", mode, exec, err)
			}
		}
		st.Close()
	}
	if got := queryStrings(t, conn, "SELECT a, b FROM t"); len(got) != 2 || got[0][0] != "1" || got[0][1] != "0" || got[1][0] != "1" {
		t.Errorf("t holds %q, want [1 0] twice", got)
	}
}
