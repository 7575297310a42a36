package tests

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/testutil"
)

const flinkJar = "interop/flink/target/flink-harness.jar"

// runFlink runs the Flink SQL program (tests/interop/flink) once.
func runFlink(t *testing.T, args ...string) []javaRead {
	t.Helper()
	jar := testutil.Built(t, flinkJar, "`mvn -q -B -DskipTests -f tests/interop/flink/flink-pom.xml package`")
	java := testutil.Command(t, "java")
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	// Flink 1.20 on JDK 17 needs these modules opened (as its own scripts do).
	cmd := exec.CommandContext(ctx, java, append([]string{"-XX:+UseSerialGC",
		"--add-opens=java.base/java.util=ALL-UNNAMED", "--add-opens=java.base/java.lang=ALL-UNNAMED",
		"--add-opens=java.base/java.lang.reflect=ALL-UNNAMED", "--add-opens=java.base/java.io=ALL-UNNAMED",
		"--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
		"--add-opens=java.base/java.net=ALL-UNNAMED", "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
		"--add-opens=java.base/java.time=ALL-UNNAMED", "--add-opens=java.base/java.math=ALL-UNNAMED",
		"--add-opens=java.base/java.text=ALL-UNNAMED", "--add-opens=java.sql/java.sql=ALL-UNNAMED",
		"-jar", jar}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	t.Logf("flink %s: %v", args[0], time.Since(start).Round(time.Millisecond))
	if err != nil {
		tail := stderr.String()
		if len(tail) > 6000 {
			tail = tail[len(tail)-6000:]
		}
		t.Fatalf("flink %v: %v\n%s", args, err, tail)
	}
	var out []javaRead
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		if len(sc.Bytes()) == 0 || sc.Bytes()[0] != '{' {
			continue // Flink's own output
		}
		var r javaRead
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("flink printed %q: %v", sc.Text(), err)
		}
		out = append(out, r)
	}
	return out
}

// TestInteropFlinkSQL: Flink SQL 1.20 with paimon-flink-1.20 creates the
// design document's orders table (changelog-producer=lookup, deduplicate,
// in a Paimon catalog on lakesql's warehouse) and orders_rw
// (changelog-producer=input: lakesql refuses writes to lookup tables until
// it compacts), INSERTs from VALUES and SELECTs in batch; lakesql reads
// both the same; lakesql UPDATEs, DELETEs and INSERTs orders_rw; Flink reads
// it back in batch the same as lakesql, and its streaming read with
// scan.mode=from-snapshot from lakesql's first snapshot sees lakesql's
// changes as -U/+U, -D and +I rows.
//
// It is opt-in (LAKESQL_INTEROP_FLINK=1, with the jar built from
// tests/interop/flink/flink-pom.xml), and .ci/run does not run it yet. Its
// one run (207 s) passed every step except the last: lakesql's UPDATE of a
// changelog-producer=input table writes +U without the -U of the old row,
// so Flink's stream lacks "-U|3|10|shipped|…" (a known incompatibility,
// left for the write path).
func TestInteropFlinkSQL(t *testing.T) {
	if os.Getenv("LAKESQL_INTEROP_FLINK") != "1" {
		t.Skip("the Flink SQL check is opt-in: build tests/interop/flink/flink-pom.xml and set LAKESQL_INTEROP_FLINK=1")
	}
	wh := t.TempDir()
	setup := runFlink(t, "setup", "--warehouse", wh)
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

	if _, err := db.Exec("UPDATE orders SET status = 'x' WHERE order_id = 1"); err == nil {
		t.Errorf("lakesql wrote the changelog-producer=lookup table; this test expects it to refuse until it compacts")
	} else {
		t.Logf("lakesql refuses writing orders (changelog-producer=lookup): %v", err)
	}
	from := latest("orders_rw") + 1
	for _, q := range []string{
		"UPDATE orders_rw SET status = 'delivered' WHERE order_id = 3",
		"DELETE FROM orders_rw WHERE order_id = 5",
		"INSERT INTO orders_rw VALUES (6, 14, 'new', '2026-01-04 00:00:00')",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("lakesql: %s: %v", q, err)
		}
	}
	check := runFlink(t, "check", "--warehouse", wh, "--from-snapshot", strconv.FormatInt(from, 10), "--changes", "4")
	compare("after lakesql's writes", check)
	var stream []string
	for _, r := range check {
		if r.Op == "stream" {
			stream = javaRows(r, true)
		}
	}
	want := []string{
		"+I|6|14|new|2026-01-04 00:00:00",
		"+U|3|10|delivered|2026-01-02 08:00:00.5",
		"-D|5|13|cancelled|NULL",
		"-U|3|10|shipped|2026-01-02 08:00:00.5",
	}
	slices.Sort(want)
	if d := ioDiffRows(want, stream); d != "" {
		t.Errorf("Flink's streaming read from snapshot %d (scan.mode=from-snapshot) of lakesql's changes:\n%s", from, d)
	}
}
