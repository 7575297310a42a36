package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// The table states the read workloads use: lakesql's orders_mor (the load
// and 4 CDC batches, 5 sorted runs per bucket, never compacted),
// orders_cmp (the same, then fully compacted; DuckDB reads its files),
// orders_mow (the same rows in a deletion-vector table, when lakesql can
// write one), and MariaDB's orders (the same rows).

func (e *env) needMOR() bool {
	return e.cfg.anySelected(append(queryNames(), "lookup", "update")...)
}
func (e *env) needCompacted() bool {
	return e.cfg.anySelected(append(queryNames(), "lookup", "compact")...)
}
func (e *env) needMariaOrders() bool {
	return e.cfg.anySelected(append(queryNames(), "lookup", "update")...)
}

// phaseLoad: LOAD DATA LOCAL of every order into a 4-bucket primary-key
// table (lakesql) and an InnoDB table (MariaDB), rows/s, one fresh table per
// round; the tables of the first rounds become the later workloads' tables.
func (e *env) phaseLoad(ctx context.Context) error {
	var lakeTables, mariaTables []string
	lakeOpts := map[string]string{
		"orders_mor": ", 'write-only' = 'true'", // no automatic compaction: the runs stay
		"orders_ups": ", 'snapshot.num-retained.min' = '1000000', 'snapshot.num-retained.max' = '1000000', 'snapshot.time-retained' = '1000 d'",
	}
	if e.needMOR() {
		lakeTables = append(lakeTables, "orders_mor")
	}
	if e.needCompacted() {
		lakeTables = append(lakeTables, "orders_cmp")
	}
	if e.needMariaOrders() {
		mariaTables = append(mariaTables, "orders")
	}
	if e.cfg.selected("upsert") {
		lakeTables = append(lakeTables, "orders_ups")
		mariaTables = append(mariaTables, "orders_ups")
	}
	if len(lakeTables)+len(mariaTables) > 0 || e.cfg.anySelected("join", "join-self") {
		if err := e.loadUsers(ctx); err != nil {
			return err
		}
	}
	csv := e.path("orders.csv")
	n := float64(e.d.n)
	timed := 0
	if e.cfg.selected("load") {
		for r := range e.cfg.rounds {
			lt, mt := fmt.Sprintf("orders_load%d", r), fmt.Sprintf("orders_load%d", r)
			if r < len(lakeTables) {
				lt = lakeTables[r]
			}
			if r < len(mariaTables) {
				mt = mariaTables[r]
			}
			lake := func() error {
				opts := lakeOpts[lt]
				if e.cfg.writeBufferSize != "" {
					opts += fmt.Sprintf(", 'write-buffer-size' = '%s'", e.cfg.writeBufferSize)
				}
				if err := execAll(ctx, e.lk, fmt.Sprintf(lakeOrdersDDL, lt, opts)); err != nil {
					return err
				}
				resetPeak(e.lake.Pid())
				stop, err := e.profileWrite(r, "load")
				if err != nil {
					return err
				}
				start := time.Now()
				err = execAll(ctx, e.lk, loadStmt(csv, lt, false))
				stop()
				if err != nil {
					return err
				}
				e.rep.Add("load", "rows/s", true, lakesql, r, n/time.Since(start).Seconds())
				hwm, _ := procStatus(e.lake.Pid())
				e.rep.RSS[fmt.Sprintf("lakesql, LOAD DATA of %d rows (round %d)", e.d.n, r+1)] = float64(hwm) / (1 << 20)
				return nil
			}
			maria := func() error {
				if err := execAll(ctx, e.my, fmt.Sprintf(mariaOrdersDDL, mt)); err != nil {
					return err
				}
				start := time.Now()
				if err := execAll(ctx, e.my, loadStmt(csv, mt, false)); err != nil {
					return err
				}
				e.rep.Add("load", "rows/s", true, mariaDBName, r, n/time.Since(start).Seconds())
				return nil
			}
			if err := interleave(r, lake, maria); err != nil {
				return err
			}
			if r >= len(lakeTables) {
				if err := execAll(ctx, e.lk, "DROP TABLE "+lt); err != nil {
					return err
				}
			}
			if r >= len(mariaTables) {
				if err := execAll(ctx, e.my, "DROP TABLE "+mt); err != nil {
					return err
				}
			}
		}
		timed = e.cfg.rounds
	}
	for i := timed; i < len(lakeTables); i++ {
		t := lakeTables[i]
		if err := execAll(ctx, e.lk, fmt.Sprintf(lakeOrdersDDL, t, lakeOpts[t]), loadStmt(csv, t, false)); err != nil {
			return err
		}
	}
	for i := timed; i < len(mariaTables); i++ {
		t := mariaTables[i]
		if err := execAll(ctx, e.my, fmt.Sprintf(mariaOrdersDDL, t), loadStmt(csv, t, false)); err != nil {
			return err
		}
	}
	for _, t := range lakeTables {
		id, err := queryInt(ctx, e.lk, fmt.Sprintf("SELECT MAX(snapshot_id) FROM `%s$snapshots`", t))
		if err != nil {
			return err
		}
		e.snapAt[t] = id
	}
	if !e.cfg.anySelected(queryNames()...) {
		return nil
	}
	// The MOW state: the same rows in a deletion-vector table.
	err := execAll(ctx, e.lk, fmt.Sprintf(lakeOrdersDDL, "orders_mow", ", 'deletion-vectors.enabled' = 'true'"), loadStmt(csv, "orders_mow", false))
	if err != nil {
		e.rep.Skip("mow state", fmt.Sprintf("needs MOW (deletion-vector writes): %v", firstLine(err)))
		execAll(ctx, e.lk, "DROP TABLE IF EXISTS orders_mow")
		return nil
	}
	e.hasMOW = true
	return nil
}

func firstLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// interleave runs a then b in even rounds, b then a in odd ones.
func interleave(round int, a, b func() error) error {
	if round%2 == 1 {
		a, b = b, a
	}
	if err := a(); err != nil {
		return err
	}
	return b()
}

func (e *env) loadUsers(ctx context.Context) error {
	if err := execAll(ctx, e.lk, lakeUsersDDL, loadStmt(e.path("users.csv"), "users", false)); err != nil {
		return err
	}
	return execAll(ctx, e.my, mariaUsersDDL, loadStmt(e.path("users.csv"), "users", false))
}

// phaseInsert: multi-row INSERT statements of 1,000 rows, autocommit,
// rows/s, into a fresh table per round.
func (e *env) phaseInsert(ctx context.Context) error {
	if !e.cfg.selected("insert") {
		return nil
	}
	m := max(e.d.n/10, 2000)
	rows := make([]order, m)
	for i := range rows {
		rows[i] = e.d.initial(int64(i + 1))
	}
	stmts := e.d.insertStatements("INSERT", "ins", rows, 1000)
	for r := range e.cfg.rounds {
		run := func(db *sql.DB, engine, ddl string) error {
			if err := execAll(ctx, db, ddl); err != nil {
				return err
			}
			stop := func() {}
			if engine == lakesql {
				var err error
				if stop, err = e.profileWrite(r, "insert"); err != nil {
					return err
				}
			}
			start := time.Now()
			err := execAll(ctx, db, stmts...)
			stop()
			if err != nil {
				return err
			}
			e.rep.Add("insert 1000-row batches", "rows/s", true, engine, r, float64(m)/time.Since(start).Seconds())
			return execAll(ctx, db, "DROP TABLE ins")
		}
		err := interleave(r,
			func() error { return run(e.lk, lakesql, fmt.Sprintf(lakeOrdersDDL, "ins", "")) },
			func() error { return run(e.my, mariaDBName, fmt.Sprintf(mariaOrdersDDL, "ins")) })
		if err != nil {
			return err
		}
	}
	return nil
}

