package tests

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/sqlengine"
	"github.com/lakesql/lakesql/sqlengine/access"
)

// Security (issue 8): accounts, privileges, TLS and server files, through
// go-sql-driver (security_clients_test.go has the mysql CLI and PyMySQL).

// TestSecurityDefaults: with no accounts, root without a password from
// loopback only, the start-up notes say so, and a non-loopback address is
// refused before anything listens.
func TestSecurityDefaults(t *testing.T) {
	wh := t.TempDir()
	for _, host := range []string{"0.0.0.0", "::", "192.0.2.1"} {
		srv, err := sqlengine.New(context.Background(), sqlengine.Config{Warehouse: wh, Host: host, Port: 0})
		if err == nil {
			srv.Close()
			t.Fatalf("New on %s with no password account succeeded", host)
		}
		if !strings.Contains(err.Error(), "lakesql user add") || !strings.Contains(err.Error(), "CREATE USER") {
			t.Errorf("refusal on %s does not say how to create an account: %v", host, err)
		}
	}
	srv := startSecure(t, sqlengine.Config{Warehouse: wh})
	notes := strings.Join(srv.SecurityNotes(), "\n")
	if !strings.Contains(notes, "only root, without a password, from loopback") {
		t.Errorf("start-up notes do not describe the default account:\n%s", notes)
	}
	db := mustConnect(t, srv.Addr(), "root", "", "", "")
	var cu string
	if err := db.QueryRow("SELECT CURRENT_USER()").Scan(&cu); err != nil || cu != "root@localhost" {
		t.Errorf("CURRENT_USER() = %q, %v; want root@localhost", cu, err)
	}
	_, err := connectAs(t, srv.Addr(), "root", "secret", "", "")
	wantErrNumber(t, "root with a password it does not have", err, 1045)
	_, err = connectAs(t, srv.Addr(), "mallory", "wrongpassword", "", "")
	wantErrNumber(t, "unknown user", err, 1045)
	_, err = connectAs(t, srv.Addr(), "mallory", "", "", "")
	wantErrNumber(t, "unknown user without a password", err, 1045)

	// Once an account has a password, a non-loopback address is allowed;
	// the check is tested through the same constructor with the account
	// written by `lakesql user add`'s library call (the server is never
	// started on that address: it is closed right away).
	st, err := storage.Open(context.Background(), wh)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := access.AddUser(context.Background(), access.NewWarehouseStore(st), "admin", "%", "s3cret", true, false); err != nil {
		t.Fatal(err)
	}
	if !srv.Users().HasPasswordUser() {
		srv.Users().Refresh(context.Background(), 0)
	}
	_, err = connectAs(t, srv.Addr(), "admin", "wrong", "", "")
	wantErrNumber(t, "admin with a wrong password", err, 1045)
	adm := mustConnect(t, srv.Addr(), "admin", "s3cret", "", "")
	notes = strings.Join(startSecure(t, sqlengine.Config{Warehouse: wh}).SecurityNotes(), "\n")
	if !strings.Contains(notes, "accounts without a password: 'root'@'localhost'") || strings.Contains(notes, "only root") {
		t.Errorf("start-up notes with an admin account:\n%s", notes)
	}
	if err := adm.QueryRow("SELECT CURRENT_USER()").Scan(&cu); err != nil || cu != "admin@%" {
		t.Errorf("CURRENT_USER() = %q, %v; want admin@%%", cu, err)
	}
}

