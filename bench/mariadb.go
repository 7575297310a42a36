package main

import (
	"bytes"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// A private MariaDB server (as tests/mariadb_helper_test.go starts one): a
// fresh datadir from mariadb-install-db in a temporary folder, mariadbd on a
// free port of 127.0.0.1, InnoDB with a buffer pool sized to the data (as a
// reasonably configured server would be), durable commits (the defaults),
// MySQL 8's default sql_mode, LOAD DATA LOCAL allowed.

type mariaDB struct {
	Addr string
	dir  string
	cmd  *exec.Cmd
	done chan error
	log  *bytes.Buffer
}

const mysql8SQLMode = "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"

func startMariaDB(bufferPool int64) (*mariaDB, error) {
	mariadbd, err := exec.LookPath("mariadbd")
	if err != nil {
		return nil, fmt.Errorf("mariadbd not found (apt-get install mariadb-server): %w", err)
	}
	install, err := exec.LookPath("mariadb-install-db")
	if err != nil {
		return nil, fmt.Errorf("mariadb-install-db not found: %w", err)
	}
	dir, err := os.MkdirTemp("", "lakesql-bench-mariadb-")
	if err != nil {
		return nil, err
	}
	datadir := filepath.Join(dir, "data")
	var user []string
	if os.Geteuid() == 0 {
		user = []string{"--user=root"}
	}
	args := append([]string{"--no-defaults", "--datadir=" + datadir, "--auth-root-authentication-method=normal",
		"--skip-test-db", "--skip-name-resolve"}, user...)
	if out, err := exec.Command(install, args...).CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("mariadb-install-db: %v\n%s", err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	m := &mariaDB{Addr: fmt.Sprintf("127.0.0.1:%d", port), dir: dir, done: make(chan error, 1), log: &bytes.Buffer{}}
	m.cmd = exec.Command(mariadbd, append([]string{"--no-defaults", "--datadir=" + datadir,
		"--bind-address=127.0.0.1", fmt.Sprintf("--port=%d", port), "--socket=" + filepath.Join(dir, "mysqld.sock"),
		"--pid-file=" + filepath.Join(dir, "mysqld.pid"), "--skip-grant-tables", "--skip-name-resolve",
		"--skip-log-bin", fmt.Sprintf("--innodb-buffer-pool-size=%d", bufferPool), "--innodb-log-file-size=256M",
		"--max-allowed-packet=256M", "--local-infile=1", "--max-connections=64",
		"--character-set-server=utf8mb4", "--collation-server=utf8mb4_bin", "--sql-mode=" + mysql8SQLMode}, user...)...)
	m.cmd.Stdout, m.cmd.Stderr = m.log, m.log
	if err := m.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start mariadbd: %w", err)
	}
	go func() { m.done <- m.cmd.Wait() }()
	deadline := time.Now().Add(90 * time.Second)
	for {
		db, err := sql.Open("mysql", "root@tcp("+m.Addr+")/")
		if err == nil {
			err = db.Ping()
			db.Close()
		}
		if err == nil {
			return m, nil
		}
		select {
		case werr := <-m.done:
			m.done <- werr
			os.RemoveAll(dir)
			return nil, fmt.Errorf("mariadbd exited: %v\n%s", werr, m.log)
		default:
		}
		if time.Now().After(deadline) {
			m.Stop()
			return nil, fmt.Errorf("mariadbd not ready after 90 s: %v\n%s", err, m.log)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (m *mariaDB) Pid() int { return m.cmd.Process.Pid }

func (m *mariaDB) Stop() {
	if m.cmd.Process != nil {
		m.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-m.done:
		case <-time.After(20 * time.Second):
			m.cmd.Process.Kill()
			<-m.done
		}
	}
	os.RemoveAll(m.dir)
}