// phaseCommits: 1,000 single-row autocommit INSERTs (commit latency), then
// count(*) over the 1,000-commit table against the same rows in one commit
// (planning cost).
func (e *env) phaseCommits(ctx context.Context) error {
	if !e.cfg.selected("commit") {
		return nil
	}
	if err := execAll(ctx, e.lk, fmt.Sprintf(lakeOrdersDDL, "c1k", ""), fmt.Sprintf(lakeOrdersDDL, "c1", "")); err != nil {
		return err
	}
	if err := execAll(ctx, e.my, fmt.Sprintf(mariaOrdersDDL, "c1k")); err != nil {
		return err
	}
	const total = 1000
	per := (total + e.cfg.rounds - 1) / e.cfg.rounds
	next := int64(1)
	for r := range e.cfg.rounds {
		var rows []order
		for range per {
			if next > total {
				break
			}
			rows = append(rows, e.d.initial(next))
			next++
		}
		stmts := e.d.insertStatements("INSERT", "c1k", rows, 1)
		run := func(db *sql.DB, engine string) error {
			lat := make([]float64, 0, len(stmts))
			stop := func() {}
			if engine == lakesql {
				var err error
				if stop, err = e.profileWrite(r, "commit"); err != nil {
					return err
				}
			}
			defer stop()
			for _, q := range stmts {
				start := time.Now()
				if err := execAll(ctx, db, q); err != nil {
					return err
				}
				lat = append(lat, float64(time.Since(start).Microseconds())/1000)
			}
			slices.Sort(lat)
			e.rep.Add("single-row autocommit INSERT", "p50 ms", false, engine, r, pct(lat, 50))
			e.rep.Add("single-row autocommit INSERT", "p99 ms", false, engine, r, pct(lat, 99))
			return nil
		}
		if err := interleave(r, func() error { return run(e.lk, lakesql) }, func() error { return run(e.my, mariaDBName) }); err != nil {
			return err
		}
	}
	if err := execAll(ctx, e.lk, "INSERT INTO c1 SELECT * FROM c1k"); err != nil {
		return err
	}
	q := "SELECT COUNT(*), SUM(amount) FROM %s"
	targets := []target{
		{engine: "lakesql-1000-commits", db: e.lk, table: "c1k"},
		{engine: "lakesql-1-commit", db: e.lk, table: "c1"},
		{engine: mariaDBName, db: e.my, table: "c1k"},
	}
	return e.timeQuery(ctx, "count(*) after 1,000 commits", func(t target) string { return fmt.Sprintf(q, t.table) }, targets)
}

// profileWrite starts a CPU profile of lakesql's first-round run of a write
// workload (--profile); the returned function stops it.
func (e *env) profileWrite(round int, name string) (func(), error) {
	if e.cfg.profile == "" || round != 0 {
		return func() {}, nil
	}
	if err := e.lake.StartCPU(filepath.Join(e.cfg.profile, profileName(name, lakesql))); err != nil {
		return nil, err
	}
	return func() { e.lake.StopCPU() }, nil
}

func pct(sorted []float64, p int) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := (len(sorted)*p + 99) / 100
	return sorted[min(max(i-1, 0), len(sorted)-1)]
}

