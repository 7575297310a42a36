package tests

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/testutil"
)

const flinkJar = "interop/flink/target/flink-harness.jar"

// flinkSession is one JVM of the Flink SQL program (tests/interop/flink) in
// session mode: each command is a line on its standard input, its output
// JSON lines followed by {"op":"done"}. One JVM for the whole check spares
// a second JVM and Flink start-up.
type flinkSession struct {
	t      *testing.T
	cmd    *exec.Cmd
	cancel context.CancelFunc
	stdin  io.WriteCloser
	out    *bufio.Scanner
	stderr *bytes.Buffer
	start  time.Time
}

func startFlink(t *testing.T) *flinkSession {
	t.Helper()
	jar := testutil.Built(t, flinkJar, "`mvn -q -B -DskipTests package` in tests/interop/flink (.ci/run does it)")
	java := testutil.Command(t, "java")
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	// Flink 1.20 on JDK 17 needs these modules opened (as its own scripts
	// do); C1 only, as the run is short.
	cmd := exec.CommandContext(ctx, java, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
		"--add-opens=java.base/java.util=ALL-UNNAMED", "--add-opens=java.base/java.lang=ALL-UNNAMED",
		"--add-opens=java.base/java.lang.reflect=ALL-UNNAMED", "--add-opens=java.base/java.io=ALL-UNNAMED",
		"--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
		"--add-opens=java.base/java.net=ALL-UNNAMED", "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
		"--add-opens=java.base/java.time=ALL-UNNAMED", "--add-opens=java.base/java.math=ALL-UNNAMED",
		"--add-opens=java.base/java.text=ALL-UNNAMED", "--add-opens=java.sql/java.sql=ALL-UNNAMED",
		"-jar", jar, "session")
	fs := &flinkSession{t: t, cmd: cmd, cancel: cancel, stderr: &bytes.Buffer{}, start: time.Now()}
	cmd.Stderr = fs.stderr
	var err error
	if fs.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	fs.out = bufio.NewScanner(stdout)
	fs.out.Buffer(make([]byte, 1<<20), 1<<26)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fs.close)
	return fs
}

// run sends one command and returns its JSON lines.
func (fs *flinkSession) run(args ...string) []javaRead {
	t := fs.t
	t.Helper()
	start := time.Now()
	if _, err := io.WriteString(fs.stdin, strings.Join(args, " ")+"\n"); err != nil {
		t.Fatalf("flink %s: %v\n%s", args[0], err, fs.tail())
	}
	var out []javaRead
	for fs.out.Scan() {
		if len(fs.out.Bytes()) == 0 || fs.out.Bytes()[0] != '{' {
			continue // Flink's own output
		}
		var r javaRead
		if err := json.Unmarshal(fs.out.Bytes(), &r); err != nil {
			t.Fatalf("flink printed %q: %v", fs.out.Text(), err)
		}
		if r.Op == "done" {
			t.Logf("flink %s: %v", args[0], time.Since(start).Round(time.Millisecond))
			return out
		}
		out = append(out, r)
	}
	t.Fatalf("flink %v ended: %v\n%s", args, fs.out.Err(), fs.tail())
	return nil
}

func (fs *flinkSession) tail() string {
	s := fs.stderr.String()
	if len(s) > 6000 {
		s = s[len(s)-6000:]
	}
	return s
}

func (fs *flinkSession) close() {
	if fs.cmd == nil {
		return
	}
	fs.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- fs.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		fs.cancel()
		<-done
	}
	fs.cancel()
	fs.t.Logf("flink JVM: %v in all", time.Since(fs.start).Round(time.Millisecond))
	fs.cmd = nil
}

// TestInteropFlinkSQL: Flink SQL 1.20 with paimon-flink-1.20 creates the
// design document's orders table (changelog-producer=lookup, deduplicate,
// dynamic buckets, in a Paimon catalog on lakesql's warehouse) and
// orders_rw (changelog-producer=input, 2 buckets), INSERTs from VALUES and
// SELECTs in batch; lakesql reads both the same; lakesql UPDATEs, DELETEs
// and INSERTs both; Flink reads them back in batch the same as lakesql, and
// its streaming reads with scan.mode=from-snapshot from lakesql's first
// snapshot see lakesql's changes as -U/+U, -D and +I rows: the changelog
// lakesql's lookup compaction produced (orders) and the input changelog
// lakesql wrote with its UPDATE's old row (orders_rw).
func TestInteropFlinkSQL(t *testing.T) {
	wh := t.TempDir()
	flink := startFlink(t)
	setup := flink.run("setup", "--warehouse", wh)
	ws := startWriteServer(t, wh)
	db := ws.open(t, "shop")
	ctx := context.Background()
	latest := func(table string) int64 {
		s := queryStrings(t, db, fmt.Sprintf("SELECT MAX(snapshot_id) FROM `%s$snapshots`", table))
		n, _ := strconv.ParseInt(s[0][0], 10, 64)
		return n
	}
	compare := func(when string, rs []javaRead) {
		t.Helper()
		n := 0
		for _, r := range rs {
			if r.Op != "read" {
				continue
			}
			n++
			r.Snapshot = latest(r.Table[len("shop."):])
			got, err := sqlRead(ctx, db, "shop", r.Table[len("shop."):], r.Columns, r)
			if err != nil {
				t.Fatalf("%s: lakesql reads %s: %v", when, r.Table, err)
			}
			if d := ioDiffRows(javaRows(r, false), got); d != "" {
				t.Errorf("%s: %s: Flink's batch SELECT and lakesql differ:\n%s", when, r.Table, d)
			}
			if len(got) == 0 {
				t.Errorf("%s: %s is empty", when, r.Table)
			}
		}
		if n != 2 {
			t.Fatalf("%s: Flink printed %d table reads, want 2", when, n)
		}
	}
	compare("after Flink's INSERTs", setup)

	from := map[string]int64{}
	for _, table := range []string{"orders", "orders_rw"} {
		from[table] = latest(table) + 1
		for _, q := range []string{
			"UPDATE " + table + " SET status = 'delivered' WHERE order_id = 3",
			"DELETE FROM " + table + " WHERE order_id = 5",
			"INSERT INTO " + table + " VALUES (6, 14, 'new', '2026-01-04 00:00:00')",
		} {
			if _, err := db.Exec(q); err != nil {
				t.Fatalf("lakesql: %s: %v", q, err)
			}
		}
	}
	check := flink.run("check", "--warehouse", wh,
		"--stream", fmt.Sprintf("orders:%d:4", from["orders"]), "--stream", fmt.Sprintf("orders_rw:%d:4", from["orders_rw"]))
	compare("after lakesql's writes", check)
	want := []string{
		"+I|6|14|new|2026-01-04 00:00:00",
		"+U|3|10|delivered|2026-01-02 08:00:00.5",
		"-D|5|13|cancelled|NULL",
		"-U|3|10|shipped|2026-01-02 08:00:00.5",
	}
	slices.Sort(want)
	streams := 0
	for _, r := range check {
		if r.Op != "stream" {
			continue
		}
		streams++
		if d := ioDiffRows(want, javaRows(r, true)); d != "" {
			t.Errorf("Flink's streaming read of %s from snapshot %d (scan.mode=from-snapshot) of lakesql's changes:\n%s", r.Table, from[r.Table[len("shop."):]], d)
		}
	}
	if streams != 2 {
		t.Errorf("Flink printed %d streaming reads, want 2", streams)
	}
}
