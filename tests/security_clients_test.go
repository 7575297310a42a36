package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/testutil"
	"github.com/lakesql/lakesql/sqlengine"
)

// TestSecurityPyMySQL runs tests/security/pymysql_check.py (PyMySQL,
// pinned in tests/security/requirements.txt) against a TLS server: wrong
// password and unknown user 1045, a read-only account's writes 1142, file
// statements 1045/1290, SET GLOBAL 1227, TLS login for a REQUIRE SSL
// account, caching_sha2_password's full authentication over TLS and its
// fast path.
func TestSecurityPyMySQL(t *testing.T) {
	py := testutil.Python(t)
	cert, key, _ := selfSignedCert(t, t.TempDir())
	srv := startSecure(t, sqlengine.Config{Warehouse: t.TempDir(), Security: sqlengine.SecurityConfig{TLSCert: cert, TLSKey: key}})
	root := mustConnect(t, srv.Addr(), "root", "", "", "")
	mustExec(t, root,
		"CREATE DATABASE s", "CREATE TABLE s.t (id BIGINT PRIMARY KEY, v INT)", "INSERT INTO s.t VALUES (1, 1), (2, 2)",
		"CREATE USER 'pyuser'@'%' IDENTIFIED BY 'pypw'",
		"CREATE USER 'pyro'@'%' IDENTIFIED BY 'ropw'", "GRANT SELECT ON s.* TO 'pyro'@'%'",
		"CREATE USER 'pytls'@'%' IDENTIFIED BY 'tlspw' REQUIRE SSL",
		"CREATE USER 'pysha'@'%' IDENTIFIED WITH caching_sha2_password BY 'shapw'")
	host, port, _ := net.SplitHostPort(srv.Addr())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, filepath.Join("security", "pymysql_check.py"), host, port, cert)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("pymysql_check.py: %v\n%s", err, stderr.String())
	}
	var got map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("pymysql_check.py printed %q: %v", stdout.String(), err)
	}
	want := map[string]any{
		"wrong_password": 1045.0, "unknown_user": 1045.0, "login": 0.0, "ro_count": 2.0,
		"ro_insert": 1142.0, "ro_update": 1142.0, "ro_delete": 1142.0, "ro_create": 1142.0, "ro_drop": 1142.0,
		"ro_outfile": 1045.0, "ro_load_file": 1045.0, "ro_set_global": 1227.0,
		"tls_user": "pytls@%", "tls_required_plain": 1045.0,
		"sha_first_plain": 1045.0, "sha_wrong_tls": 1045.0, "sha_full_tls": "pysha@%", "sha_fast_plain": "pysha@%", "sha_wrong_fast": 1045.0,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("PyMySQL results\n got %v\nwant %v", got, want)
	}
}

// TestSecurityMySQLCLI: the mysql command-line client: wrong password and
// unknown user 1045, --ssl to a TLS server (and a REQUIRE SSL account),
// caching_sha2_password's full authentication over TLS and fast path
// without, a read-only account refused with 1142, server files with 1290.
func TestSecurityMySQLCLI(t *testing.T) {
	bin := testutil.Command(t, "mysql")
	cert, key, _ := selfSignedCert(t, t.TempDir())
	srv := startSecure(t, sqlengine.Config{Warehouse: t.TempDir(), Security: sqlengine.SecurityConfig{TLSCert: cert, TLSKey: key}})
	root := mustConnect(t, srv.Addr(), "root", "", "", "")
	mustExec(t, root,
		"CREATE DATABASE s", "CREATE TABLE s.t (id BIGINT PRIMARY KEY, v INT)",
		"CREATE USER 'cli'@'%' IDENTIFIED BY 'clipw'", "GRANT SELECT ON s.* TO 'cli'@'%'",
		"CREATE USER 'clitls'@'%' IDENTIFIED BY 'tlspw' REQUIRE SSL", "GRANT SELECT ON s.* TO 'clitls'@'%'")
	host, port, _ := net.SplitHostPort(srv.Addr())
	run := func(args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		full := append([]string{"--protocol=TCP", "-h", host, "-P", port, "-B", "-N"}, args...)
		out, err := exec.CommandContext(ctx, bin, full...).CombinedOutput()
		return string(out), err
	}
	expectErr := func(what, code string, args ...string) {
		t.Helper()
		out, err := run(args...)
		if err == nil || !strings.Contains(out, "ERROR "+code) {
			t.Errorf("%s: %v\n%s\nwant ERROR %s", what, err, out, code)
		}
	}
	expectErr("wrong password", "1045", "--skip-ssl", "-u", "cli", "-pwrong", "-e", "SELECT 1")
	expectErr("unknown user", "1045", "--skip-ssl", "-u", "mallory", "-pwrongpassword", "-e", "SELECT 1")
	expectErr("REQUIRE SSL without --ssl", "1045", "--skip-ssl", "-u", "clitls", "-ptlspw", "-e", "SELECT 1")
	if out, err := run("--ssl", "--ssl-ca="+cert, "-u", "clitls", "-ptlspw", "-e", "SELECT CURRENT_USER()"); err != nil || strings.TrimSpace(out) != "clitls@%" {
		t.Errorf("--ssl login: %v\n%s", err, out)
	}
	if out, err := run("--ssl", "-u", "cli", "-pclipw", "-e", "SHOW SESSION STATUS LIKE 'Ssl_cipher'"); err != nil {
		t.Logf("Ssl_cipher: %v %s", err, out) // informational: GMS may not report it
	}
	// caching_sha2_password with the mysql client: full authentication over
	// TLS first (without TLS it is refused: no RSA keys), then the fast path.
	mustExec(t, root, "CREATE USER 'clisha'@'%' IDENTIFIED WITH caching_sha2_password BY 'shapw'")
	expectErr("caching_sha2 first login without TLS", "1045", "--skip-ssl", "-u", "clisha", "-pshapw", "-e", "SELECT 1")
	expectErr("caching_sha2 wrong password over TLS", "1045", "--ssl", "--ssl-ca="+cert, "-u", "clisha", "-pwrong", "-e", "SELECT 1")
	if out, err := run("--ssl", "--ssl-ca="+cert, "-u", "clisha", "-pshapw", "-e", "SELECT CURRENT_USER()"); err != nil || strings.TrimSpace(out) != "clisha@%" {
		t.Errorf("caching_sha2 full authentication over TLS: %v\n%s", err, out)
	}
	if out, err := run("--skip-ssl", "-u", "clisha", "-pshapw", "-e", "SELECT CURRENT_USER()"); err != nil || strings.TrimSpace(out) != "clisha@%" {
		t.Errorf("caching_sha2 fast authentication without TLS: %v\n%s", err, out)
	}
	expectErr("read-only INSERT", "1142", "--skip-ssl", "-u", "cli", "-pclipw", "-D", "s", "-e", "INSERT INTO t VALUES (1, 1)")
	expectErr("read-only CREATE TABLE", "1142", "--skip-ssl", "-u", "cli", "-pclipw", "-D", "s", "-e", "CREATE TABLE u (id INT)")
	expectErr("LOAD_FILE as root", "1290", "--skip-ssl", "-u", "root", "-e", "SELECT LOAD_FILE('/etc/shadow')")
	expectErr("INTO DUMPFILE as root", "1290", "--skip-ssl", "-u", "root", "-e", "SELECT 'x' INTO DUMPFILE '/tmp/lakesql-dump'")
}