// phaseCDC applies the 4 CDC batches (5% upserts, 0.25% deletes each) to
// every orders table, one transaction (one snapshot) per batch and table.
func (e *env) phaseCDC(ctx context.Context) error {
	if !e.needMOR() && !e.needCompacted() && !e.needMariaOrders() {
		return nil
	}
	var lakeTables []string
	for _, t := range []string{"orders_mor", "orders_cmp", "orders_mow"} {
		if _, ok := e.snapAt[t]; ok || t == "orders_mow" && e.hasMOW {
			lakeTables = append(lakeTables, t)
		}
	}
	for b := range cdcBatches {
		for i, t := range lakeTables {
			start := time.Now()
			if err := e.applyCDC(ctx, e.lk, t, b); err != nil {
				return fmt.Errorf("lakesql %s: %w", t, err)
			}
			if i == 0 {
				e.rep.Add("CDC batch (5% upserts, 0.25% deletes)", "s", false, lakesql, b, time.Since(start).Seconds())
			}
		}
		if e.needMariaOrders() {
			start := time.Now()
			if err := e.applyCDC(ctx, e.my, "orders", b); err != nil {
				return fmt.Errorf("mariadb: %w", err)
			}
			e.rep.Add("CDC batch (5% upserts, 0.25% deletes)", "s", false, mariaDBName, b, time.Since(start).Seconds())
		}
	}
	return nil
}

func (e *env) applyCDC(ctx context.Context, db *sql.DB, table string, b int) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	del, err := os.ReadFile(e.path(fmt.Sprintf("cdc-%d.del", b)))
	if err != nil {
		return err
	}
	stmts := []string{"BEGIN", loadStmt(e.path(fmt.Sprintf("cdc-%d.csv", b)), table, true)}
	ids := strings.Split(string(del), ",")
	for i := 0; i < len(ids); i += 1000 {
		stmts = append(stmts, fmt.Sprintf("DELETE FROM %s WHERE order_id IN (%s)", table, strings.Join(ids[i:min(i+1000, len(ids))], ",")))
	}
	stmts = append(stmts, "COMMIT")
	if err := execAll(ctx, conn, stmts...); err != nil {
		conn.ExecContext(ctx, "ROLLBACK")
		return err
	}
	return nil
}

// phaseCompact: CALL sys.compact(... 'full') on orders_cmp (and users, for
// DuckDB), then DuckDB's views over the compacted files.
func (e *env) phaseCompact(ctx context.Context) error {
	if !e.needCompacted() {
		return nil
	}
	for _, t := range []string{"orders_cmp", "users"} {
		start := time.Now()
		_, err := e.lk.ExecContext(ctx, fmt.Sprintf("CALL sys.compact(`table` => 'bench.%s', compact_strategy => 'full')", t))
		if err == nil {
			if t == "orders_cmp" {
				e.rep.Add("CALL sys.compact full", "s", false, lakesql, 0, time.Since(start).Seconds())
			}
			continue
		}
		if t == "orders_cmp" {
			e.rep.Skip("CALL sys.compact full", fmt.Sprintf("needs CALL sys.compact (%s); compacted with lsmwrite.Compact from the bench process instead", firstLine(err)))
		}
		start = time.Now()
		out, err := e.compactLibrary(ctx, t)
		if err != nil {
			return fmt.Errorf("compact %s: %w", t, err)
		}
		if t == "orders_cmp" {
			e.rep.Add("full compaction (lsmwrite.Compact)", "s", false, lakesql, 0, time.Since(start).Seconds())
			e.rep.Note("full compaction of orders_cmp: %d files → %d, %d MB read, %d MB written", out.Stats.FilesBefore,
				out.Stats.FilesAfter, out.Stats.BytesRead>>20, out.Stats.BytesWritten>>20)
		}
	}
	levels, err := queryInt(ctx, e.lk, "SELECT COUNT(DISTINCT level) FROM `orders_cmp$files`")
	if err != nil {
		return err
	}
	if levels != 1 {
		e.rep.Mismatch("orders_cmp after a full compaction has files on %d levels", levels)
	}
	return e.setupDuck(ctx)
}

func (e *env) tableStorage(ctx context.Context, table string) (storage.Storage, error) {
	return storage.Open(ctx, filepath.Join(e.wh, "bench.db", table))
}

func (e *env) compactLibrary(ctx context.Context, table string) (*lsmwrite.CompactOutcome, error) {
	st, err := e.tableStorage(ctx, table)
	if err != nil {
		return nil, err
	}
	return lsmwrite.Compact(ctx, snapshot.OpenTable(st, ""), lsmwrite.CompactRequest{Full: true})
}

