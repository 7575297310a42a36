package main

// Tests of the operating features of the command line: configuration
// precedence and --print-config, lakesql version, and the metrics endpoint
// scraped while a workload runs.

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runEnv runs the binary with extra environment variables.
func runEnv(t *testing.T, dir string, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, lakesqlBinary(t), args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), o.String(), e.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, o.String(), e.String()
}

// TestCLIPrintConfig: serve --print-config shows the effective settings
// with their sources, flags > LAKESQL_* > file > defaults, and exits 0
// without serving.
func TestCLIPrintConfig(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "lakesql.toml")
	if err := os.WriteFile(file, []byte("port = 4001\nhost = \"127.0.0.2\"\nslow-query-ms = 100\n[table-defaults]\n\"file.compression\" = \"lz4\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runEnv(t, dir, []string{"LAKESQL_PORT=4002", "LAKESQL_SLOW_QUERY_MS=200", "LAKESQL_CONFIG=" + file},
		"serve", "--print-config", "--port", "4003")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		`port = 4003`, `# flag`, `slow-query-ms = 200`, `host = "127.0.0.2"`, `"file.compression" = "lz4"`,
		`warehouse = "./warehouse"`, "# config file: " + file,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("--print-config output lacks %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "port ") && !strings.HasSuffix(line, "# flag"),
			strings.HasPrefix(line, "slow-query-ms ") && !strings.HasSuffix(line, "# env"),
			strings.HasPrefix(line, "host ") && !strings.HasSuffix(line, "# file"),
			strings.HasPrefix(line, "warehouse ") && !strings.HasSuffix(line, "# default"):
			t.Errorf("wrong source: %s", line)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "warehouse")); !os.IsNotExist(err) {
		t.Errorf("--print-config created the warehouse: %v", err)
	}
	// A bad environment value fails (exit 1) naming the variable.
	code, _, errOut = runEnv(t, dir, []string{"LAKESQL_PORT=many"}, "serve", "--print-config")
	if code != 1 || !strings.Contains(errOut, "LAKESQL_PORT") {
		t.Errorf("LAKESQL_PORT=many: exit %d, %q", code, errOut)
	}
}

func TestCLIVersion(t *testing.T) {
	code, out, errOut := run(t, t.TempDir(), "version")
	if code != 0 || !regexp.MustCompile(`(?m)^lakesql \S+\nmodule: github.com/lakesql/lakesql\ncommit: .+\ngo: go1\.`).MatchString(out) {
		t.Errorf("lakesql version: exit %d, %q %q", code, out, errOut)
	}
}

var metricsRE = regexp.MustCompile(`msg="metrics endpoint" addr=(\S+)`)

