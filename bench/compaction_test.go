package main

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/snapshot/manifest"
	"github.com/lakesql/lakesql/sqlengine"
)

// TestCompactionBounded is issue 11's bounded-read-cost benchmark: BENCH_INSERTS
// (default 1,000) single-row autocommit INSERTs into a 4-bucket primary-key
// table through the MySQL protocol, with automatic compaction on (the
// server's default: one background worker) and, for contrast, off
// ('write-only'). It prints the most sorted runs any bucket had after a
// statement, the full-scan and point-lookup times right after the inserts
// and right after a full compaction (CALL sys.compact), and the write
// amplification (bytes of every data file written, user writes plus
// compactions, over the bytes the user writes produced). It checks the
// rows and that no bucket ever exceeds num-sorted-run.stop-trigger with
// compaction on; times are only printed.
//
//	cd bench && go test -run CompactionBounded -v
func TestCompactionBounded(t *testing.T) {
	n := 1000
	if s := os.Getenv("BENCH_INSERTS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	if testing.Short() {
		n = 200
	}
	for _, mode := range []struct {
		name, with string
		auto       bool
	}{
		{"auto compaction", "'bucket' = '4'", true},
		{"write-only (no compaction)", "'bucket' = '4', 'write-only' = 'true'", false},
	} {
		t.Run(mode.name, func(t *testing.T) {
			runCompactionBench(t, n, mode.with, mode.auto)
		})
	}
}

