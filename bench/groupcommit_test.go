package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/lakesql/lakesql/sqlengine"
)

// TestGroupCommitThroughput measures group commit (issue 12 item 2)
// through the MySQL protocol: autocommit blind upserts of one row
// (INSERT on a primary-key table, 4 fixed buckets) from 1 connection and
// from BENCH_GC_CONNS (default 64) connections, automatic compaction
// running as in lakesql serve. The two alternate in BENCH_GC_ROUNDS
// (default 4) rounds of BENCH_GC_SECONDS (default 1.5) seconds each, so a
// change of the machine's load meets both alike. It prints acknowledged
// statements per second, the snapshots committed, the p50 and p99
// statement latency, the ratio of the two rates (target ≥ 20×) and the
// errors, and fails on any error (a blind upsert never conflicts) and when
// the table does not hold every acknowledged row afterwards; the rate
// itself is reported, not asserted (the machine is shared).
// BENCH_GC_PROFILE=DIR writes CPU, allocation, mutex and block profiles
// of the many-connection rounds there (the server runs in this process).
//
//	cd bench && go test -run GroupCommitThroughput -v
func TestGroupCommitThroughput(t *testing.T) {
	conns, secs, rounds := 64, 1.5, 4
	if s := os.Getenv("BENCH_GC_CONNS"); s != "" {
		conns, _ = strconv.Atoi(s)
	}
	if s := os.Getenv("BENCH_GC_ROUNDS"); s != "" {
		rounds, _ = strconv.Atoi(s)
	}
	if s := os.Getenv("BENCH_GC_SECONDS"); s != "" {
		secs, _ = strconv.ParseFloat(s, 64)
	}
	if testing.Short() {
		secs, rounds = 0.5, 2
	}
	dur := time.Duration(secs * float64(time.Second))
	ctx := context.Background()
	srv, err := sqlengine.New(ctx, sqlengine.Config{Warehouse: t.TempDir(), Host: "127.0.0.1", Port: 0})
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
	my.SetMaxOpenConns(conns)
	my.SetMaxIdleConns(conns)
	for deadline := time.Now().Add(10 * time.Second); my.Ping() != nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("server not ready")
		}
	}
	for _, q := range []string{"CREATE DATABASE g",
		"CREATE TABLE g.t (k BIGINT, v BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '4')"} {
		if _, err := my.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	var next atomic.Int64 // distinct keys: every acknowledged row must be there
	latest := func() int64 {
		var id int64
		if err := my.QueryRow("SELECT coalesce(max(snapshot_id), 0) FROM g.`t$snapshots`").Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	type result struct {
		acked, errs, snaps int64
		took, cpu          time.Duration // wall time, and the process's CPU time
		lat                []time.Duration
		firstErr           error
	}
	run := func(n int, res *result) {
		var (
			mu   sync.Mutex
			wg   sync.WaitGroup
			stop = time.Now().Add(dur)
		)
		before := latest()
		start, cpu0 := time.Now(), processCPU()
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var acked, errs int64
				var first error
				mine := make([]time.Duration, 0, 1024)
				for time.Now().Before(stop) {
					k := next.Add(1)
					t0 := time.Now()
					_, err := my.Exec("INSERT INTO g.t VALUES (?, ?)", k, k*3)
					mine = append(mine, time.Since(t0))
					if err != nil {
						errs++
						if first == nil {
							first = err
						}
						continue
					}
					acked++
				}
				mu.Lock()
				res.lat = append(res.lat, mine...)
				res.acked += acked
				res.errs += errs
				if res.firstErr == nil {
					res.firstErr = first
				}
				mu.Unlock()
			}()
		}
		wg.Wait()
		res.took += time.Since(start)
		res.cpu += processCPU() - cpu0
		res.snaps += latest() - before
	}
	var one, many result
	profile := profiler(t, os.Getenv("BENCH_GC_PROFILE"))
	for range rounds {
		run(1, &one)
		profile(true)
		run(conns, &many)
		profile(false)
	}
	profile(false)
	fmt.Printf("blind one-row upserts, autocommit, %d alternating rounds of %v:\n", rounds, dur)
	rate := func(r result) float64 { return float64(r.acked) / r.took.Seconds() }
	for _, r := range []struct {
		n   int
		res result
	}{{1, one}, {conns, many}} {
		slices.Sort(r.res.lat)
		var p50, p99 time.Duration
		if n := len(r.res.lat); n > 0 {
			p50, p99 = r.res.lat[n/2], r.res.lat[n*99/100]
		}
		fmt.Printf("  %2d connection(s): %7.1f statements/s, %6d acknowledged, %5d snapshots (%.1f statements each, compactions included), p50 %v, p99 %v, %v CPU per statement (process, %.0f%% of a core), %d errors\n",
			r.n, rate(r.res), r.res.acked, r.res.snaps, float64(r.res.acked)/float64(max(r.res.snaps, 1)),
			p50.Round(10*time.Microsecond), p99.Round(10*time.Microsecond),
			(r.res.cpu / time.Duration(max(r.res.acked, 1))).Round(time.Microsecond), 100*r.res.cpu.Seconds()/r.res.took.Seconds(), r.res.errs)
	}
	fmt.Printf("  ratio %d:1 connections = %.1fx (target >= 20x)\n", conns, rate(many)/rate(one))
	if one.errs+many.errs > 0 {
		t.Errorf("%d errors on blind upserts, first: %v", one.errs+many.errs, firstNonNil(one.firstErr, many.firstErr))
	}
	var rows, bad int64
	if err := my.QueryRow("SELECT count(*), sum(CASE WHEN v = k * 3 THEN 0 ELSE 1 END) FROM g.t").Scan(&rows, &bad); err != nil {
		t.Fatal(err)
	}
	if rows != one.acked+many.acked || bad != 0 {
		t.Errorf("table holds %d rows (%d wrong), want the %d acknowledged", rows, bad, one.acked+many.acked)
	}
}

// profiler returns a function that profiles while called with true (CPU
// profile, mutex and block sampling) and pauses when called with false;
// the last call with false writes the profiles (cpu, allocs, mutex, block
// .pprof in dir), when dir is set.
func profiler(t *testing.T, dir string) func(on bool) {
	if dir == "" {
		return func(bool) {}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var (
		cpu   bytes.Buffer
		parts int
		on    bool
	)
	return func(start bool) {
		switch {
		case start && !on:
			runtime.SetMutexProfileFraction(5)
			runtime.SetBlockProfileRate(int(100 * time.Microsecond))
			cpu.Reset()
			if err := pprof.StartCPUProfile(&cpu); err != nil {
				t.Fatal(err)
			}
			on = true
		case !start && on:
			pprof.StopCPUProfile()
			runtime.SetMutexProfileFraction(0)
			runtime.SetBlockProfileRate(0)
			parts++
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("cpu%d.pprof", parts)), cpu.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			on = false
		case !start && !on:
			for _, name := range []string{"allocs", "mutex", "block"} {
				f, err := os.Create(filepath.Join(dir, name+".pprof"))
				if err != nil {
					t.Fatal(err)
				}
				if err := pprof.Lookup(name).WriteTo(f, 0); err != nil {
					t.Error(err)
				}
				f.Close()
			}
		}
	}
}

// processCPU is the user and system CPU time of this process so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func firstNonNil(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
