package tests

import (
	"context"
	"strings"
	"testing"
)

// CALL sys.* through the MySQL protocol, on a writable server over an empty
// warehouse (database mw, see startMergeServer).

// call runs a procedure and returns its column names and rows as text.
func (s *mergeServer) call(t *testing.T, q string) ([]string, [][]string) {
	t.Helper()
	cols, rows, err := queryRows(context.Background(), s.conn, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	var out [][]string
	for _, r := range rows {
		var line []string
		for _, v := range r {
			line = append(line, textOf(v))
		}
		out = append(out, line)
	}
	return cols, out
}

func TestServerCallTags(t *testing.T) {
	s := startMergeServer(t)
	s.exec(t, "CREATE TABLE t (id BIGINT PRIMARY KEY, v INT)",
		"INSERT INTO t VALUES (1, 10)", "INSERT INTO t VALUES (2, 20)", "INSERT INTO t VALUES (3, 30)")

	cols, rows := s.call(t, "CALL sys.create_tag('t', 'v1', 1)")
	if strings.Join(cols, ",") != "tag,snapshot_id,time_retained" || len(rows) != 1 || strings.Join(rows[0], ",") != "v1,1,NULL" {
		t.Fatalf("create_tag: %v %v", cols, rows)
	}
	s.call(t, "CALL paimon.sys.create_tag(`table` => 'mw.t', tag => 'latest', time_retained => '1 d')")
	mergeSameRows(t, "$tags", s.rows(t, "SELECT tag_name, snapshot_id, time_retained FROM `t$tags`"),
		[]string{"latest|3|PT24H", "v1|1|NULL"})
	mergeSameRows(t, "AS OF 'v1'", s.rows(t, "SELECT * FROM t AS OF 'v1'"), []string{"1|10"})
	mergeSameRows(t, "AS OF 'latest'", s.rows(t, "SELECT * FROM t AS OF 'latest'"), []string{"1|10", "2|20", "3|30"})

	s.fails(t, "CALL sys.create_tag('t', 'v1', 2)", 1210, "already exists")
	s.fails(t, "CALL sys.create_tag('t', 'v9', 99)", 1210, "snapshot 99")

	_, rows = s.call(t, "CALL sys.rename_tag(table => 't', tagName => 'v1', targetTagName => 'first')")
	if strings.Join(rows[0], ",") != "v1,first" {
		t.Errorf("rename_tag: %v", rows)
	}
	s.fails(t, "CALL sys.rename_tag('t', 'v1', 'x')", 1210, "tag \"v1\"")
	s.fails(t, "CALL sys.rename_tag('t', 'first', 'latest')", 1210, "already exists")
	mergeSameRows(t, "AS OF 'first'", s.rows(t, "SELECT * FROM t AS OF 'first'"), []string{"1|10"})

	_, rows = s.call(t, "CALL sys.delete_tag('t', 'first, nope')")
	if len(rows) != 2 || rows[0][0] != "first" || rows[0][1] != "deleted" || rows[1][0] != "nope" || rows[1][1] != "not found" {
		t.Errorf("delete_tag: %v", rows)
	}
	mergeSameRows(t, "$tags after delete", s.rows(t, "SELECT tag_name FROM `t$tags`"), []string{"latest"})
}

func TestServerCallErrors(t *testing.T) {
	s := startMergeServer(t)
	s.exec(t, "CREATE TABLE t (id BIGINT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 10)")
	for _, c := range []struct {
		q    string
		code uint16
		want string
	}{
		{"CALL sys.no_such_proc('t')", 1305, "PROCEDURE sys.no_such_proc does not exist"},
		{"CALL sys.create_tag('t')", 1318, "needs tag"},
		{"CALL sys.create_tag('t', 'a', 1, '1 d', 'x')", 1318, "at most 4"},
		{"CALL sys.create_tag(table => 't', tagg => 'a')", 1210, "no argument 'tagg'"},
		{"CALL sys.create_tag(tag => 'a', 't')", 1210, "follows a named"},
		{"CALL sys.create_tag('t', 'a', 'x')", 1231, "'snapshot'"},
		{"CALL sys.create_tag('t', 'a', time_retained => 'forever')", 1231, "time_retained"},
		{"CALL sys.expire_snapshots('t', retain_min => 0)", 1231, "retain_min"},
		{"CALL sys.expire_snapshots('t', older_than => 'yesterday')", 1231, "older_than"},
		{"CALL sys.create_tag('nope', 'a')", 1146, "nope"},
		{"CALL sys.create_tag('nodb.t', 'a')", 1049, "nodb"},
		{"CALL sys.create_tag('t$snapshots', 'a')", 1231, "not a table"},
		{"CALL sys.create_tag('t', '')", 1210, "blank"},
		{"CALL sys.create_tag('t', 'a/b')", 1210, "path separator"},
		{"CALL sys.create_tag('t' 'a')", 1064, "expected , or )"},
		{"CALL sys.create_tag(t, 'a')", 1064, "literal"},
	} {
		s.fails(t, c.q, c.code, c.want)
	}
	// The connection survives every error, and nothing was created.
	mergeSameRows(t, "tags", s.rows(t, "SELECT tag_name FROM `t$tags`"), nil)
	mergeSameRows(t, "rows", s.rows(t, "SELECT * FROM t"), []string{"1|10"})

	// No database selected.
	s.exec(t, "CREATE DATABASE other")
	if _, err := s.conn.ExecContext(context.Background(), "USE other"); err != nil {
		t.Fatal(err)
	}
	s.fails(t, "CALL sys.create_tag('t', 'a')", 1146, "t")
	s.exec(t, "USE mw")

	// READ ONLY transactions refuse procedures (1792), and write nothing.
	s.exec(t, "START TRANSACTION READ ONLY")
	s.fails(t, "CALL sys.create_tag('t', 'a')", 1792, "READ ONLY")
	s.exec(t, "ROLLBACK")
	mergeSameRows(t, "tags", s.rows(t, "SELECT tag_name FROM `t$tags`"), nil)

	// A CALL commits an open transaction first, as DDL does.
	s.exec(t, "BEGIN", "INSERT INTO t VALUES (2, 20)")
	s.call(t, "CALL sys.create_tag('t', 'after_tx')")
	mergeSameRows(t, "AS OF 'after_tx'", s.rows(t, "SELECT * FROM t AS OF 'after_tx'"), []string{"1|10", "2|20"})
}
