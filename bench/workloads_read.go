package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// target is one engine's table for a read workload.
type target struct {
	engine string
	db     *sql.DB
	table  string
}

// querySpec is a read workload: its SQL over table t (orders) and users u.
type querySpec struct {
	name string
	sql  func(e *env, t string) string
	// lakeOnly: no peer runs it (time travel); check compares lakesql's
	// result with the model instead.
	lakeOnly bool
}

func querySpecs() []querySpec {
	return []querySpec{
		{name: "agg", sql: func(e *env, t string) string { return "SELECT COUNT(*), SUM(amount) FROM " + t }},
		{name: "filter", sql: func(e *env, t string) string {
			return fmt.Sprintf("SELECT order_id, status, amount FROM %s WHERE user_id = %d ORDER BY order_id", t, 4242%e.d.users)
		}},
		{name: "groupby-low", sql: func(e *env, t string) string {
			return "SELECT status, COUNT(*), SUM(amount) FROM " + t + " GROUP BY status ORDER BY status"
		}},
		{name: "groupby-high", sql: func(e *env, t string) string {
			return "SELECT user_id, COUNT(*), SUM(amount) AS s FROM " + t + " GROUP BY user_id ORDER BY s DESC, user_id LIMIT 10"
		}},
		{name: "join", sql: func(e *env, t string) string {
			return "SELECT u.region, COUNT(*), SUM(o.amount) FROM " + t + " o JOIN users u ON o.user_id = u.user_id GROUP BY u.region ORDER BY u.region"
		}},
		{name: "join-lookup", sql: func(e *env, t string) string {
			lo := e.d.n / 3
			return fmt.Sprintf("SELECT COUNT(*), SUM(b.amount) FROM %s a JOIN %s b ON a.order_id = b.order_id AND a.dt = b.dt WHERE a.order_id BETWEEN %d AND %d", t, t, lo, lo+1500)
		}},
		{name: "join-self", sql: func(e *env, t string) string {
			return fmt.Sprintf("SELECT COUNT(*), SUM(b.amount) FROM %s a JOIN %s b ON a.order_id = b.order_id AND a.dt = b.dt WHERE a.order_id <= 10000 AND b.order_id <= 10000", t, t)
		}},
		{name: "in-list", sql: func(e *env, t string) string {
			r := e.d.rng(4, 0)
			ids := make([]int64, 10_000)
			for i := range ids {
				ids[i] = 1 + r.Int64N(int64(e.d.n))
			}
			return fmt.Sprintf("SELECT COUNT(*), SUM(amount) FROM %s WHERE order_id IN (%s)", t, idList(ids))
		}},
		{name: "timetravel", lakeOnly: true, sql: func(e *env, t string) string {
			return fmt.Sprintf("SELECT COUNT(*), SUM(amount) FROM %s AS OF %d", t, e.snapAt["orders_mor"])
		}},
	}
}

func queryNames() []string {
	var out []string
	for _, q := range querySpecs() {
		out = append(out, q.name)
	}
	return out
}

// phaseQueries runs each read workload on every engine: one run each to
// compare results (and warm caches), then the timed interleaved rounds.
func (e *env) phaseQueries(ctx context.Context) error {
	for _, qs := range querySpecs() {
		if !e.cfg.selected(qs.name) {
			continue
		}
		var targets []target
		if qs.lakeOnly {
			targets = []target{{engine: lakeMOR, db: e.lk, table: "orders_mor"}}
		} else {
			targets = append(targets, target{engine: lakeMOR, db: e.lk, table: "orders_mor"})
			if e.hasMOW {
				targets = append(targets, target{engine: lakeMOW, db: e.lk, table: "orders_mow"})
			}
			targets = append(targets, target{engine: lakeCompact, db: e.lk, table: "orders_cmp"},
				target{engine: duckDB, db: e.duck, table: "orders"},
				target{engine: mariaDBName, db: e.my, table: "orders"})
		}
		sqlOf := func(t target) string { return qs.sql(e, t.table) }
		if qs.name == "timetravel" {
			if err := e.checkTimeTravel(ctx, sqlOf(targets[0])); err != nil {
				return err
			}
		}
		if err := e.timeQuery(ctx, qs.name, sqlOf, targets); err != nil {
			return err
		}
	}
	return nil
}

