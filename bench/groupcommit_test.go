package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lakesql/lakesql/sqlengine"
)

// TestGroupCommitThroughput measures group commit (issue 12 item 2)
// through the MySQL protocol: autocommit blind upserts of one row
// (INSERT on a primary-key table, 4 fixed buckets) from 1 connection,
// then from BENCH_GC_CONNS (default 64) connections, each for
// BENCH_GC_SECONDS (default 5) seconds, automatic compaction running as
// in lakesql serve. It prints acknowledged statements per second, the
// snapshots committed, the ratio of the two rates (target ≥ 20×) and the
// errors, and fails on any error (a blind upsert never conflicts) and when
// the table does not hold every acknowledged row afterwards; the rate
// itself is reported, not asserted (the machine is shared).
//
//	cd bench && go test -run GroupCommitThroughput -v
func TestGroupCommitThroughput(t *testing.T) {
	conns, secs := 64, 5.0
	if s := os.Getenv("BENCH_GC_CONNS"); s != "" {
		conns, _ = strconv.Atoi(s)
	}
	if s := os.Getenv("BENCH_GC_SECONDS"); s != "" {
		secs, _ = strconv.ParseFloat(s, 64)
	}
	if testing.Short() {
		secs = 1
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
		rate               float64
		firstErr           error
	}
	run := func(n int) result {
		var (
			res  result
			mu   sync.Mutex
			wg   sync.WaitGroup
			stop = time.Now().Add(dur)
		)
		before := latest()
		start := time.Now()
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var acked, errs int64
				var first error
				for time.Now().Before(stop) {
					k := next.Add(1)
					if _, err := my.Exec("INSERT INTO g.t VALUES (?, ?)", k, k*3); err != nil {
						errs++
						if first == nil {
							first = err
						}
						continue
					}
					acked++
				}
				mu.Lock()
				res.acked += acked
				res.errs += errs
				if res.firstErr == nil {
					res.firstErr = first
				}
				mu.Unlock()
			}()
		}
		wg.Wait()
		res.rate = float64(res.acked) / time.Since(start).Seconds()
		res.snaps = latest() - before
		return res
	}
	one := run(1)
	many := run(conns)
	fmt.Printf("blind one-row upserts, autocommit, %v per run:\n", dur)
	for _, r := range []struct {
		n   int
		res result
	}{{1, one}, {conns, many}} {
		fmt.Printf("  %2d connection(s): %7.1f statements/s, %6d acknowledged, %5d snapshots (%.1f statements each, compactions included), %d errors\n",
			r.n, r.res.rate, r.res.acked, r.res.snaps, float64(r.res.acked)/float64(max(r.res.snaps, 1)), r.res.errs)
	}
	fmt.Printf("  ratio %d:1 connections = %.1fx (target >= 20x)\n", conns, many.rate/one.rate)
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

func firstNonNil(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
