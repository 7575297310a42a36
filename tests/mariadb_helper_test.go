package tests

import (
	"bytes"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/testutil"
)

// A private MariaDB server for differential tests (and the bench): a fresh
// datadir from mariadb-install-db in a temporary folder, mariadbd on a free
// port of 127.0.0.1 and a socket in that folder, stopped (SIGTERM, then
// SIGKILL after 10 s) and removed by t.Cleanup. The file depends only on
// testutil.Command, so it can be copied where it is needed.

// mariaDB is a running private MariaDB server.
type mariaDB struct {
	Addr string // 127.0.0.1:port
	dir  string
	cmd  *exec.Cmd
	done chan error
	log  *bytes.Buffer
}

// mysql8SQLMode is MySQL 8.0's default sql_mode, the server's global one,
// so MariaDB behaves as MySQL would where they differ.
const mysql8SQLMode = "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"

// startMariaDB starts a private MariaDB server; it skips (locally) or fails
// (CI) when mariadbd or mariadb-install-db is missing.
func startMariaDB(t testing.TB) *mariaDB {
	t.Helper()
	mariadbd := testutil.Command(t, "mariadbd")
	install := testutil.Command(t, "mariadb-install-db")
	dir, err := os.MkdirTemp("", "lakesql-mariadb-")
	if err != nil {
		t.Fatal(err)
	}
	datadir := filepath.Join(dir, "data")
	user := []string{}
	if os.Geteuid() == 0 {
		user = []string{"--user=root"} // mariadbd refuses to run as root otherwise
	}
	args := append([]string{"--no-defaults", "--datadir=" + datadir, "--auth-root-authentication-method=normal",
		"--skip-test-db", "--skip-name-resolve"}, user...)
	if out, err := exec.Command(install, args...).CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		t.Fatalf("mariadb-install-db: %v\n%s", err, out)
	}
	port, err := freePort()
	if err != nil {
		os.RemoveAll(dir)
		t.Fatal(err)
	}
	m := &mariaDB{Addr: fmt.Sprintf("127.0.0.1:%d", port), dir: dir, done: make(chan error, 1), log: &bytes.Buffer{}}
	m.cmd = exec.Command(mariadbd, append([]string{"--no-defaults", "--datadir=" + datadir,
		"--bind-address=127.0.0.1", fmt.Sprintf("--port=%d", port), "--socket=" + filepath.Join(dir, "mysqld.sock"),
		"--pid-file=" + filepath.Join(dir, "mysqld.pid"), "--skip-grant-tables", "--skip-name-resolve",
		"--skip-log-bin", "--innodb-buffer-pool-size=64M", "--innodb-log-file-size=16M",
		"--character-set-server=utf8mb4", "--collation-server=utf8mb4_bin", "--sql-mode=" + mysql8SQLMode}, user...)...)
	m.cmd.Stdout, m.cmd.Stderr = m.log, m.log
	if err := m.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		t.Fatalf("start mariadbd: %v", err)
	}
	go func() { m.done <- m.cmd.Wait() }()
	t.Cleanup(m.stop)
	deadline := time.Now().Add(60 * time.Second)
	for {
		db, err := sql.Open("mysql", "root@tcp("+m.Addr+")/")
		if err == nil {
			err = db.Ping()
			db.Close()
		}
		if err == nil {
			break
		}
		select {
		case werr := <-m.done:
			m.done <- werr
			t.Fatalf("mariadbd exited: %v\n%s", werr, m.log)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("mariadbd not ready after 60 s: %v\n%s", err, m.log)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return m
}

// Open opens a connection pool to database db (empty: none); the server
// runs with MySQL 8's default sql_mode.
func (m *mariaDB) Open(t testing.TB, db string) *sql.DB {
	t.Helper()
	d, err := sql.Open("mysql", fmt.Sprintf("root@tcp(%s)/%s?parseTime=true", m.Addr, db))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func (m *mariaDB) stop() {
	if m.cmd.Process != nil {
		m.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-m.done:
		case <-time.After(10 * time.Second):
			m.cmd.Process.Kill()
			<-m.done
		}
	}
	os.RemoveAll(m.dir)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