// timeQuery compares the engines' results, then times rounds in which the
// engines take turns (the first engine rotates each round).
func (e *env) timeQuery(ctx context.Context, name string, sqlOf func(target) string, targets []target) error {
	var ref [][]string
	refEngine := ""
	limit := e.cfg.timeout
	timedOut := map[string]bool{}
	for _, t := range targets {
		_, rows, err := runQueryLimit(ctx, t.db, sqlOf(t), limit, t.engine != duckDB)
		if errors.Is(err, errTimeout) {
			timedOut[t.engine] = true
			e.rep.Note("%s on %s: over the %v limit, killed; its figures are the limit", name, t.engine, limit)
			continue
		}
		if err != nil {
			return fmt.Errorf("%s on %s: %w", name, t.engine, err)
		}
		if refEngine == "" {
			ref, refEngine = rows, t.engine
		} else if !sameRows(ref, rows) {
			e.rep.Mismatch("%s: %s returned %s, %s returned %s", name, refEngine, show(ref), t.engine, show(rows))
		}
	}
	fmt.Printf("%-22s", name)
	for r := range e.cfg.rounds {
		for k := range targets {
			t := targets[(k+r)%len(targets)]
			if timedOut[t.engine] {
				e.rep.Add(name, "s", false, t.engine, r, limit.Seconds())
				continue
			}
			profiled := e.cfg.profile != "" && r == 0 && strings.HasPrefix(t.engine, lakesql)
			if profiled {
				if err := e.lake.StartCPU(filepath.Join(e.cfg.profile, profileName(name, t.engine))); err != nil {
					return err
				}
			}
			d, _, err := runQueryLimit(ctx, t.db, sqlOf(t), limit, t.engine != duckDB)
			if profiled {
				e.lake.StopCPU()
			}
			if errors.Is(err, errTimeout) {
				timedOut[t.engine] = true
				e.rep.Note("%s on %s: over the %v limit in round %d, killed; its figures are the limit", name, t.engine, limit, r+1)
				err = nil
			}
			if err != nil {
				return fmt.Errorf("%s on %s: %w", name, t.engine, err)
			}
			e.rep.Add(name, "s", false, t.engine, r, d.Seconds())
		}
		fmt.Print(".")
	}
	fmt.Println()
	return nil
}

func profileName(workload, engine string) string {
	r := strings.NewReplacer(" ", "_", "/", "_", ",", "", "(", "", ")", "", "%", "pct", "*", "")
	return r.Replace(workload) + "." + engine + ".pprof"
}

// checkTimeTravel compares the time-travel read of the loaded snapshot with
// the generated rows.
func (e *env) checkTimeTravel(ctx context.Context, q string) error {
	_, rows, err := runQuery(ctx, e.lk, q)
	if err != nil {
		return err
	}
	var cents int64
	for id := int64(1); id <= int64(e.d.n); id++ {
		cents += e.d.initial(id).cents
	}
	want := [][]string{{fmt.Sprint(e.d.n), normText(amount(cents))}}
	if !sameRows(rows, want) {
		e.rep.Mismatch("timetravel: lakesql returned %s, the loaded rows are %s", show(rows), show(want))
	}
	return nil
}

// phaseLookups: point lookups by the full primary key through the protocol,
// 1 and 8 connections, client-side interpolated and server-side prepared:
// p50/p99 latency and queries/s, each run lasting --lookup-seconds.
func (e *env) phaseLookups(ctx context.Context) error {
	if !e.cfg.selected("lookup") {
		return nil
	}
	const q = "SELECT order_id, user_id, status, amount, updated_at, dt FROM %s WHERE order_id = ? AND dt = ?"
	// Same rows from every engine for a sample of keys.
	r := e.d.rng(5, 0)
	for range 50 {
		id := 1 + r.Int64N(int64(e.d.n))
		var ref [][]string
		for i, t := range []target{{lakeMOR, e.lk, "orders_mor"}, {lakeCompact, e.lk, "orders_cmp"}, {mariaDBName, e.my, "orders"}} {
			_, rows, err := runQuery(ctx, t.db, fmt.Sprintf(strings.ReplaceAll(q, "?", "%s"), t.table, fmt.Sprint(id), "'"+e.d.dt(id)+"'"))
			if err != nil {
				return fmt.Errorf("lookup on %s: %w", t.engine, err)
			}
			if i == 0 {
				ref = rows
			} else if !sameRows(ref, rows) {
				e.rep.Mismatch("lookup of order %d: lakesql-mor %s, %s %s", id, show(ref), t.engine, show(rows))
			}
		}
	}
	// Warm-up, untimed in the runs below: lakesql builds a sorted run's
	// lookup file on the first lookup in its bucket (internal/lookup), at
	// 10M rows seconds of CPU per bucket and tens of seconds for a table's
	// files; the runs measure a server that has served lookups before, as
	// MariaDB's are of a warm buffer pool. The warm-up's own time is
	// reported (once per table, lakesql only).
	for _, t := range []target{{lakeMOR, e.lk, "orders_mor"}, {lakeCompact, e.lk, "orders_cmp"}} {
		start := time.Now()
		if err := e.warmLookups(ctx, t.db, fmt.Sprintf(q, t.table)); err != nil {
			return fmt.Errorf("lookup warm-up on %s: %w", t.engine, err)
		}
		e.rep.Add("point lookup warm-up (first lookups build lookup files)", "s", false, t.engine, 0, time.Since(start).Seconds())
	}
	for _, prepared := range []bool{false, true} {
		for _, conns := range []int{1, 8} {
			mode := "interpolated"
			lk, my := e.lk, e.my
			if prepared {
				mode, lk, my = "prepared", e.lkPrep, e.myPrep
			}
			name := fmt.Sprintf("point lookup, %d conn, %s", conns, mode)
			targets := []target{{lakeMOR, lk, "orders_mor"}, {lakeCompact, lk, "orders_cmp"}, {mariaDBName, my, "orders"}}
			fmt.Printf("%-22s", name)
			for r := range e.cfg.rounds {
				for k := range targets {
					t := targets[(k+r)%len(targets)]
					profiled := e.cfg.profile != "" && r == 0 && strings.HasPrefix(t.engine, lakesql)
					if profiled {
						if err := e.lake.StartCPU(filepath.Join(e.cfg.profile, profileName(name, t.engine))); err != nil {
							return err
						}
					}
					lat, el, err := e.lookups(ctx, t.db, fmt.Sprintf(q, t.table), prepared, conns, uint64(r*100+k))
					if profiled {
						e.lake.StopCPU()
					}
					if err != nil {
						return fmt.Errorf("%s on %s: %w", name, t.engine, err)
					}
					slices.Sort(lat)
					e.rep.Add(name, "p50 ms", false, t.engine, r, pct(lat, 50))
					e.rep.Add(name, "p99 ms", false, t.engine, r, pct(lat, 99))
					e.rep.Add(name, "q/s", true, t.engine, r, float64(len(lat))/el.Seconds())
				}
				fmt.Print(".")
			}
			fmt.Println()
		}
	}
	return nil
}