// scrape reads the metrics endpoint into name{labels} → value.
func scrape(t *testing.T, addr string) map[string]float64 {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestCLIMetricsDuringWorkload runs `lakesql serve --metrics-addr` and a
// workload through the MySQL protocol, scraping before, during (an open
// connection) and after: every figure moves by what the workload did.
func TestCLIMetricsDuringWorkload(t *testing.T) {
	dir := t.TempDir()
	s, _ := startServe(t, dir, "--warehouse", "wh", "--create", "--metrics-addr", "127.0.0.1:0", "--slow-query-ms", "0", "--log-level", "debug")
	var maddr string
	deadline := time.Now().Add(30 * time.Second)
	for maddr == "" && time.Now().Before(deadline) {
		if m := metricsRE.FindStringSubmatch(s.logText()); m != nil {
			maddr = m[1]
		}
		time.Sleep(20 * time.Millisecond)
	}
	if maddr == "" {
		t.Fatalf("no metrics endpoint in the log:\n%s", s.logText())
	}
	if code, body := httpGet(t, "http://"+maddr+"/healthz"); code != 200 || strings.TrimSpace(body) != "ok" {
		t.Errorf("/healthz: %d %q", code, body)
	}
	// /readyz turns 200 once the server accepts connections.
	for {
		code, body := httpGet(t, "http://"+maddr+"/readyz")
		if code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz: %d %q", code, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	before := scrape(t, maddr)

	db, err := sql.Open("mysql", "root@tcp("+s.addr+")/default")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	exec := func(q string) {
		t.Helper()
		if _, err := conn.ExecContext(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec("CREATE TABLE m (id BIGINT PRIMARY KEY, v INT) WITH ('bucket' = '2')")
	const inserts = 5
	for i := range inserts {
		exec(fmt.Sprintf("INSERT INTO m VALUES (%d, %d)", i, i))
	}
	const selects = 3
	for range selects {
		var n int
		if err := conn.QueryRowContext(context.Background(), "SELECT count(*) FROM m").Scan(&n); err != nil || n != inserts {
			t.Fatalf("count = %d, %v", n, err)
		}
	}
	if _, err := conn.ExecContext(context.Background(), "SELECT * FROM no_such_table"); err == nil {
		t.Fatal("no error for a missing table")
	}
	during := scrape(t, maddr)
	conn.Close()
	db.Close()

	delta := func(name string) float64 { return during[name] - before[name] }
	for name, want := range map[string]float64{
		`lakesql_queries_total{kind="insert"}`:                           inserts,
		`lakesql_queries_total{kind="ddl"}`:                              1,
		`lakesql_query_errors_total{code="1146"}`:                        1,
		`lakesql_commits_total{kind="APPEND"}`:                           inserts,
		`lakesql_query_duration_seconds_count{kind="insert"}`:            inserts,
		`lakesql_table_snapshots{table="default.m"}`:                     inserts,
		`lakesql_write_buffer_bytes`:                                     0,
		`lakesql_commit_conflicts_total`:                                 0,
		`lakesql_sorted_runs_per_bucket_count`:                           2 * selects,
		`lakesql_sorted_runs_per_bucket_bucket{le="+Inf"}`:               2 * selects,
		`lakesql_query_duration_seconds_bucket{kind="insert",le="+Inf"}`: inserts,
	} {
		if got := delta(name); got != want {
			t.Errorf("%s moved by %v, want %v", name, got, want)
		}
	}
	// The selects (and the failed one) count as selects; the driver's own
	// statements may add more, never fewer.
	if got := delta(`lakesql_queries_total{kind="select"}`); got < selects+1 {
		t.Errorf("selects counted %v, want at least %d", got, selects+1)
	}
	// 5 single-row inserts into 2 buckets leave 5 level-0 runs in all.
	if got := during[`lakesql_sorted_runs_max{table="default.m"}`]; got < 3 || got > inserts {
		t.Errorf("sorted runs max = %v, want 3..5 (5 level-0 files in 2 buckets)", got)
	}
	if during[`lakesql_connections_open`] < 1 {
		t.Errorf("no open connection counted while one was open")
	}
	if delta(`lakesql_storage_written_bytes_total{backend="file"}`) <= 0 || delta(`lakesql_storage_read_bytes_total{backend="file"}`) <= 0 {
		t.Errorf("storage bytes did not move: written %v, read %v",
			delta(`lakesql_storage_written_bytes_total{backend="file"}`), delta(`lakesql_storage_read_bytes_total{backend="file"}`))
	}
	if delta(`lakesql_manifest_cache_hits_total`)+delta(`lakesql_manifest_cache_misses_total`) <= 0 {
		t.Errorf("no manifest cache lookups counted")
	}
	// The connection is gone: the gauge goes back.
	for {
		if after := scrape(t, maddr); after[`lakesql_connections_open`] == before[`lakesql_connections_open`] {
			break
		}
		if time.Now().After(deadline.Add(30 * time.Second)) {
			t.Fatal("lakesql_connections_open did not go back after the connection closed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Logs: one info line per commit, no slow-query lines (--slow-query-ms
	// 0 is off), GMS's logrus lines in slog at debug level.
	s.cmd.Process.Signal(syscall.SIGTERM)
	if code := s.wait(t); code != 0 {
		t.Errorf("exit %d", code)
	}
	log := s.logText()
	if n := strings.Count(log, "msg=commit table=default.m"); n != inserts {
		t.Errorf("%d commit log lines, want %d:\n%s", n, inserts, log)
	}
	if strings.Contains(log, "slow query") {
		t.Errorf("slow-query lines with --slow-query-ms 0 (off):\n%s", log)
	}
	if !strings.Contains(log, "source=go-mysql-server") {
		t.Errorf("GMS's logrus lines are not routed into slog at debug level:\n%s", log)
	}
}

// TestCLITerminal: lakesql sql -e (embedded, no server), its formats and
// exit status, statements from standard input, and lakesql load with
// plain progress lines when standard error is not a terminal.
func TestCLITerminal(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := run(t, dir, "sql", "--warehouse", "wh", "--create", "--format", "csv", "-e",
		"CREATE TABLE t (id BIGINT PRIMARY KEY, s STRING); INSERT INTO t VALUES (1, 'a,b'), (2, NULL); SELECT * FROM t ORDER BY id")
	if code != 0 || out != "id,s\r\n1,\"a,b\"\r\n2,\r\n" {
		t.Errorf("sql -e: exit %d, %q, %q", code, out, errOut)
	}
	code, _, errOut = run(t, dir, "sql", "--warehouse", "wh", "-e", "SELECT * FROM nosuch")
	if code != 1 || !strings.Contains(errOut, "1146") {
		t.Errorf("sql -e with an error: exit %d, %q", code, errOut)
	}
	code, _, errOut = run(t, dir, "sql", "--warehouse", "wh", "--format", "xml", "-e", "SELECT 1")
	if code != 2 || !strings.Contains(errOut, "xml") {
		t.Errorf("--format xml: exit %d, %q", code, errOut)
	}
	if err := os.WriteFile(filepath.Join(dir, "in.tsv"), []byte("3\tc\n4\t\\N\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = run(t, dir, "load", "in.tsv", "INTO", "default.t", "--warehouse", "wh", "--format", "tsv")
	if code != 0 || !strings.Contains(errOut, "lakesql: load in.tsv: 2 rows from 9 B") {
		t.Errorf("load: exit %d, %q", code, errOut)
	}
	code, _, errOut = run(t, dir, "load", "in.tsv", "TO", "default.t")
	if code != 2 || !strings.Contains(errOut, "FILE INTO TABLE") {
		t.Errorf("load with a bad command line: exit %d, %q", code, errOut)
	}
	cmd := exec.Command(lakesqlBinary(t), "sql", "--warehouse", "wh", "--format", "json")
	cmd.Dir, cmd.Stdin = dir, strings.NewReader("SELECT id, s FROM t WHERE id > 2 ORDER BY id;\n")
	b, err := cmd.Output()
	if err != nil || string(b) != "[\n{\"id\":3,\"s\":\"c\"},\n{\"id\":4,\"s\":null}\n]\n" {
		t.Errorf("sql from standard input: %v %q", err, b)
	}
}
