package main

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/sqlengine"
)

// TestMergeOnWriteCost compares the table modes on one workload through the
// MySQL protocol: BENCH_MOW_STMTS (default 40) INSERTs of 1,000 rows each
// into a 4-bucket primary-key table, keys drawn from a space of 40,000 (so
// later statements mostly update), then a full scan (count and sum) and a
// point lookup, each run 5 times. Modes: merge-on-read (the default),
// merge-on-write with 32-bit and 64-bit deletion vectors, and first-row.
// Automatic compaction runs as in lakesql serve (one background worker);
// the reads start once it is idle. It prints write throughput (rows/s),
// the median scan and lookup times and the ratios to merge-on-read; there
// are no timing assertions.
//
//	cd bench && go test -run MergeOnWriteCost -v
func TestMergeOnWriteCost(t *testing.T) {
	stmts := 40
	if s := os.Getenv("BENCH_MOW_STMTS"); s != "" {
		stmts, _ = strconv.Atoi(s)
	}
	if testing.Short() {
		stmts = 5
	}
	const rowsPerStmt, keySpace, runs = 1000, 40_000, 5
	ctx := context.Background()
	wh := t.TempDir()
	srv, err := sqlengine.New(ctx, sqlengine.Config{Warehouse: wh, Host: "127.0.0.1", Port: 0})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Start() }()
	defer func() { srv.Close(); <-done }()
	my, err := sql.Open("mysql", fmt.Sprintf("root@tcp(%s)/?interpolateParams=true", srv.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer my.Close()
	my.SetMaxOpenConns(1)
	for deadline := time.Now().Add(10 * time.Second); my.Ping() != nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("server not ready")
		}
	}
	if _, err := my.Exec("CREATE DATABASE m"); err != nil {
		t.Fatal(err)
	}
	modes := []struct{ name, with string }{
		{"MOR", "'bucket' = '4'"},
		{"MOW 32-bit", "'bucket' = '4', 'deletion-vectors.enabled' = 'true'"},
		{"MOW 64-bit", "'bucket' = '4', 'deletion-vectors.enabled' = 'true', 'deletion-vectors.bitmap64' = 'true'"},
		{"first-row", "'bucket' = '4', 'merge-engine' = 'first-row'"},
	}
	type result struct {
		write, scan, lookup time.Duration
		rows                int64
		files               string
	}
	results := make([]result, len(modes))
	// Modes take turns statement by statement and read by read, so that
	// the load of a shared machine falls on all of them alike.
	for i, m := range modes {
		if _, err := my.Exec(fmt.Sprintf("CREATE TABLE m.t%d (id BIGINT, grp INT, name STRING, price DOUBLE, PRIMARY KEY (id) NOT ENFORCED) WITH (%s)", i, m.with)); err != nil {
			t.Fatal(err)
		}
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for s := 0; s < stmts; s++ {
		b.Reset()
		for r := 0; r < rowsPerStmt; r++ {
			if r > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "(%d, %d, 'n%d', %d.5)", rnd.IntN(keySpace), rnd.IntN(100), rnd.IntN(1000), rnd.IntN(10000))
		}
		for i, m := range modes {
			start := time.Now()
			if _, err := my.Exec(fmt.Sprintf("INSERT INTO m.t%d VALUES %s", i, b.String())); err != nil {
				t.Fatalf("%s: %v", m.name, err)
			}
			results[i].write += time.Since(start)
		}
	}
	// Reads run with no background compaction going on.
	if err := srv.WaitCompactions(ctx); err != nil {
		t.Fatal(err)
	}
	scans := make([][]time.Duration, len(modes))
	lookups := make([][]time.Duration, len(modes))
	for r := 0; r < runs; r++ {
		for i := range modes {
			start := time.Now()
			var sum float64
			if err := my.QueryRow(fmt.Sprintf("SELECT count(*), sum(price) FROM m.t%d", i)).Scan(&results[i].rows, &sum); err != nil {
				t.Fatal(err)
			}
			scans[i] = append(scans[i], time.Since(start))
			start = time.Now()
			var n int64
			if err := my.QueryRow(fmt.Sprintf("SELECT count(*) FROM m.t%d WHERE id = %d", i, 12345+r)).Scan(&n); err != nil {
				t.Fatal(err)
			}
			lookups[i] = append(lookups[i], time.Since(start))
		}
	}
	for i := range modes {
		results[i].scan, results[i].lookup = median(scans[i]), median(lookups[i])
		var files, l0 int
		if err := my.QueryRow(fmt.Sprintf("SELECT count(*), sum(CASE WHEN level = 0 THEN 1 ELSE 0 END) FROM m.`t%d$files`", i)).Scan(&files, &l0); err != nil {
			t.Fatal(err)
		}
		results[i].files = fmt.Sprintf("%d files (%d on level 0)", files, l0)
	}
	fmt.Printf("%d statements × %d rows into a 4-bucket table (keys from %d), %d runs of each read:\n", stmts, rowsPerStmt, keySpace, runs)
	base := results[0]
	for i, m := range modes {
		r := results[i]
		rate := float64(stmts*rowsPerStmt) / r.write.Seconds()
		fmt.Printf("  %-11s write %8.0f rows/s (%5.2fx MOR)  scan %8v (%5.2fx)  point lookup %8v (%5.2fx)  %d rows, %s\n",
			m.name, rate, base.write.Seconds()/r.write.Seconds(), r.scan.Round(10*time.Microsecond),
			float64(r.scan)/float64(base.scan), r.lookup.Round(10*time.Microsecond), float64(r.lookup)/float64(base.lookup), r.rows, r.files)
	}
}