// TestSecurityAccountStatements: CREATE/ALTER/DROP USER, SET PASSWORD,
// GRANT/REVOKE globally and per database, SHOW GRANTS, mysql.user, and the
// hashes in the stored file.
func TestSecurityAccountStatements(t *testing.T) {
	wh := t.TempDir()
	srv := startSecure(t, sqlengine.Config{Warehouse: wh})
	addr := srv.Addr()
	root := mustConnect(t, addr, "root", "", "", "")
	mustExec(t, root,
		"CREATE DATABASE s1", "CREATE DATABASE s2",
		"CREATE TABLE s1.t (id BIGINT PRIMARY KEY, v INT)", "CREATE TABLE s2.t (id BIGINT PRIMARY KEY, v INT)",
		"INSERT INTO s1.t VALUES (1, 1)", "INSERT INTO s2.t VALUES (1, 1)",
		"CREATE USER 'bob'@'%' IDENTIFIED BY 'pw-one'",
		"CREATE USER 'sha'@'%' IDENTIFIED WITH caching_sha2_password BY 'pw-sha'",
		"GRANT SELECT, INSERT ON s1.* TO 'bob'@'%'",
	)
	bob := mustConnect(t, addr, "bob", "pw-one", "s1", "")
	mustExec(t, bob, "INSERT INTO s1.t VALUES (2, 2)")
	var n int
	if err := bob.QueryRow("SELECT COUNT(*) FROM s1.t").Scan(&n); err != nil || n != 2 {
		t.Errorf("bob counts %d rows, %v", n, err)
	}
	_, err := bob.Exec("SELECT * FROM s2.t")
	wantErrNumber(t, "bob reads s2 without a grant", err, 1044)
	_, err = bob.Exec("UPDATE s1.t SET v = 9")
	wantErrNumber(t, "bob updates without UPDATE", err, 1142)
	_, err = bob.Exec("SELECT * FROM mysql.user")
	if err == nil {
		t.Error("bob reads mysql.user")
	}
	_, err = bob.Exec("CREATE USER x IDENTIFIED BY 'x'")
	wantErrNumber(t, "bob creates a user", err, 1142)

	if got := queryStrings(t, root, "SHOW GRANTS FOR 'bob'@'%'"); !slices.ContainsFunc(got, func(r []string) bool {
		return strings.Contains(r[0], "GRANT SELECT, INSERT ON `s1`.* TO `bob`@`%`")
	}) {
		t.Errorf("SHOW GRANTS FOR bob = %q", got)
	}
	got := queryStrings(t, bob, "SHOW GRANTS")
	if len(got) == 0 || !strings.Contains(got[len(got)-1][0], "`s1`.*") {
		t.Errorf("SHOW GRANTS (bob) = %q", got)
	}
	users := queryStrings(t, root, "SELECT user, host, plugin, authentication_string FROM mysql.user ORDER BY user")
	byName := map[string][]string{}
	for _, r := range users {
		byName[r[0]] = r
	}
	if r := byName["bob"]; r == nil || r[2] != "mysql_native_password" || r[3] != access.NativePasswordHash("pw-one") {
		t.Errorf("mysql.user bob = %q", r)
	}
	if r := byName["sha"]; r == nil || r[2] != "caching_sha2_password" || !strings.HasPrefix(r[3], "$A$005$") {
		t.Errorf("mysql.user sha = %q", r)
	}
	// The stored accounts hold hashes, never the passwords.
	files, _ := filepath.Glob(filepath.Join(wh, "_lakesql", "users", "users-*"))
	if len(files) == 0 {
		t.Fatal("no account file in the warehouse")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "pw-one") || strings.Contains(string(b), "pw-sha") {
			t.Errorf("%s holds a password in clear", f)
		}
	}
	if _, err := os.Stat(filepath.Join(wh, "_lakesql.db")); err == nil {
		t.Error("the accounts made a database folder")
	}
	dbs := column(queryStrings(t, root, "SHOW DATABASES"), 0)
	if slices.Contains(dbs, "_lakesql") {
		t.Errorf("SHOW DATABASES lists the accounts folder: %q", dbs)
	}

	// ALTER USER, SET PASSWORD: the old password stops working.
	mustExec(t, root, "ALTER USER 'bob'@'%' IDENTIFIED BY 'pw-two'")
	_, err = connectAs(t, addr, "bob", "pw-one", "", "")
	wantErrNumber(t, "bob's old password", err, 1045)
	mustConnect(t, addr, "bob", "pw-two", "", "")
	mustExec(t, root, "SET PASSWORD FOR 'bob'@'%' = 'pw-three'")
	_, err = connectAs(t, addr, "bob", "pw-two", "", "")
	wantErrNumber(t, "bob's second password", err, 1045)
	bob = mustConnect(t, addr, "bob", "pw-three", "s1", "")

	// Global grants and REVOKE.
	mustExec(t, root, "GRANT UPDATE ON *.* TO 'bob'@'%'")
	mustExec(t, bob, "UPDATE s1.t SET v = 3 WHERE id = 1")
	mustExec(t, root, "REVOKE UPDATE ON *.* FROM 'bob'@'%'", "REVOKE INSERT ON s1.* FROM 'bob'@'%'")
	_, err = bob.Exec("INSERT INTO s1.t VALUES (5, 5)")
	wantErrNumber(t, "bob inserts after REVOKE", err, 1142)
	mustExec(t, root, "GRANT ALL ON s2.* TO 'bob'@'%'")
	mustExec(t, bob, "INSERT INTO s2.t VALUES (7, 7)", "CREATE TABLE s2.u (id BIGINT PRIMARY KEY)", "DROP TABLE s2.u")

	// Per-table grants.
	mustExec(t, root, "CREATE USER 'tab'@'%' IDENTIFIED BY 'tb'", "GRANT SELECT ON s1.t TO 'tab'@'%'")
	tab := mustConnect(t, addr, "tab", "tb", "s1", "")
	if _, err := tab.Exec("SELECT * FROM s1.t"); err != nil {
		t.Errorf("tab reads s1.t: %v", err)
	}
	_, err = tab.Exec("SELECT * FROM s2.t")
	wantErrNumber(t, "tab reads s2.t", err, 1044)
	_, err = tab.Exec("INSERT INTO s1.t VALUES (8, 8)")
	wantErrNumber(t, "tab inserts into s1.t", err, 1142)

	mustExec(t, root, "DROP USER 'bob'@'%'")
	_, err = connectAs(t, addr, "bob", "pw-three", "", "")
	wantErrNumber(t, "dropped user", err, 1045)

	// The accounts survive a restart.
	srv.Close()
	srv2 := startSecure(t, sqlengine.Config{Warehouse: wh})
	if _, err := connectAs(t, srv2.Addr(), "bob", "pw-three", "", ""); errNumber(err) != 1045 {
		t.Errorf("dropped bob after restart: %v", err)
	}
	root2 := mustConnect(t, srv2.Addr(), "root", "", "", "")
	if got := queryStrings(t, root2, "SELECT user FROM mysql.user WHERE user = 'sha'"); len(got) != 1 {
		t.Errorf("sha after restart: %q", got)
	}
}

