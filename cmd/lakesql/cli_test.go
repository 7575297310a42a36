package main

// Tests of the command line: they build the lakesql binary once and run it
// as a user would (exit codes, --help, stray arguments, the warehouse path,
// graceful shutdown on SIGTERM/SIGINT).

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
)

var built struct {
	once sync.Once
	path string
	err  error
	dir  string
}

func lakesqlBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "lakesql-cli-")
		if built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "lakesql")
		out, err := exec.Command("go", "build", "-o", built.path, ".").CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// run runs the binary to completion (bounded) and returns its exit code.
func run(t *testing.T, dir string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	bin := lakesqlBinary(t) // built before the clock starts: a cold build can take minutes
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, o.String(), e.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), o.String(), e.String()
	}
	t.Fatalf("lakesql %q: %v", args, err)
	return
}

func TestCLIHelp(t *testing.T) {
	for _, c := range []struct {
		args  []string
		flags []string
	}{
		{[]string{"serve", "--help"}, []string{"-warehouse", "-create", "-port", "-host", "-read-only", "-shutdown-timeout"}},
		{[]string{"serve", "-h"}, []string{"-warehouse"}},
		{[]string{"inspect", "--help"}, []string{"-snapshot", "-branch", "TABLE-PATH-OR-URL"}},
		{[]string{"serve", "--help"}, []string{"-compaction-workers"}},
		{[]string{"compact", "--help"}, []string{"-warehouse", "-table", "-partition", "-full", "-option"}},
	} {
		code, out, errOut := run(t, t.TempDir(), c.args...)
		if code != 0 {
			t.Errorf("lakesql %q: exit %d, want 0 (stderr %q)", c.args, code, errOut)
		}
		for _, f := range c.flags {
			if !strings.Contains(out, f) {
				t.Errorf("lakesql %q: output does not show %s:\n%s", c.args, f, out)
			}
		}
	}
}

func TestCLIBadArguments(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "extra", "--port", "3314"}, `unexpected argument "extra"`},
		{[]string{"serve", "--port", "0", "extra"}, `unexpected argument "extra"`},
		{[]string{"serve", "--nosuchflag"}, "nosuchflag"},
		{[]string{"inspect"}, "exactly one TABLE-PATH-OR-URL"},
		{[]string{"inspect", "a", "b"}, "exactly one TABLE-PATH-OR-URL"},
		{[]string{"nosuchcommand"}, "unknown command"},
		{[]string{"compact"}, "--warehouse and --table are required"},
		{[]string{"compact", "--warehouse", ".", "--table", "t"}, "want DB.TABLE"},
		{[]string{"serve", "--compaction-workers", "-1"}, "--compaction-workers must be 0 or more"},
		{[]string{"serve", "--commit-lock", "zookeeper:x"}, "--commit-lock must be none or file:/path/to/lock-folder"},
		{[]string{"compact", "--warehouse", ".", "--table", "d.t", "--commit-lock", "x"}, "want none or file:/path/to/lock-folder"},
	} {
		code, _, errOut := run(t, dir, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("lakesql %q: exit %d, stderr %q; want exit 2 and %q", c.args, code, errOut, c.want)
		}
	}
	// Nothing was created by the refused serve commands.
	if _, err := os.Stat(filepath.Join(dir, "warehouse")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused serve created ./warehouse: %v", err)
	}
}

func TestCLIMissingWarehouse(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no", "such", "warehouse")
	code, _, errOut := run(t, dir, "serve", "--warehouse", missing, "--port", "0")
	if code != 1 || !strings.Contains(errOut, "pass --create") || !strings.Contains(errOut, missing) {
		t.Errorf("missing warehouse: exit %d, stderr %q; want exit 1 naming the path and --create", code, errOut)
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the missing warehouse was created: %v", err)
	}
}

// server is a running `lakesql serve`.
type server struct {
	cmd  *exec.Cmd
	addr string
	log  *bytes.Buffer
	mu   *sync.Mutex
	done chan error
}

var listenRE = regexp.MustCompile(`msg=serving warehouse=(\S+) mysql=(\S+)`)

func startServe(t *testing.T, dir string, args ...string) (*server, string) {
	t.Helper()
	cmd := exec.Command(lakesqlBinary(t), append([]string{"serve", "--port", "0"}, args...)...)
	cmd.Dir = dir
	pr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd, log: new(bytes.Buffer), mu: new(sync.Mutex), done: make(chan error, 1)}
	found := make(chan []string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			s.mu.Lock()
			s.log.WriteString(sc.Text() + "\n")
			s.mu.Unlock()
			if m := listenRE.FindStringSubmatch(sc.Text()); m != nil {
				found <- m
			}
		}
		s.done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-s.done
		}
	})
	select {
	case m := <-found:
		s.addr = m[2]
		return s, m[1]
	case err := <-s.done:
		t.Fatalf("lakesql serve exited: %v\n%s", err, s.logText())
	case <-time.After(60 * time.Second):
		t.Fatalf("lakesql serve did not start:\n%s", s.logText())
	}
	return nil, ""
}

func (s *server) logText() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

func (s *server) wait(t *testing.T) int {
	t.Helper()
	select {
	case err := <-s.done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(60 * time.Second):
		t.Fatalf("lakesql serve did not exit:\n%s", s.logText())
	}
	return -1
}

