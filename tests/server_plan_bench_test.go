package tests

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/provider"
)

// BenchmarkServerPlanManySnapshots measures planning on a table with many
// snapshots and files (issue 15 item 6): a 10-bucket primary-key table,
// write-only, written by LAKESQL_PLAN_COMMITS (default 1,000) INSERTs of one
// row per bucket (so ~10 files per snapshot, 10k files). Each iteration
// commits one more row, then times, in that order, EXPLAIN of `count(*)`,
// EXPLAIN of a point query, the point query itself, `count(*)` itself, and
// a second EXPLAIN of `count(*)` (an unchanged snapshot). lakesql plans a
// table's scan when GMS asks for its partitions, so EXPLAIN is GMS's
// analysis and the resolution of the table; the queries add the scan plan
// and its execution. The figures are medians of the wall clock and of the
// process's CPU time (server and client: a loaded machine disturbs it
// less). LAKESQL_PLAN_STATS=off plans without the PRIMARY histograms. The figures are the
// medians in ms; no timing is asserted, the point query's answer is.
//
//	go test ./tests/ -run '^$' -bench ServerPlanManySnapshots -benchtime 20x
func BenchmarkServerPlanManySnapshots(b *testing.B) {
	commits := 1000
	if s := os.Getenv("LAKESQL_PLAN_COMMITS"); s != "" {
		commits, _ = strconv.Atoi(s)
	}
	if os.Getenv("LAKESQL_PLAN_STATS") == "off" {
		provider.SetStatistics(false)
		defer provider.SetStatistics(true)
	}
	wh := b.TempDir()
	addr := startWarehouseServer(b, wh)
	mustExec(b, openWarehouseDB(b, addr, "", ""), "CREATE DATABASE ps")
	db := openWarehouseDB(b, addr, "ps", "")
	mustExec(b, db, "CREATE TABLE t (id BIGINT, v BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '10', 'write-only' = 'true')")
	setup := time.Now()
	id := 0
	for range commits {
		var vals []string
		// 40 consecutive ids hash to all 10 buckets with near certainty.
		for range 40 {
			id++
			vals = append(vals, fmt.Sprintf("(%d, %d)", id, id))
		}
		mustExec(b, db, "INSERT INTO t VALUES "+strings.Join(vals, ", "))
	}
	var files int
	if err := db.QueryRow("SELECT COUNT(*) FROM `t$files`").Scan(&files); err != nil {
		b.Fatal(err)
	}
	b.Logf("setup: %d commits, %d files, %v", commits, files, time.Since(setup).Round(time.Millisecond))
	ctx := context.Background()
	var cpu = map[*[]float64][]float64{}
	timed := func(lat *[]float64, q string) {
		c0 := processCPU(b)
		t0 := time.Now()
		rows, err := db.QueryContext(ctx, q)
		if err != nil {
			b.Fatal(err)
		}
		for rows.Next() {
		}
		if err := rows.Close(); err != nil {
			b.Fatal(err)
		}
		*lat = append(*lat, float64(time.Since(t0).Microseconds())/1000)
		cpu[lat] = append(cpu[lat], float64((processCPU(b)-c0).Microseconds())/1000)
	}
	var explainCount, explainPoint, point, count, explainAgain, commit []float64
	stop := startScanProfile(b, "plan-many-snapshots") // LAKESQL_SCAN_PROFILE=dir: the loop only
	for b.Loop() {
		id++
		t0 := time.Now()
		mustExec(b, db, fmt.Sprintf("INSERT INTO t VALUES (%d, %d)", id, id))
		commit = append(commit, float64(time.Since(t0).Microseconds())/1000)
		timed(&explainCount, "EXPLAIN SELECT COUNT(*) FROM t")
		timed(&explainPoint, fmt.Sprintf("EXPLAIN SELECT v FROM t WHERE id = %d", id/2))
		timed(&point, fmt.Sprintf("SELECT v FROM t WHERE id = %d", id/2))
		timed(&count, "SELECT COUNT(*) FROM t")
		timed(&explainAgain, "EXPLAIN SELECT COUNT(*) FROM t")
		var v int
		if err := db.QueryRow(fmt.Sprintf("SELECT v FROM t WHERE id = %d", id/2)).Scan(&v); err != nil || v != id/2 {
			b.Fatalf("point query of %d: %d, %v", id/2, v, err)
		}
	}
	stop()
	b.ReportMetric(median(commit), "commit-ms")
	b.ReportMetric(median(cpu[&explainCount]), "explain-count-cpu-ms")
	b.ReportMetric(median(cpu[&explainPoint]), "explain-point-cpu-ms")
	b.ReportMetric(median(cpu[&point]), "point-cpu-ms")
	b.ReportMetric(median(cpu[&count]), "count-cpu-ms")
	b.ReportMetric(median(explainCount), "explain-count-ms")
	b.ReportMetric(median(explainPoint), "explain-point-ms")
	b.ReportMetric(median(point), "point-ms")
	b.ReportMetric(median(count), "count-ms")
	b.ReportMetric(median(explainAgain), "explain-count-again-ms")
}

// median of xs (sorted in place); 0 when empty.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	return xs[len(xs)/2]
}