// TestSecurityReadOnlyUser: an account with SELECT only gets MySQL's
// access-denied code for every statement kind that writes, and nothing in
// the warehouse changes.
func TestSecurityReadOnlyUser(t *testing.T) {
	wh, files := t.TempDir(), t.TempDir()
	srv := startSecure(t, sqlengine.Config{Warehouse: wh,
		Security: sqlengine.SecurityConfig{SecureFilePriv: files, LocalInfile: true}})
	addr := srv.Addr()
	root := mustConnect(t, addr, "root", "", "", "")
	mustExec(t, root,
		"CREATE DATABASE s",
		"CREATE TABLE s.t (id BIGINT PRIMARY KEY, v INT)",
		"CREATE TABLE s.a (id BIGINT, v INT)",
		"CREATE TABLE s.src (id BIGINT PRIMARY KEY, v INT)",
		"INSERT INTO s.t VALUES (1, 1), (2, 2)", "INSERT INTO s.src VALUES (1, 10), (3, 30)",
		"CREATE USER 'reader'@'%' IDENTIFIED BY 'rpw'",
		"GRANT SELECT ON *.* TO 'reader'@'%'",
	)
	csv := filepath.Join(files, "rows.csv")
	if err := os.WriteFile(csv, []byte("5,5\n6,6\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ro := mustConnect(t, addr, "reader", "rpw", "s", "")
	var n int
	if err := ro.QueryRow("SELECT COUNT(*) FROM t").Scan(&n); err != nil || n != 2 {
		t.Fatalf("reader counts %d, %v", n, err)
	}
	before := warehouseState(t, wh)
	cases := []struct {
		stmt string
		code uint16
	}{
		{"INSERT INTO t VALUES (3, 3)", 1142},
		{"INSERT INTO a VALUES (3, 3)", 1142},
		{"INSERT IGNORE INTO t VALUES (1, 9)", 1142},
		{"INSERT INTO t VALUES (1, 9) ON DUPLICATE KEY UPDATE v = 9", 1142},
		{"INSERT INTO t SELECT * FROM src", 1142},
		{"REPLACE INTO t VALUES (1, 9)", 1142},
		{"UPDATE t SET v = 9", 1142},
		{"UPDATE t JOIN src ON t.id = src.id SET t.v = src.v", 1142},
		{"UPDATE IGNORE t SET v = 9", 1142},
		{"INSERT INTO t SET id = 7, v = 7", 1142},
		{"DELETE t FROM t JOIN src ON t.id = src.id", 1142},
		{"DELETE FROM t", 1142},
		{"DELETE FROM t WHERE id = 1", 1142},
		{"TRUNCATE TABLE t", 1142},
		{"MERGE INTO t USING src ON t.id = src.id WHEN MATCHED THEN UPDATE SET v = src.v WHEN NOT MATCHED THEN INSERT VALUES (src.id, src.v)", 1142},
		{"INSERT OVERWRITE t SELECT * FROM src", 1142},
		{"CREATE TABLE n (id BIGINT PRIMARY KEY)", 1142},
		{"CREATE TABLE n (id BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1')", 1142},
		{"CREATE TABLE n LIKE t", 1142},
		{"CREATE TABLE n AS SELECT * FROM t", 1142},
		{"ALTER TABLE t ADD COLUMN w INT", 1142},
		{"ALTER TABLE t SET ('snapshot.num-retained.max' = '5')", 1142},
		{"ALTER TABLE t RESET ('snapshot.num-retained.max')", 1142},
		{"ALTER TABLE t DROP COLUMN v", 1142},
		{"ALTER TABLE t RENAME COLUMN v TO w", 1142},
		{"ALTER TABLE t COMMENT = 'x'", 1142},
		{"CREATE TABLE n (id BIGINT, p STRING, PRIMARY KEY (id, p) NOT ENFORCED) PARTITIONED BY (p)", 1142},
		{"RENAME TABLE t TO t2", 1142},
		{"DROP TABLE t", 1142},
		{"CREATE INDEX iv ON t (v)", 1142},
		{"ALTER TABLE t ADD INDEX iv (v)", 1142},
		{"DROP INDEX iv ON t", 1142},
		{"CREATE DATABASE n", 1142},
		{"DROP DATABASE s", 1142},
		{"LOAD DATA INFILE '" + csv + "' INTO TABLE t FIELDS TERMINATED BY ','", 1142},
		{"LOAD DATA LOCAL INFILE '" + csv + "' INTO TABLE t FIELDS TERMINATED BY ','", 1142},
		{"SELECT * FROM t INTO OUTFILE '" + filepath.Join(files, "out.txt") + "'", 1045},
		{"SELECT LOAD_FILE('" + csv + "')", 1045},
		{"CALL sys.create_tag('s.t', 'x', 1)", 1370},
		{"CALL sys.expire_snapshots('s.t', 1)", 1370},
		{"CALL sys.rollback_to('s.t', 1)", 1370},
		{"CREATE USER 'x'@'%' IDENTIFIED BY 'x'", 1142},
		{"GRANT INSERT ON s.* TO 'reader'@'%'", 1142},
		{"REVOKE SELECT ON *.* FROM 'root'@'localhost'", 1142},
		{"RENAME USER 'root'@'localhost' TO 'r2'@'localhost'", 1142},
		{"ALTER USER 'root'@'localhost' IDENTIFIED BY 'taken'", 1142},
		{"DROP USER 'root'@'localhost'", 1142},
		{"SET PASSWORD FOR 'root'@'localhost' = 'taken'", 1142},
		{"SET GLOBAL local_infile = 0", 1227},
		{"SET GLOBAL max_connections = 5", 1227},
	}
	for _, c := range cases {
		_, err := ro.Exec(c.stmt)
		if err == nil {
			t.Errorf("reader: %s succeeded", c.stmt)
			continue
		}
		wantErrNumber(t, "reader: "+c.stmt, err, c.code)
	}
	// The same writes as server-side prepared statements (binary protocol).
	roPrep := mustConnect(t, addr, "reader", "rpw", "s", "interpolateParams=false")
	for _, c := range []struct {
		stmt string
		args []any
	}{
		{"INSERT INTO t VALUES (?, ?)", []any{8, 8}},
		{"UPDATE t SET v = ? WHERE id = ?", []any{9, 1}},
		{"DELETE FROM t WHERE id = ?", []any{1}},
		{"REPLACE INTO t VALUES (?, ?)", []any{1, 9}},
	} {
		_, err := roPrep.Exec(c.stmt, c.args...)
		if err == nil {
			t.Errorf("reader, prepared: %s succeeded", c.stmt)
			continue
		}
		wantErrNumber(t, "reader, prepared: "+c.stmt, err, 1142)
	}
	if after := warehouseState(t, wh); !slices.Equal(before, after) {
		t.Errorf("the reader's statements changed the warehouse:\nbefore %q\nafter  %q", before, after)
	}
	if err := root.QueryRow("SELECT COUNT(*) FROM s.t").Scan(&n); err != nil || n != 2 {
		t.Errorf("s.t has %d rows after the reader, %v", n, err)
	}
	if _, err := os.Stat(filepath.Join(files, "out.txt")); err == nil {
		t.Error("the reader wrote out.txt")
	}
	// LOAD DATA LOCAL needs INSERT, not FILE (as in MySQL); the server side needs FILE too.
	mustExec(t, root, "CREATE USER 'loader'@'%' IDENTIFIED BY 'lpw'", "GRANT SELECT, INSERT ON s.* TO 'loader'@'%'")
	loader := mustConnect(t, addr, "loader", "lpw", "s", "")
	mustExec(t, loader, "LOAD DATA LOCAL INFILE '"+csv+"' INTO TABLE a FIELDS TERMINATED BY ','")
	if err := root.QueryRow("SELECT COUNT(*) FROM s.a").Scan(&n); err != nil || n != 2 {
		t.Errorf("s.a has %d rows after LOAD DATA LOCAL, %v", n, err)
	}
	_, err := loader.Exec("LOAD DATA INFILE '" + csv + "' INTO TABLE a FIELDS TERMINATED BY ','")
	wantErrNumber(t, "loader: server-side LOAD DATA without FILE", err, 1045)
}

// TestSecurityServerFiles: every file-touching statement is refused with
// 1290 while secure_file_priv is disabled (the default) or when the path
// lies outside it; inside it they work for an account with FILE.
func TestSecurityServerFiles(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("1,42\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stmts := func(dir string) []string {
		return []string{
			"SELECT LOAD_FILE('" + secret + "')",
			"SELECT LOAD_FILE('/etc/passwd')",
			"SELECT LOAD_FILE(CONCAT('/etc/', 'shadow'))",
			"SELECT (SELECT LOAD_FILE('" + secret + "'))",
			"SELECT id FROM t WHERE LOAD_FILE('" + secret + "') IS NOT NULL",
			"INSERT INTO t VALUES (9, LENGTH(LOAD_FILE('" + secret + "')))",
			"LOAD DATA INFILE '" + secret + "' INTO TABLE t FIELDS TERMINATED BY ','",
			"LOAD DATA INFILE '/etc/passwd' INTO TABLE t",
			"SELECT 1 INTO OUTFILE '" + filepath.Join(outside, "o1") + "'",
			"SELECT 1 INTO DUMPFILE '" + filepath.Join(outside, "o2") + "'",
			"SELECT 'x' INTO DUMPFILE '" + filepath.Join(dir, "s.db", "t", "snapshot", "snapshot-999") + "'",
		}
	}

	t.Run("disabled", func(t *testing.T) {
		wh := t.TempDir()
		srv := startSecure(t, sqlengine.Config{Warehouse: wh})
		root := mustConnect(t, srv.Addr(), "root", "", "", "")
		mustExec(t, root, "CREATE DATABASE s", "CREATE TABLE s.t (id BIGINT PRIMARY KEY, v INT)")
		var v any
		if err := root.QueryRow("SELECT @@secure_file_priv").Scan(&v); err != nil || v != nil {
			t.Errorf("@@secure_file_priv = %v, %v; want NULL", v, err)
		}
		root = mustConnect(t, srv.Addr(), "root", "", "s", "")
		before := warehouseState(t, wh)
		for _, s := range stmts(wh) {
			_, err := root.Exec(s)
			wantErrNumber(t, s, err, 1290)
		}
		if after := warehouseState(t, wh); !slices.Equal(before, after) {
			t.Errorf("refused statements changed the warehouse")
		}
		// Server-side prepared statements take the same path.
		prep := mustConnect(t, srv.Addr(), "root", "", "s", "interpolateParams=false")
		_, err := prep.Exec("SELECT LOAD_FILE(?)", secret)
		wantErrNumber(t, "prepared LOAD_FILE(?)", err, 1290)
		_, err = prep.Exec("SELECT id FROM t WHERE id = ? INTO OUTFILE '/tmp/lakesql-prep'", 1)
		wantErrNumber(t, "prepared INTO OUTFILE", err, 1290)
		_, err = root.Exec("SET GLOBAL secure_file_priv = '/'")
		if err == nil {
			t.Error("SET GLOBAL secure_file_priv succeeded")
		}
	})

	t.Run("directory", func(t *testing.T) {
		wh, dir := t.TempDir(), t.TempDir()
		if _, err := sqlengine.New(context.Background(), sqlengine.Config{Warehouse: wh, Host: "127.0.0.1",
			Security: sqlengine.SecurityConfig{SecureFilePriv: filepath.Join(wh)}}); err == nil {
			t.Error("secure_file_priv = the warehouse was accepted")
		}
		os.MkdirAll(filepath.Join(wh, "inner"), 0o755)
		if _, err := sqlengine.New(context.Background(), sqlengine.Config{Warehouse: wh, Host: "127.0.0.1",
			Security: sqlengine.SecurityConfig{SecureFilePriv: filepath.Join(wh, "inner")}}); err == nil {
			t.Error("secure_file_priv inside the warehouse was accepted")
		}
		if _, err := sqlengine.New(context.Background(), sqlengine.Config{Warehouse: filepath.Join(dir, "wh"), Host: "127.0.0.1",
			Security: sqlengine.SecurityConfig{SecureFilePriv: dir}}); err == nil {
			t.Error("secure_file_priv holding the warehouse was accepted")
		}

		srv := startSecure(t, sqlengine.Config{Warehouse: wh, Security: sqlengine.SecurityConfig{SecureFilePriv: dir}})
		root := mustConnect(t, srv.Addr(), "root", "", "", "")
		mustExec(t, root, "CREATE DATABASE s", "CREATE TABLE s.t (id BIGINT PRIMARY KEY, v INT)",
			"CREATE USER 'nofile'@'%' IDENTIFIED BY 'nf'", "GRANT ALL ON s.* TO 'nofile'@'%'")
		root = mustConnect(t, srv.Addr(), "root", "", "s", "")
		for _, s := range stmts(wh) {
			_, err := root.Exec(s)
			wantErrNumber(t, s, err, 1290)
		}
		// Escapes by .. and by a symbolic link.
		if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{
			"SELECT LOAD_FILE('" + dir + "/../" + filepath.Base(outside) + "/secret.txt')",
			"SELECT LOAD_FILE('" + filepath.Join(dir, "link", "secret.txt") + "')",
			"SELECT LOAD_FILE('../secret.txt')",
			"SELECT 1 INTO OUTFILE '" + filepath.Join(dir, "link", "o3") + "'",
			"LOAD DATA INFILE '" + filepath.Join(dir, "link", "secret.txt") + "' INTO TABLE t FIELDS TERMINATED BY ','",
		} {
			_, err := root.Exec(s)
			wantErrNumber(t, s, err, 1290)
		}
		// Inside: FILE works.
		in := filepath.Join(dir, "in.csv")
		if err := os.WriteFile(in, []byte("1,10\n2,20\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		mustExec(t, root, "LOAD DATA INFILE '"+in+"' INTO TABLE t FIELDS TERMINATED BY ','")
		mustExec(t, root, "LOAD DATA INFILE 'in.csv' INTO TABLE t FIELDS TERMINATED BY ','") // relative to secure_file_priv
		var got []byte
		if err := root.QueryRow("SELECT LOAD_FILE('" + in + "')").Scan(&got); err != nil || string(got) != "1,10\n2,20\n" {
			t.Errorf("LOAD_FILE inside = %q, %v", got, err)
		}
		var missing []byte
		if err := root.QueryRow("SELECT LOAD_FILE('" + filepath.Join(dir, "nope") + "')").Scan(&missing); err != nil || missing != nil {
			t.Errorf("LOAD_FILE of a missing file = %q, %v; want NULL", missing, err)
		}
		out := filepath.Join(dir, "out.txt")
		mustExec(t, root, "SELECT id, v FROM t ORDER BY id INTO OUTFILE '"+out+"'")
		if b, err := os.ReadFile(out); err != nil || string(b) != "1\t10\n2\t20\n" {
			t.Errorf("INTO OUTFILE wrote %q, %v", b, err)
		}
		_, err := root.Exec("SELECT 1 INTO OUTFILE '" + out + "'")
		if err == nil {
			t.Error("INTO OUTFILE over an existing file succeeded")
		}
		// Without FILE: 1045, even inside.
		nf := mustConnect(t, srv.Addr(), "nofile", "nf", "s", "")
		for _, s := range []string{
			"SELECT LOAD_FILE('" + in + "')",
			"SELECT 1 INTO OUTFILE '" + filepath.Join(dir, "o4") + "'",
		} {
			_, err := nf.Exec(s)
			wantErrNumber(t, "nofile: "+s, err, 1045)
		}
		_, err = nf.Exec("LOAD DATA INFILE '" + in + "' INTO TABLE t FIELDS TERMINATED BY ','")
		if err == nil {
			t.Error("nofile: LOAD DATA INFILE succeeded")
		}
		// LOAD DATA LOCAL needs --local-infile.
		_, err = root.Exec("LOAD DATA LOCAL INFILE '" + in + "' INTO TABLE t FIELDS TERMINATED BY ','")
		wantErrNumber(t, "LOCAL without --local-infile", err, 3948)
	})

	t.Run("read-only", func(t *testing.T) {
		wh, dir := t.TempDir(), t.TempDir()
		srv := startSecure(t, sqlengine.Config{Warehouse: wh, ReadOnly: true, Security: sqlengine.SecurityConfig{SecureFilePriv: dir}})
		root := mustConnect(t, srv.Addr(), "root", "", "", "")
		_, err := root.Exec("SELECT 1 INTO OUTFILE '" + filepath.Join(dir, "o") + "'")
		wantErrNumber(t, "INTO OUTFILE on --read-only", err, 1290)
		if _, err := os.Stat(filepath.Join(dir, "o")); err == nil {
			t.Error("INTO OUTFILE wrote on a read-only server")
		}
	})
}

// TestSecurityTwoServers: two servers on one warehouse see the same
// accounts: created, granted, changed and dropped on one, effective on the
// other.
func TestSecurityTwoServers(t *testing.T) {
	wh := t.TempDir()
	a := startSecure(t, sqlengine.Config{Warehouse: wh})
	b := startSecure(t, sqlengine.Config{Warehouse: wh})
	ra := mustConnect(t, a.Addr(), "root", "", "", "")
	rb := mustConnect(t, b.Addr(), "root", "", "", "")
	mustExec(t, ra, "CREATE DATABASE s", "CREATE TABLE s.t (id BIGINT PRIMARY KEY, v INT)",
		"CREATE USER 'carol'@'%' IDENTIFIED BY 'c1'", "GRANT SELECT ON s.* TO 'carol'@'%'")
	cb := mustConnect(t, b.Addr(), "carol", "c1", "s", "")
	if _, err := cb.Exec("SELECT * FROM t"); err != nil {
		t.Fatalf("carol on b: %v", err)
	}
	_, err := cb.Exec("INSERT INTO t VALUES (1, 1)")
	wantErrNumber(t, "carol inserts on b", err, 1142)
	// A grant on b reaches a's open session within the refresh period.
	mustExec(t, rb, "GRANT INSERT ON s.* TO 'carol'@'%'")
	ca := mustConnect(t, a.Addr(), "carol", "c1", "s", "")
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, err := ca.Exec("INSERT INTO t VALUES (2, 2)")
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the grant on b never reached a: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	mustExec(t, ra, "ALTER USER 'carol'@'%' IDENTIFIED BY 'c2'")
	_, err = connectAs(t, b.Addr(), "carol", "c1", "", "")
	wantErrNumber(t, "carol's old password on b", err, 1045)
	mustConnect(t, b.Addr(), "carol", "c2", "", "")
	mustExec(t, rb, "DROP USER 'carol'@'%'")
	_, err = connectAs(t, a.Addr(), "carol", "c2", "", "")
	wantErrNumber(t, "dropped carol on a", err, 1045)
	// Both servers keep creating accounts: none is lost.
	for i := 0; i < 4; i++ {
		mustExec(t, ra, "CREATE USER 'ua"+string(rune('0'+i))+"'@'%' IDENTIFIED BY 'p'")
		mustExec(t, rb, "CREATE USER 'ub"+string(rune('0'+i))+"'@'%' IDENTIFIED BY 'p'")
	}
	got := column(queryStrings(t, ra, "SELECT user FROM mysql.user WHERE user LIKE 'u%' ORDER BY user"), 0)
	if want := []string{"ua0", "ua1", "ua2", "ua3", "ub0", "ub1", "ub2", "ub3"}; !slices.Equal(got, want) {
		t.Errorf("accounts = %q, want %q", got, want)
	}
}

// TestSecurityTLS: TLS with a self-signed certificate, REQUIRE SSL,
// --require-secure-transport, and caching_sha2_password's full
// authentication over TLS and fast authentication afterwards.
func TestSecurityTLS(t *testing.T) {
	wh := t.TempDir()
	cert, key, pool := selfSignedCert(t, t.TempDir())
	registerTLS(t, "lakesql-test", pool)
	srv := startSecure(t, sqlengine.Config{Warehouse: wh, Security: sqlengine.SecurityConfig{TLSCert: cert, TLSKey: key}})
	addr := srv.Addr()
	root := mustConnect(t, addr, "root", "", "", "tls=lakesql-test")
	mustExec(t, root,
		"CREATE USER 'sec'@'%' IDENTIFIED BY 'spw' REQUIRE SSL",
		"CREATE USER 'plain'@'%' IDENTIFIED BY 'ppw'",
		"CREATE USER 'sha'@'%' IDENTIFIED WITH caching_sha2_password BY 'shapw'",
	)
	mustConnect(t, addr, "plain", "ppw", "", "")
	mustConnect(t, addr, "plain", "ppw", "", "tls=lakesql-test")
	_, err := connectAs(t, addr, "sec", "spw", "", "")
	wantErrNumber(t, "REQUIRE SSL account without TLS", err, 1045)
	mustConnect(t, addr, "sec", "spw", "", "tls=lakesql-test")
	mustConnect(t, addr, "sec", "spw", "", "tls=skip-verify")

	// ALTER USER … REQUIRE SSL / NONE.
	mustExec(t, root, "ALTER USER 'plain'@'%' REQUIRE SSL")
	_, err = connectAs(t, addr, "plain", "ppw", "", "")
	wantErrNumber(t, "plain after REQUIRE SSL, without TLS", err, 1045)
	plain := mustConnect(t, addr, "plain", "ppw", "", "tls=lakesql-test")
	_, err = plain.Exec("ALTER USER 'sec'@'%' REQUIRE NONE")
	wantErrNumber(t, "ALTER USER REQUIRE by a non-administrator", err, 1142)
	_, err = root.Exec("ALTER USER 'nobody'@'%' REQUIRE NONE")
	wantErrNumber(t, "ALTER USER REQUIRE of an unknown account", err, 1396)
	mustExec(t, root, "ALTER USER plain REQUIRE NONE")
	mustConnect(t, addr, "plain", "ppw", "", "")

	// caching_sha2_password: the first login needs TLS (full authentication).
	_, err = connectAs(t, addr, "sha", "shapw", "", "")
	wantErrNumber(t, "caching_sha2 first login without TLS", err, 1045)
	_, err = connectAs(t, addr, "sha", "wrong", "", "tls=lakesql-test")
	wantErrNumber(t, "caching_sha2 wrong password over TLS", err, 1045)
	mustConnect(t, addr, "sha", "shapw", "", "tls=lakesql-test")
	// Now cached: fast authentication works without TLS, a wrong password does not.
	sha := mustConnect(t, addr, "sha", "shapw", "", "")
	var cu string
	if err := sha.QueryRow("SELECT CURRENT_USER()").Scan(&cu); err != nil || cu != "sha@%" {
		t.Errorf("CURRENT_USER() = %q, %v", cu, err)
	}
	_, err = connectAs(t, addr, "sha", "wrong", "", "")
	wantErrNumber(t, "caching_sha2 wrong password, fast path", err, 1045)
	// A password change invalidates the cache.
	mustExec(t, root, "ALTER USER 'sha'@'%' IDENTIFIED WITH caching_sha2_password BY 'shapw2'")
	_, err = connectAs(t, addr, "sha", "shapw", "", "")
	wantErrNumber(t, "caching_sha2 old password after ALTER", err, 1045)

	t.Run("require-secure-transport", func(t *testing.T) {
		srv := startSecure(t, sqlengine.Config{Warehouse: t.TempDir(), Security: sqlengine.SecurityConfig{
			TLSCert: cert, TLSKey: key, RequireSecureTransport: true}})
		_, err := connectAs(t, srv.Addr(), "root", "", "", "")
		wantErrNumber(t, "plain connection with --require-secure-transport", err, 3159)
		mustConnect(t, srv.Addr(), "root", "", "", "tls=lakesql-test")
		if _, err := sqlengine.New(context.Background(), sqlengine.Config{Warehouse: t.TempDir(), Host: "127.0.0.1",
			Security: sqlengine.SecurityConfig{RequireSecureTransport: true}}); err == nil {
			t.Error("--require-secure-transport without a certificate was accepted")
		}
	})
}