// setupDuck makes DuckDB views over the live files of the compacted tables.
func (e *env) setupDuck(ctx context.Context) error {
	for _, v := range []struct{ view, table, cols string }{
		{"orders", "orders_cmp", "order_id, user_id, status, amount, updated_at, dt"},
		{"users", "users", "user_id, region, segment"},
	} {
		_, rows, err := runQuery(ctx, e.lk, fmt.Sprintf("SELECT file_path FROM `%s$files`", v.table))
		if err != nil {
			return err
		}
		var files []string
		for _, r := range rows {
			files = append(files, "'"+strings.TrimPrefix(r[0], "file:")+"'")
		}
		q := fmt.Sprintf("CREATE OR REPLACE VIEW %s AS SELECT %s FROM read_parquet([%s])", v.view, v.cols, strings.Join(files, ","))
		if err := execAll(ctx, e.duck, q); err != nil {
			return err
		}
	}
	return nil
}

// phaseUpdate: UPDATE of 1% of the keys by a non-key predicate (a range of
// users), seconds per statement, on orders_mor and MariaDB's orders.
func (e *env) phaseUpdate(ctx context.Context) error {
	if !e.cfg.selected("update") {
		return nil
	}
	span := e.d.users / 100
	for r := range e.cfg.rounds {
		lo := ((r*37 + 11) * span) % (e.d.users - span)
		q := "UPDATE %s SET status = 'audit', amount = amount + 1 WHERE user_id BETWEEN %d AND %d"
		var n [2]int64
		run := func(i int, db *sql.DB, engine, table string) error {
			start := time.Now()
			res, err := db.ExecContext(ctx, fmt.Sprintf(q, table, lo, lo+span-1))
			if err != nil {
				return err
			}
			e.rep.Add("UPDATE 1% by a non-key predicate", "s", false, engine, r, time.Since(start).Seconds())
			n[i], _ = res.RowsAffected()
			return nil
		}
		err := interleave(r, func() error { return run(0, e.lk, lakeMOR, "orders_mor") },
			func() error { return run(1, e.my, mariaDBName, "orders") })
		if err != nil {
			return err
		}
		if n[0] != n[1] {
			e.rep.Mismatch("UPDATE round %d: lakesql changed %d rows, MariaDB %d", r+1, n[0], n[1])
		}
	}
	return e.sameChecksum(ctx, "after the UPDATEs", "orders_mor", "orders")
}

// sameChecksum compares a checksum query of lakesql's table and MariaDB's.
func (e *env) sameChecksum(ctx context.Context, what, lakeTable, mariaTable string) error {
	q := "SELECT COUNT(*), SUM(amount), SUM(CASE WHEN status = 'audit' THEN 1 ELSE 0 END), MIN(updated_at), MAX(updated_at) FROM %s"
	_, a, err := runQuery(ctx, e.lk, fmt.Sprintf(q, lakeTable))
	if err != nil {
		return err
	}
	_, b, err := runQuery(ctx, e.my, fmt.Sprintf(q, mariaTable))
	if err != nil {
		return err
	}
	if !sameRows(a, b) {
		e.rep.Mismatch("%s: lakesql %s %s, MariaDB %s %s", what, lakeTable, show(a), mariaTable, show(b))
	}
	return nil
}