// TestCLIDefaultWarehouse: the README's first command, `lakesql serve` in a
// fresh folder, creates ./warehouse, says so, and logs the absolute path.
func TestCLIDefaultWarehouse(t *testing.T) {
	dir := t.TempDir()
	s, wh := startServe(t, dir)
	want := filepath.Join(dir, "warehouse")
	if wh != want {
		t.Errorf("start-up log shows warehouse %s, want the absolute path %s", wh, want)
	}
	if !strings.Contains(s.logText(), `msg="created warehouse (it did not exist)" path=`+want) {
		t.Errorf("no log line about creating the warehouse:\n%s", s.logText())
	}
	if st, err := os.Stat(want); err != nil || !st.IsDir() {
		t.Errorf("./warehouse not created: %v", err)
	}
	s.cmd.Process.Signal(syscall.SIGINT)
	if code := s.wait(t); code != 0 {
		t.Errorf("exit %d after SIGINT, want 0:\n%s", code, s.logText())
	}
	// A relative --warehouse that does not exist needs --create; with it,
	// the absolute path is logged.
	code, _, errOut := run(t, dir, "serve", "--warehouse", "other", "--port", "0")
	if code != 1 || !strings.Contains(errOut, "pass --create") {
		t.Errorf("serve --warehouse other: exit %d, %q", code, errOut)
	}
	s2, wh2 := startServe(t, dir, "--warehouse", "other", "--create")
	if wh2 != filepath.Join(dir, "other") {
		t.Errorf("start-up log shows %s, want %s", wh2, filepath.Join(dir, "other"))
	}
	s2.cmd.Process.Signal(syscall.SIGTERM)
	if code := s2.wait(t); code != 0 {
		t.Errorf("exit %d after SIGTERM, want 0", code)
	}
}

// waitRunning polls SHOW PROCESSLIST on c until a statement containing
// text is running (a loaded machine may take a while to start it).
func waitRunning(t *testing.T, c *sql.Conn, text string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		rows, err := c.QueryContext(context.Background(), "SHOW PROCESSLIST")
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		found := false
		for rows.Next() {
			vals := make([]sql.NullString, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for _, v := range vals {
				if strings.Contains(v.String, text) && !strings.Contains(v.String, "PROCESSLIST") {
					found = true
				}
			}
		}
		rows.Close()
		if found {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no running statement with %q after 30 s", text)
}

// TestCLIGracefulShutdown: SIGTERM while a statement runs and a transaction
// is open: the listener closes, the running statement (an INSERT … SELECT
// that sleeps, then commits) finishes and is durable, new statements get
// 1053, and the process exits 0 with a message.
func TestCLIGracefulShutdown(t *testing.T) {
	dir := t.TempDir()
	s, _ := startServe(t, dir, "--warehouse", "wh", "--create")
	db, err := sql.Open("mysql", "root@tcp("+s.addr+")/default")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxIdleConns(4)
	if _, err := db.Exec("CREATE TABLE g (id BIGINT, v BIGINT, PRIMARY KEY (id) NOT ENFORCED)"); err != nil {
		t.Fatal(err)
	}
	idle, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	if err := idle.PingContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	slowConn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer slowConn.Close()
	if err := slowConn.PingContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	slow := make(chan error, 1)
	go func() {
		_, err := slowConn.ExecContext(context.Background(), "INSERT INTO g SELECT 1, SLEEP(2)")
		slow <- err
	}()
	waitRunning(t, idle, "SLEEP(2)") // the INSERT is running
	start := time.Now()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	// The listener is closed: new connections fail.
	if c, err := sql.Open("mysql", "root@tcp("+s.addr+")/default?timeout=1s"); err == nil {
		if err := c.Ping(); err == nil {
			t.Error("a new connection was accepted after SIGTERM")
		}
		c.Close()
	}
	// An open connection's new statement is refused with 1053.
	if _, err := idle.ExecContext(context.Background(), "SELECT 1"); err == nil || !strings.Contains(err.Error(), "1053") {
		t.Errorf("statement after SIGTERM on an open connection: %v, want error 1053", err)
	}
	if err := <-slow; err != nil {
		t.Errorf("the running INSERT failed during shutdown: %v", err)
	}
	if code := s.wait(t); code != 0 {
		t.Errorf("exit %d, want 0:\n%s", code, s.logText())
	}
	if el := time.Since(start); el > 20*time.Second {
		t.Errorf("shutdown took %s", el)
	}
	if !strings.Contains(s.logText(), "msg=stopped statements_finished=") {
		t.Errorf("no stop message:\n%s", s.logText())
	}
	// The INSERT committed: a new server sees the row.
	s2, _ := startServe(t, dir, "--warehouse", "wh")
	db2, err := sql.Open("mysql", "root@tcp("+s2.addr+")/default")
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	var n int
	if err := db2.QueryRow("SELECT COUNT(*) FROM g").Scan(&n); err != nil || n != 1 {
		t.Errorf("after restart: COUNT(*) = %d, %v; want the INSERT that ran during shutdown", n, err)
	}
	s2.cmd.Process.Signal(syscall.SIGTERM)
	s2.wait(t)
}