func runCompactionBench(t *testing.T, n int, with string, auto bool) {
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
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := my.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec("CREATE DATABASE b")
	exec("USE b")
	exec("CREATE TABLE t (k BIGINT, v STRING, n BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH (" + with + ")")
	st, err := storage.Open(ctx, filepath.Join(wh, "b.db", "t"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tbl := snapshot.OpenTable(st, "")
	var all []lsmwrite.BucketRef // nil: every bucket

	rnd := rand.New(rand.NewPCG(1, 2))
	keys := n / 2 // upserts: half the statements overwrite a key
	want := map[int64]int64{}
	maxRuns := 0
	start := time.Now()
	var sampled time.Duration
	for i := range n {
		k := rnd.Int64N(int64(keys))
		exec("INSERT INTO t VALUES (?, ?, ?)", k, fmt.Sprintf("value-%d", i), int64(i))
		want[k] = int64(i)
		s0 := time.Now()
		runs, err := lsmwrite.SortedRunsOf(ctx, tbl, all)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range runs {
			maxRuns = max(maxRuns, r)
		}
		sampled += time.Since(s0)
	}
	insert := time.Since(start) - sampled
	runsNow, err := lsmwrite.SortedRunsOf(ctx, tbl, all)
	if err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		var cnt, sum int64
		if err := my.QueryRow("SELECT COUNT(*), SUM(n) FROM t").Scan(&cnt, &sum); err != nil {
			t.Fatal(err)
		}
		var wsum int64
		for _, v := range want {
			wsum += v
		}
		if cnt != int64(len(want)) || sum != wsum {
			t.Fatalf("%s: %d rows, sum %d; want %d, %d", when, cnt, sum, len(want), wsum)
		}
	}
	check("after the inserts")
	// The states read: right after the last INSERT (a background compaction
	// may be running), once the background compactions are idle, and right
	// after a full compaction. The first two are copies of the table's
	// folder taken at that moment (a Paimon table is self-contained; the
	// server finds the copy as another table), so that the three are read
	// as current tables, interleaved round by round: the shared machine's
	// load falls on all of them alike.
	copyTable := func(name string) {
		t.Helper()
		src := filepath.Join(wh, "b.db", "t")
		if err := os.CopyFS(filepath.Join(wh, "b.db", name), os.DirFS(src)); err != nil {
			t.Fatalf("copy the table to %s: %v", name, err)
		}
	}
	copyTable("t_inserts")
	states := []benchState{{name: "after the inserts", table: "t_inserts"}}
	if auto {
		if err := srv.WaitCompactions(ctx); err != nil {
			t.Fatal(err)
		}
		copyTable("t_idle")
		states = append(states, benchState{name: "compaction idle", table: "t_idle"})
	}
	cstart := time.Now()
	exec("CALL sys.compact(table => 't')")
	compactTime := time.Since(cstart)
	check("after the full compaction")
	states = append(states, benchState{name: "after a full compaction", table: "t"})
	for i := range states {
		states[i].runs = runsOf(t, my, states[i].table)
	}
	readTimes(t, my, keys, states)
	user, compacted, snaps := writtenBytes(ctx, t, tbl)

	stop := 8 // num-sorted-run.stop-trigger (default: compaction trigger 5 + 3)
	fmt.Printf("\n%s: %d single-row INSERTs into 4 buckets in %v (%.0f statements/s)\n", t.Name(), n, insert.Round(time.Millisecond), float64(n)/insert.Seconds())
	fmt.Printf("  sorted runs per bucket: max %d after any statement (stop-trigger %d), %v after the last\n", maxRuns, stop, runsOrder(runsNow))
	fmt.Printf("  snapshots: %v\n", snaps)
	full := states[len(states)-1]
	for _, s := range states {
		fmt.Printf("  %-24s runs per bucket %v: full scan (%d rows) %v (%.2fx), point lookup %v (%.2fx)\n",
			s.name+":", s.runs, len(want), s.scan.Round(time.Microsecond), s.scan.Seconds()/full.scan.Seconds(),
			s.lookup.Round(time.Microsecond), s.lookup.Seconds()/full.lookup.Seconds())
	}
	fmt.Printf("  full compaction (CALL sys.compact): %v\n", compactTime.Round(time.Millisecond))
	fmt.Printf("  bytes written: %d by the INSERTs, %d by compactions: write amplification %.2f\n",
		user, compacted, float64(user+compacted)/float64(user))
	if auto && maxRuns > stop {
		t.Errorf("a bucket had %d sorted runs after a statement; the stop trigger is %d", maxRuns, stop)
	}
}

// benchState is one snapshot the benchmark reads and its read times.
type benchState struct {
	name, table  string
	runs         []int // sorted runs per bucket
	scan, lookup time.Duration
}

// runsOf counts the sorted runs of each bucket of a table: one per
// level-0 file, one per other level.
func runsOf(t *testing.T, my *sql.DB, table string) []int {
	t.Helper()
	rows, err := my.Query("SELECT bucket, level, COUNT(*) FROM `" + table + "$files` GROUP BY bucket, level")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := make([]int, 4)
	for rows.Next() {
		var b, l, n int
		if err := rows.Scan(&b, &l, &n); err != nil {
			t.Fatal(err)
		}
		if l == 0 {
			out[b] += n
		} else {
			out[b]++
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func runsOrder(m map[lsmwrite.BucketRef]int) []int {
	out := make([]int, 4)
	for b, r := range m {
		out[b.Bucket] = r
	}
	return out
}

// readTimes measures, for each state, the median time of a full scan
// (every row fetched) and of a point lookup by primary key of the state's
// table; rounds go over the states in turn.
func readTimes(t *testing.T, my *sql.DB, keys int, states []benchState) {
	t.Helper()
	scans := make([][]time.Duration, len(states))
	looks := make([][]time.Duration, len(states))
	rnd := rand.New(rand.NewPCG(3, 4))
	for range 15 {
		for i, s := range states {
			start := time.Now()
			rows, err := my.Query("SELECT k, v, n FROM " + s.table)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			rows.Close()
			scans[i] = append(scans[i], time.Since(start))
			for range 20 {
				k := rnd.Int64N(int64(keys))
				start := time.Now()
				rows, err := my.Query("SELECT v, n FROM "+s.table+" WHERE k = ?", k)
				if err != nil {
					t.Fatal(err)
				}
				for rows.Next() {
				}
				rows.Close()
				looks[i] = append(looks[i], time.Since(start))
			}
		}
	}
	for i := range states {
		states[i].scan, states[i].lookup = median(scans[i]), median(looks[i])
	}
}

func median(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[len(d)/2]
}

// writtenBytes sums the bytes of the data files each snapshot added: new
// files of APPEND snapshots (the user's writes) and of COMPACT snapshots
// (an upgraded file, re-added under its own name, is not new).
func writtenBytes(ctx context.Context, t *testing.T, tbl *snapshot.Table) (user, compacted int64, kinds map[string]int) {
	t.Helper()
	all, err := tbl.Snapshots().All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	kinds = map[string]int{}
	seen := map[string]bool{}
	for _, s := range all {
		kinds[s.CommitKind.String()]++
		metas, err := snapshot.CachedManifestList(ctx, tbl.Storage(), s.DeltaManifestList)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range metas {
			es, err := snapshot.CachedManifest(ctx, tbl.Storage(), m.FileName)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range es {
				if e.Kind != manifest.FileKindAdd || seen[e.File.FileName] {
					continue
				}
				seen[e.File.FileName] = true
				if s.CommitKind == snapshot.CommitKindCompact {
					compacted += e.File.FileSize
				} else {
					user += e.File.FileSize
				}
			}
		}
	}
	return user, compacted, kinds
}
