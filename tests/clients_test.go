package tests

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/testutil"
	"github.com/lakesql/lakesql/sqlengine"
)

// The client tests drive the real client libraries, in their default
// settings, against a fresh lakesql server: each runs one small script of
// tests/clients/ (which prints one line per check and exits non-zero on the
// first failure) and passes when it prints PASS. .ci/run installs the
// libraries: tests/clients/requirements.txt into the Python venv,
// tests/clients/node/package.json (npm install), tests/clients/java/pom.xml
// (mvn package, dependencies copied to target/lib).

// startClientServer starts a lakesql server over a fresh warehouse and
// returns its port.
func startClientServer(t *testing.T) string {
	t.Helper()
	wh := t.TempDir()
	srv, err := sqlengine.New(context.Background(), sqlengine.Config{Warehouse: wh, Host: "127.0.0.1", Port: 0})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Start() }()
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Errorf("server did not stop")
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", srv.Addr())
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server at %s not ready: %v", srv.Addr(), err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	_, port, _ := net.SplitHostPort(srv.Addr())
	return port
}

// runClient runs a client script and fails the test unless it prints PASS.
func runClient(t *testing.T, dir string, name string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	t.Logf("%s %s:\n%s", filepath.Base(name), strings.Join(args, " "), out)
	if err != nil || !strings.Contains(string(out), "\nPASS") && !strings.HasPrefix(string(out), "PASS") {
		t.Fatalf("client check failed (%v)", err)
	}
}

// need skips (or, in CI, fails) when an installed artefact is missing.
func need(t *testing.T, path, what string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		if testutil.RequireTools() {
			t.Fatalf("%s is missing (%s), and LAKESQL_REQUIRE_TOOLS=1 says .ci/run installed it", what, path)
		}
		t.Skipf("%s is missing (%s): run .ci/run once to install it", what, path)
	}
}

// TestClientsPython: PyMySQL and mysqlclient in default mode (autocommit
// off: rollback undoes, other connections see rows only after commit;
// EXPLAIN readable; literals never rewritten; …), SQLAlchemy 2.x Core and
// ORM with pandas, and mysql-connector-python.
func TestClientsPython(t *testing.T) {
	py := testutil.Python(t)
	port := startClientServer(t)
	dir := filepath.Join("clients", "python")
	t.Run("PyMySQL", func(t *testing.T) { runClient(t, dir, py, "dbapi_check.py", "pymysql", port, "c_pymysql") })
	t.Run("mysqlclient", func(t *testing.T) {
		runClient(t, dir, py, "dbapi_check.py", "mysqlclient", port, "c_mysqlclient")
	})
	t.Run("SQLAlchemy", func(t *testing.T) { runClient(t, dir, py, "sqlalchemy_check.py", port, "c_sqlalchemy") })
	t.Run("mysql-connector-python", func(t *testing.T) {
		runClient(t, dir, py, "connector_check.py", port, "c_connector")
	})
	// SQLAlchemy 1.4 (with pandas 2.1) lives in its own venv:
	// tests/clients/venv-sqlalchemy14.txt.
	t.Run("SQLAlchemy-1.4", func(t *testing.T) {
		py14 := filepath.Join(testutil.CacheDir(), "venv-sqlalchemy14", "bin", "python")
		need(t, py14, "the SQLAlchemy 1.4 venv")
		runClient(t, dir, py14, "sqlalchemy_check.py", port, "c_sqlalchemy14")
	})
}

// TestClientsJava: MySQL Connector/J and MariaDB Connector/J (getObject
// types, BOOLEAN → Boolean, EXPLAIN, prepared EXPLAIN, transactions,
// SQLSTATE 42S02).
func TestClientsJava(t *testing.T) {
	java := testutil.Command(t, "java")
	dir := filepath.Join("clients", "java")
	need(t, filepath.Join(dir, "target", "classes", "lakesql", "JdbcCheck.class"), "the JDBC check (mvn package in tests/clients/java)")
	port := startClientServer(t)
	cp := "target/classes" + string(os.PathListSeparator) + "target/lib/*"
	for i, u := range []string{"jdbc:mysql://127.0.0.1:%s/default", "jdbc:mariadb://127.0.0.1:%s/default"} {
		name := strings.SplitN(u, ":", 3)[1]
		t.Run(name, func(t *testing.T) {
			runClient(t, dir, java, "-cp", cp, "lakesql.JdbcCheck", fmt.Sprintf(u, port), fmt.Sprintf("c_jdbc%d", i))
		})
	}
}

// TestClientsNode: mysql2's query() and execute() (prepared statements,
// affectedRows/changedRows, AS OF ? refused with 1235, transactions).
func TestClientsNode(t *testing.T) {
	node := testutil.Command(t, "node")
	dir := filepath.Join("clients", "node")
	need(t, filepath.Join(dir, "node_modules", "mysql2"), "mysql2 (npm install in tests/clients/node)")
	port := startClientServer(t)
	runClient(t, dir, node, "check.js", port, "c_mysql2")
}
