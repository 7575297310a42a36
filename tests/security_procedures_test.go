package tests

import (
	"testing"

	"github.com/lakesql/lakesql/sqlengine"
)

// TestSecurityCallPrivileges: CALL sys.* needs EXECUTE (1370) and the table
// privileges its procedure declares (1142); a read-only server refuses
// every procedure (1290). Nothing changes on refusal.
func TestSecurityCallPrivileges(t *testing.T) {
	wh := t.TempDir()
	srv := startSecure(t, sqlengine.Config{Warehouse: wh})
	root := mustConnect(t, srv.Addr(), "root", "", "", "")
	mustExec(t, root,
		"CREATE DATABASE s", "CREATE TABLE s.t (id BIGINT PRIMARY KEY, v INT)", "INSERT INTO s.t VALUES (1, 1)",
		"CREATE USER 'exec'@'%' IDENTIFIED BY 'e'", "GRANT SELECT, EXECUTE ON s.* TO 'exec'@'%'",
		"CREATE USER 'tagger'@'%' IDENTIFIED BY 't'", "GRANT SELECT, EXECUTE, ALTER ON s.* TO 'tagger'@'%'",
		"CREATE USER 'alter'@'%' IDENTIFIED BY 'a'", "GRANT SELECT, ALTER, DELETE ON s.* TO 'alter'@'%'",
	)
	ex := mustConnect(t, srv.Addr(), "exec", "e", "s", "")
	for _, c := range []struct {
		q    string
		code uint16
	}{
		{"CALL sys.create_tag('t', 'x')", 1142},               // ALTER
		{"CALL sys.expire_snapshots('t')", 1142},              // DELETE
		{"CALL sys.rollback_to('t', snapshot_id => 1)", 1142}, // INSERT, DELETE
		{"CALL sys.no_such('t')", 1305},
	} {
		_, err := ex.Exec(c.q)
		wantErrNumber(t, "exec: "+c.q, err, c.code)
	}
	al := mustConnect(t, srv.Addr(), "alter", "a", "s", "")
	_, err := al.Exec("CALL sys.create_tag('t', 'x')")
	wantErrNumber(t, "without EXECUTE", err, 1370)
	_, err = al.Exec("CALL sys.no_such('t')")
	wantErrNumber(t, "without EXECUTE, an unknown procedure", err, 1370)
	var n int
	if err := root.QueryRow("SELECT COUNT(*) FROM `s`.`t$tags`").Scan(&n); err != nil || n != 0 {
		t.Fatalf("tags after refused calls: %d, %v", n, err)
	}
	tg := mustConnect(t, srv.Addr(), "tagger", "t", "s", "")
	mustExec(t, tg, "CALL sys.create_tag('t', 'x')")
	if err := root.QueryRow("SELECT COUNT(*) FROM `s`.`t$tags`").Scan(&n); err != nil || n != 1 {
		t.Fatalf("tags after the tagger: %d, %v", n, err)
	}
	srv.Close()

	ro := startSecure(t, sqlengine.Config{Warehouse: wh, ReadOnly: true})
	rc := mustConnect(t, ro.Addr(), "root", "", "s", "")
	before := warehouseState(t, wh)
	for _, q := range []string{"CALL sys.create_tag('t', 'y')", "CALL sys.delete_tag('t', 'x')", "CALL sys.expire_snapshots('t')"} {
		_, err := rc.Exec(q)
		wantErrNumber(t, "read-only: "+q, err, 1290)
	}
	if after := warehouseState(t, wh); len(after) != len(before) {
		t.Errorf("a read-only server changed the warehouse")
	}
}