// warmLookups looks up lookupWarmKeys random keys (every bucket of every
// partition, with near certainty) on 8 connections.
func (e *env) warmLookups(ctx context.Context, db *sql.DB, q string) error {
	r := e.d.rng(6, 0)
	keys := make(chan int64, lookupWarmKeys)
	for range lookupWarmKeys {
		keys <- 1 + r.Int64N(int64(e.d.n))
	}
	close(keys)
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			errs <- func() error {
				for id := range keys {
					rows, err := db.QueryContext(ctx, q, id, e.d.dt(id))
					if err != nil {
						return err
					}
					for rows.Next() {
					}
					if err := rows.Close(); err != nil {
						return err
					}
					if err := rows.Err(); err != nil {
						return err
					}
				}
				return nil
			}()
		}()
	}
	var first error
	for range 8 {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// lookupWarmKeys is the warm-up's number of lookups per table.
const lookupWarmKeys = 400

// lookups runs point lookups of random keys on conns connections for
// --lookup-seconds (at least one each) and returns the latencies (ms).
func (e *env) lookups(ctx context.Context, db *sql.DB, q string, prepared bool, conns int, seed uint64) ([]float64, time.Duration, error) {
	deadline := time.Now().Add(time.Duration(e.cfg.lookupSeconds * float64(time.Second)))
	var mu sync.Mutex
	var all []float64
	errs := make(chan error, conns)
	start := time.Now()
	var wg sync.WaitGroup
	for c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- func() error {
				conn, err := db.Conn(ctx)
				if err != nil {
					return err
				}
				defer conn.Close()
				var stmt *sql.Stmt
				if prepared {
					if stmt, err = conn.PrepareContext(ctx, q); err != nil {
						return err
					}
					defer stmt.Close()
				}
				r := rand.New(rand.NewPCG(e.cfg.seed+seed, uint64(c)))
				var lat []float64
				for len(lat) == 0 || time.Now().Before(deadline) && len(lat) < 200_000 {
					id := 1 + r.Int64N(int64(e.d.n))
					t0 := time.Now()
					var rows *sql.Rows
					if prepared {
						rows, err = stmt.QueryContext(ctx, id, e.d.dt(id))
					} else {
						rows, err = conn.QueryContext(ctx, q, id, e.d.dt(id))
					}
					if err != nil {
						return err
					}
					for rows.Next() {
					}
					if err := rows.Err(); err != nil {
						return err
					}
					rows.Close()
					lat = append(lat, float64(time.Since(t0).Nanoseconds())/1e6)
				}
				mu.Lock()
				all = append(all, lat...)
				mu.Unlock()
				return nil
			}()
		}()
	}
	wg.Wait()
	el := time.Since(start)
	close(errs)
	for err := range errs {
		if err != nil {
			return nil, 0, err
		}
	}
	return all, el, nil
}
