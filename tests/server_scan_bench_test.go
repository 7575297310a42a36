package tests

import (
	"context"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkServerScanKinds measures full scans through the MySQL protocol
// (one in-process server, go-sql-driver, every column scanned as raw bytes)
// over three tables of LAKESQL_HOUSE_ROWS (default 1M) generated rows:
//
//   - ap: an append table loaded with LOAD DATA;
//   - pkc: a 4-bucket primary-key table written in 5 INSERT … SELECTs and
//     fully compacted (CALL sys.compact: one sorted run per bucket);
//   - pkm: the same table, write-only, not compacted (5 overlapping sorted
//     runs per bucket, merged on read).
//
// Each is read with SELECT * and with SELECT id, name; rows/s at the client,
// and the CPU time of the process (server and client) per row, which a
// loaded machine disturbs less than the wall clock. With
// LAKESQL_SCAN_PROFILE=dir, each sub-benchmark's scans (not the setup) are
// CPU-profiled into dir/<table>-<query>.pprof. No timing is asserted; the
// row counts are.
//
//	go test ./tests/ -run '^$' -bench ServerScanKinds -benchtime 3x
func BenchmarkServerScanKinds(b *testing.B) {
	n := 1_000_000
	if s := os.Getenv("LAKESQL_HOUSE_ROWS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	wh := b.TempDir()
	files := b.TempDir()
	addr := startFilesServer(b, wh, files)
	mustExec(b, openWarehouseDB(b, addr, "", ""), "CREATE DATABASE hs")
	db := openWarehouseDB(b, addr, "hs", "")
	p := writeLoadFile(b, files, n, 0, false)
	mustExec(b, db,
		"CREATE TABLE ap ("+loadColumnsDDL+")",
		loadStmt(false, p, "ap", false),
		"CREATE TABLE pkc ("+loadColumnsDDL+", PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '4', 'write-only' = 'true')",
		"CREATE TABLE pkm ("+loadColumnsDDL+", PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '4', 'write-only' = 'true')")
	for c := range 5 {
		for _, t := range []string{"pkc", "pkm"} {
			mustExec(b, db, "INSERT INTO "+t+" SELECT * FROM ap WHERE id % 5 = "+strconv.Itoa(c))
		}
	}
	mustExec(b, db, "CALL sys.compact(table => 'hs.pkc')")
	ctx := context.Background()
	for _, table := range []string{"ap", "pkc", "pkm"} {
		for _, q := range []struct{ name, cols string }{{"all", "*"}, {"id-name", "id, name"}} {
			b.Run(table+"/"+q.name, func(b *testing.B) {
				stop := startScanProfile(b, table+"-"+q.name)
				cpu0 := processCPU(b)
				var rows int64
				for b.Loop() {
					got := scanCount(b, ctx, db, "SELECT "+q.cols+" FROM "+table)
					if got != int64(n) {
						b.Fatalf("SELECT %s FROM %s: %d rows, want %d", q.cols, table, got, n)
					}
					rows += got
				}
				cpu := processCPU(b) - cpu0
				stop()
				b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(rows), "cpu-ns/row")
			})
		}
	}
}

// processCPU is the CPU time (user and system) the process has used.
func processCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// startScanProfile starts a CPU profile into $LAKESQL_SCAN_PROFILE/name.pprof
// when the variable names a folder; the returned function stops it.
func startScanProfile(tb testing.TB, name string) func() {
	dir := os.Getenv("LAKESQL_SCAN_PROFILE")
	if dir == "" {
		return func() {}
	}
	f, err := os.Create(filepath.Join(dir, strings.ReplaceAll(name, "/", "-")+".pprof"))
	if err != nil {
		tb.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		tb.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