// phaseUpsert: batches of multi-row REPLACE (1,000 rows per autocommit
// statement) into a loaded table, rows/s per batch, with the sorted runs
// per bucket after each batch and the write amplification at the end.
func (e *env) phaseUpsert(ctx context.Context) error {
	if !e.cfg.selected("upsert") {
		return nil
	}
	const batches = 10
	per := max(e.d.n/50, 1000)
	var maxRuns, avgRuns []float64
	for b := range batches {
		stmts := e.d.insertStatements("REPLACE", "orders_ups", e.d.upserts(b, per), 1000)
		run := func(db *sql.DB, engine string) error {
			start := time.Now()
			if err := execAll(ctx, db, stmts...); err != nil {
				return err
			}
			e.rep.Add("upsert batches (auto compaction)", "rows/s", true, engine, b, float64(per)/time.Since(start).Seconds())
			return nil
		}
		if err := interleave(b, func() error { return run(e.lk, lakesql) }, func() error { return run(e.my, mariaDBName) }); err != nil {
			return err
		}
		mx, avg, err := e.sortedRuns(ctx, "orders_ups")
		if err != nil {
			return err
		}
		maxRuns, avgRuns = append(maxRuns, mx), append(avgRuns, avg)
	}
	e.rep.Series["upsert: max sorted runs per bucket after each batch"] = maxRuns
	e.rep.Series["upsert: avg sorted runs per bucket after each batch"] = avgRuns
	fmt.Printf("upsert: sorted runs per bucket after each batch: max %v avg %v\n", maxRuns, avgRuns)
	appendBytes, compactBytes, compacts, err := e.writtenBytes(ctx, "orders_ups", e.snapAt["orders_ups"])
	if err != nil {
		return err
	}
	e.rep.Series["upsert: bytes written by commits"] = appendBytes
	e.rep.Series["upsert: bytes written by compactions"] = compactBytes
	if appendBytes > 0 {
		wa := float64(appendBytes+compactBytes) / float64(appendBytes)
		e.rep.Add("upsert batches (auto compaction)", "write amplification", false, lakesql, 0, wa)
	}
	if compacts == 0 {
		e.rep.Skip("upsert batches (auto compaction)", "needs auto compaction in lakesql serve: no COMPACT snapshot was written, so the sorted runs grow")
	}
	return e.sameChecksum(ctx, "after the upserts", "orders_ups", "orders_ups")
}

// sortedRuns counts the sorted runs of each bucket (each level-0 file is
// one, each non-empty higher level one more): max and average.
func (e *env) sortedRuns(ctx context.Context, table string) (float64, float64, error) {
	_, rows, err := runQuery(ctx, e.lk, fmt.Sprintf("SELECT `partition`, bucket, level, COUNT(*) FROM `%s$files` GROUP BY `partition`, bucket, level", table))
	if err != nil {
		return 0, 0, err
	}
	runs := map[string]int{}
	for _, r := range rows {
		k := r[0] + "/" + r[1]
		if r[2] == "0" {
			var n int
			fmt.Sscan(r[3], &n)
			runs[k] += n
		} else {
			runs[k]++
		}
	}
	mx, sum := 0, 0
	for _, n := range runs {
		mx = max(mx, n)
		sum += n
	}
	if len(runs) == 0 {
		return 0, 0, nil
	}
	return float64(mx), float64(sum) / float64(len(runs)), nil
}

// writtenBytes sums the sizes of the files each snapshot after `after` added,
// by commit kind (read from the table's snapshots with lakesql's library).
func (e *env) writtenBytes(ctx context.Context, table string, after int64) (appendBytes, compactBytes int64, compacts int, err error) {
	st, err := e.tableStorage(ctx, table)
	if err != nil {
		return 0, 0, 0, err
	}
	snaps, err := snapshot.NewSnapshotManager(st, "").All(ctx)
	if err != nil {
		return 0, 0, 0, err
	}
	for _, s := range snaps {
		if int64(s.ID) <= after {
			continue
		}
		added, _, err := snapshot.Scan(ctx, st, s, snapshot.ScanOptions{Lists: []string{s.DeltaManifestList}})
		if err != nil {
			return 0, 0, 0, err
		}
		var n int64
		for i := range added {
			if added[i].Kind == manifest.FileKindAdd {
				n += added[i].File.FileSize
			}
		}
		if s.CommitKind == snapshot.CommitKindCompact {
			compactBytes += n
			compacts++
		} else {
			appendBytes += n
		}
	}
	return appendBytes, compactBytes, compacts, nil
}
