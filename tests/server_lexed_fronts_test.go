package tests

import (
	"context"
	"testing"

	"github.com/lakesql/lakesql/sqlengine"
)

// TestServerLexedFronts: the statements lakesql answers or rewrites before
// GMS (SHOW TABLE STATUS, SHOW COLLATION, SET PASSWORD, ALTER USER …
// REQUIRE, SHOW GRANTS for oneself, the MAX_EXECUTION_TIME hint) are
// recognised on the lexer's tokens (issue 9): a comment before or after
// them, odd spacing or case does not make them fall through to GMS, which
// answers them differently or not at all. Each statement here did before.
func TestServerLexedFronts(t *testing.T) {
	srv := startSecure(t, sqlengine.Config{Warehouse: t.TempDir()})
	addr := srv.Addr()
	root := mustConnect(t, addr, "root", "", "", "")
	mustExec(t, root, "CREATE DATABASE lf", "CREATE TABLE lf.ct (id BIGINT PRIMARY KEY) COMMENT 'the comment'",
		"CREATE USER 'amy'@'%' IDENTIFIED BY 'one'")

	// lakesql's SHOW TABLE STATUS (Engine Paimon, the comment), not GMS's
	// (InnoDB, no comment).
	rows := queryStrings(t, root, "show table   status FROM `lf` LIKE 'ct' /* why */")
	if len(rows) != 1 || rows[0][1] != "Paimon" || rows[0][17] != "the comment" {
		t.Errorf("SHOW TABLE STATUS … /* why */ = %q, want Engine Paimon and Comment 'the comment'", rows)
	}
	// MySQL's column names for SHOW COLLATION.
	r, err := root.Query("/* tool */ SHOW COLLATION LIKE 'utf8mb4_bin'")
	if err != nil {
		t.Fatal(err)
	}
	cols, _ := r.Columns()
	r.Close()
	if len(cols) != 7 || cols[0] != "Collation" || cols[6] != "Pad_attribute" {
		t.Errorf("SHOW COLLATION after a comment: columns %q, want MySQL's", cols)
	}

	// SET PASSWORD (GMS's parser lacks it) with a comment after it.
	mustExec(t, root, "SET PASSWORD FOR 'amy'@'%' = 'two' -- rotated")
	_, err = connectAs(t, addr, "amy", "one", "", "")
	wantErrNumber(t, "amy's old password", err, 1045)
	amy := mustConnect(t, addr, "amy", "two", "", "")
	// SHOW GRANTS for oneself needs no privilege (GMS wants SELECT on mysql).
	if got := queryStrings(t, amy, "SHOW GRANTS -- mine"); len(got) == 0 {
		t.Error("SHOW GRANTS -- mine: no rows")
	}
	// ALTER USER … REQUIRE (GMS's parser lacks it): lakesql's checks answer.
	_, err = root.Exec("ALTER USER 'nobody'@'%' REQUIRE NONE -- c")
	wantErrNumber(t, "ALTER USER … REQUIRE of an unknown account", err, 1396)
	_, err = amy.Exec("ALTER /* c */ USER `root`@`localhost` REQUIRE SSL")
	wantErrNumber(t, "ALTER USER … REQUIRE by a non-administrator", err, 1142)

	// The optimizer hint after a comment still limits the SELECT.
	ctx, cancel := context.WithTimeout(context.Background(), safetyNet)
	defer cancel()
	if _, err := root.ExecContext(ctx, "/* c */ SELECT /*+ MAX_EXECUTION_TIME(20) */ SLEEP(3600)"); mysqlCode(err) != 3024 {
		t.Errorf("the optimizer hint after a comment: %v, want 3024", err)
	}
	// A hint's words in a string in the hint are not the hint.
	if _, err := root.ExecContext(ctx, "SELECT /*+ QB_NAME('MAX_EXECUTION_TIME(1)') */ SLEEP(0.2)"); err != nil {
		t.Errorf("MAX_EXECUTION_TIME in a string of the hint comment: %v, want no limit", err)
	}

	// Last: one's own password (root's, so the statements above ran first).
	mustExec(t, root, "SET   password = 'root-pw' /* own */")
	_, err = connectAs(t, addr, "root", "", "", "")
	wantErrNumber(t, "root without its new password", err, 1045)
	mustConnect(t, addr, "root", "root-pw", "", "")
}
