package tests

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Two `lakesql serve` processes on one warehouse (issue 12 item 5): 8
// connections each write one table, on keys of their own (INSERT,
// UPDATE, DELETE) and on 20 keys they share (increments, alone and in
// transactions with an own-key INSERT, retried on 1213), while automatic
// compaction and snapshot expiration run in both servers, and a DDL
// connection per server races CREATE/ALTER/DROP of a shared table name
// and CREATE/DROP DATABASE with INSERTs into them. The table must equal
// the model of the acknowledged statements, no statement may fail other
// than with the error its race allows, the snapshot ids the servers
// publish must be strictly increasing (no id reused, none lost: the live
// ones are consecutive, their commit times in order) and every DROP must
// leave nothing behind. The warehouse is a local folder, or an S3 bucket
// when LAKESQL_S3_TEST_ENDPOINT names one (s3_test.go).

// lakesqlServeBinary builds cmd/lakesql once per test process.
var serveBinary struct {
	once sync.Once
	path string
	err  error
}

func lakesqlServeBinary(t *testing.T) string {
	t.Helper()
	serveBinary.once.Do(func() {
		dir, err := os.MkdirTemp("", "lakesql-serve-")
		if err != nil {
			serveBinary.err = err
			return
		}
		serveBinary.path = filepath.Join(dir, "lakesql")
		out, err := exec.Command("go", "build", "-o", serveBinary.path, "../cmd/lakesql").CombinedOutput()
		if err != nil {
			serveBinary.err = fmt.Errorf("go build ../cmd/lakesql: %v\n%s", err, out)
		}
	})
	if serveBinary.err != nil {
		t.Fatal(serveBinary.err)
	}
	return serveBinary.path
}

var servingRE = regexp.MustCompile(`msg=serving warehouse=(\S+) mysql=(\S+)`)

// serveProcess is a running `lakesql serve`.
type serveProcess struct {
	cmd  *exec.Cmd
	addr string
	mu   sync.Mutex
	log  strings.Builder
	done chan error
}

func (p *serveProcess) logText() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

// startServeProcess starts `lakesql serve` on warehouse wh (a folder or a
// URL) with extra environment; it is killed at the end of the test.
func startServeProcess(t *testing.T, wh string, env ...string) *serveProcess {
	t.Helper()
	cmd := exec.Command(lakesqlServeBinary(t), "serve", "--warehouse", wh, "--create", "--host", "127.0.0.1", "--port", "0")
	cmd.Env = append(os.Environ(), env...)
	pr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &serveProcess{cmd: cmd, done: make(chan error, 1)}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			p.mu.Lock()
			p.log.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			if m := servingRE.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[2]
			}
		}
		p.done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.done
	})
	select {
	case p.addr = <-found:
		return p
	case err := <-p.done:
		t.Fatalf("lakesql serve exited: %v\n%s", err, p.logText())
	case <-time.After(90 * time.Second):
		t.Fatalf("lakesql serve did not start:\n%s", p.logText())
	}
	return nil
}

// ccModel is what the acknowledged statements wrote.
type ccModel struct {
	mu   sync.Mutex
	rows map[int64]int64
}

func (m *ccModel) set(k, v int64) { m.mu.Lock(); m.rows[k] = v; m.mu.Unlock() }
func (m *ccModel) add(k, d int64) { m.mu.Lock(); m.rows[k] += d; m.mu.Unlock() }
func (m *ccModel) del(k int64)    { m.mu.Lock(); delete(m.rows, k); m.mu.Unlock() }

// ccErrs collects the failures of the run.
type ccErrs struct {
	mu   sync.Mutex
	errs []string
}

func (e *ccErrs) add(format string, args ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.errs) < 20 {
		e.errs = append(e.errs, fmt.Sprintf(format, args...))
	}
}

// ccExpiredTx counts transactions retried on 1412 (see ccRetry).
var ccExpiredTx atomic.Int64

// ccRetry runs f until it returns something other than 1213 or, for a
// transaction (tx), 1412. The table expires snapshots older than
// snapshot.time-retained = 1 s (so that expiration runs in the test), and
// on a loaded machine a statement can still be reading a snapshot the
// other server expired, whose files it deleted: outside a transaction the
// server plans such a statement again on the latest snapshot, so it
// succeeds; inside one it answers 1412 ("please retry transaction"), with
// nothing committed, and the client retries the transaction.
func ccRetry(ctx context.Context, tx bool, f func() error) (retries int, err error) {
	for {
		err = f()
		if err != nil && tx && mysqlErrNo(err) == 1412 && ctx.Err() == nil {
			ccExpiredTx.Add(1)
			retries++
			continue
		}
		if err == nil || mysqlErrNo(err) != 1213 || ctx.Err() != nil {
			return retries, err
		}
		retries++
		time.Sleep(time.Duration(rand.IntN(5)) * time.Millisecond)
	}
}

const ccShared = 20 // keys 0..19 are everyone's

// ccWorker writes through one connection until ctx ends.
func ccWorker(ctx context.Context, conn *sql.Conn, id int, m *ccModel, errs *ccErrs, stats *ccStats) {
	rng := rand.New(rand.NewPCG(uint64(id), 7))
	own := []int64{}
	seq := int64(0)
	exec := func(q string, args ...any) error {
		_, err := conn.ExecContext(context.Background(), q, args...)
		return err
	}
	for ctx.Err() == nil {
		var err error
		var retries int
		what := ""
		switch r := rng.IntN(100); {
		case r < 35 || len(own) < 5: // a new own key
			seq++
			k := int64(1_000_000*(id+1)) + seq
			what = "insert"
			retries, err = ccRetry(ctx, false, func() error { return exec("INSERT INTO t VALUES (?, ?)", k, seq) })
			if err == nil {
				m.set(k, seq)
				own = append(own, k)
			}
		case r < 50: // update an own key
			k := own[rng.IntN(len(own))]
			what = "update own"
			retries, err = ccRetry(ctx, false, func() error { return exec("UPDATE t SET v = v + 10 WHERE k = ?", k) })
			if err == nil {
				m.add(k, 10)
			}
		case r < 58: // delete an own key
			i := rng.IntN(len(own))
			k := own[i]
			what = "delete own"
			retries, err = ccRetry(ctx, false, func() error { return exec("DELETE FROM t WHERE k = ?", k) })
			if err == nil {
				m.del(k)
				own = append(own[:i], own[i+1:]...)
			}
		case r < 90: // increment a shared key
			k := int64(rng.IntN(ccShared))
			what = "increment shared"
			retries, err = ccRetry(ctx, false, func() error { return exec("UPDATE t SET v = v + 1 WHERE k = ?", k) })
			if err == nil {
				m.add(k, 1)
			}
		default: // a transaction: a shared increment and a new own key
			k := int64(rng.IntN(ccShared))
			seq++
			nk := int64(1_000_000*(id+1)) + seq
			what = "transaction"
			retries, err = ccRetry(ctx, true, func() error {
				if err := exec("BEGIN"); err != nil {
					return err
				}
				if err := exec("UPDATE t SET v = v + 1 WHERE k = ?", k); err != nil {
					_ = exec("ROLLBACK")
					return err
				}
				if err := exec("INSERT INTO t VALUES (?, ?)", nk, seq); err != nil {
					_ = exec("ROLLBACK")
					return err
				}
				return exec("COMMIT")
			})
			if err == nil {
				m.add(k, 1)
				m.set(nk, seq)
				own = append(own, nk)
			}
		}
		if err != nil && mysqlErrNo(err) == 1213 && ctx.Err() != nil {
			return // still conflicting at the end: nothing was committed
		}
		stats.count(retries, err == nil)
		if err != nil && ctx.Err() == nil {
			errs.add("worker %d: %s: %v", id, what, err)
			return // the model no longer knows this worker's keys
		}
		if err != nil {
			// Canceled at the end: the outcome of this one statement is
			// not known; the run ends here.
			errs.add("worker %d: %s canceled: %v", id, what, err)
			return
		}
	}
}

type ccStats struct {
	mu               sync.Mutex
	ok, failed, retr int
}

func (s *ccStats) count(retries int, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.retr += retries
	if ok {
		s.ok++
	} else {
		s.failed++
	}
}

// ddFileMissing returns the path of a file of dd that err says does not
// exist, or "".
func ddFileMissing(err error) string {
	if err == nil {
		return ""
	}
	m := ddMissingRE.FindStringSubmatch(err.Error())
	if m == nil {
		return ""
	}
	return m[1]
}

var ddMissingRE = regexp.MustCompile(`(default\.db/dd/\S+): storage: file does not exist`)

// ccDDL races DDL on the shared names dd and ddb with INSERTs into them
// until ctx ends; the errors the races allow are counted, any other one
// is a failure.
//
// On the local store every statement on dd succeeds or answers one of
// those codes. On an object store (tolerateMissing) a statement on dd may
// also fail on a file of dd that a drop deleted: a commit of the dropped
// dd that checked its table just before a drop and a CREATE of the name
// ran still publishes its snapshot into the new dd until its check after
// publishing takes it back (on the local store the drop deletes its
// staged snapshot file, so its link fails: snapshot.
// TestStaleCommitLinksNothingIntoNewTable).
func ccDDL(ctx context.Context, conn *sql.Conn, id int, errs *ccErrs, allowed map[int]int, mu *sync.Mutex, tolerateMissing bool) {
	rng := rand.New(rand.NewPCG(uint64(id), 11))
	stmts := []string{
		"CREATE TABLE dd (k BIGINT, v BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '1')",
		"INSERT INTO dd (k, v) VALUES (1, 1), (2, 2)",
		"INSERT INTO dd (k, v) VALUES (3, 3)",
		"ALTER TABLE dd ADD COLUMN c%d BIGINT",
		"SELECT COUNT(*) FROM dd",
		"DROP TABLE dd",
		"CREATE DATABASE ddb",
		"CREATE TABLE ddb.x%d (k BIGINT, v BIGINT, PRIMARY KEY (k) NOT ENFORCED)",
		"INSERT INTO ddb.x%d VALUES (1, 1)",
		"DROP DATABASE ddb",
	}
	run := func(q string) error {
		if strings.HasPrefix(q, "SELECT") {
			var c int64
			return conn.QueryRowContext(context.Background(), q).Scan(&c)
		}
		_, err := conn.ExecContext(context.Background(), q)
		return err
	}
	for n := 0; ctx.Err() == nil; n++ {
		q := stmts[rng.IntN(len(stmts))]
		if strings.Contains(q, "%d") {
			q = fmt.Sprintf(q, rng.IntN(3))
		}
		err := run(q)
		if err == nil {
			continue
		}
		if missing := ddFileMissing(err); missing != "" && tolerateMissing {
			// A statement on dd that read a file a drop on the other
			// server deleted under it (README: "in a narrow window, an
			// error naming a file the drop deleted"): transient, counted
			// as -1. The issue-12 damage was persistent (a table whose
			// reads keep failing on the same file): the statement runs
			// again at once, and failing on the same file twice more is a
			// failure.
			again := 0
			for range 2 {
				if ddFileMissing(run(q)) == missing {
					again++
				}
			}
			if again < 2 {
				mu.Lock()
				allowed[-1]++
				mu.Unlock()
				continue
			}
		}
		switch code := int(mysqlErrNo(err)); code {
		// 1007 database exists, 1008/1049 no database, 1050 table
		// exists, 1051/1146 no table, 1060 duplicate column, 1213
		// a concurrent schema change or commit.
		case 1007, 1008, 1049, 1050, 1051, 1146, 1060, 1213:
			mu.Lock()
			allowed[code]++
			mu.Unlock()
		default:
			errs.add("ddl %d: %s: %v", id, q, err)
		}
	}
}

func TestServeProcessesConcurrency(t *testing.T) {
	runServeConcurrency(t, t.TempDir(), nil)
}

// runServeConcurrency runs the test on warehouse wh (a folder or a URL);
// files lists the objects below a warehouse path (nil: the local folder).
func runServeConcurrency(t *testing.T, wh string, files func(t *testing.T, prefix string) []string, env ...string) {
	objectStore := files != nil
	if files == nil {
		files = func(t *testing.T, prefix string) []string { return filesBelow(t, filepath.Join(wh, prefix)) }
	}
	servers := []*serveProcess{startServeProcess(t, wh, env...), startServeProcess(t, wh, env...)}
	dbs := make([]*sql.DB, 2)
	for i, s := range servers {
		dbs[i] = openWarehouseDB(t, s.addr, "default", "")
		dbs[i].SetMaxOpenConns(12)
	}
	if _, err := dbs[0].Exec("CREATE TABLE t (k BIGINT, v BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '2'," +
		" 'num-sorted-run.compaction-trigger' = '3', 'snapshot.num-retained.min' = '5', 'snapshot.num-retained.max' = '30', 'snapshot.time-retained' = '1 s')"); err != nil {
		t.Fatal(err)
	}
	m := &ccModel{rows: map[int64]int64{}}
	var vals []string
	for k := range ccShared {
		vals = append(vals, fmt.Sprintf("(%d, 0)", k))
		m.rows[int64(k)] = 0
	}
	if _, err := dbs[1].Exec("INSERT INTO t VALUES " + strings.Join(vals, ", ")); err != nil {
		t.Fatal(err)
	}
	const perServer = 8
	run := 20 * time.Second
	if testing.Short() {
		run = 5 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), run)
	defer cancel()
	errs := &ccErrs{}
	stats := &ccStats{}
	allowed := map[int]int{}
	var allowedMu sync.Mutex
	var wg sync.WaitGroup
	// A monitor per server: the latest snapshot id it reports never goes
	// back.
	var monitored [2]int
	for i, db := range dbs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := int64(0)
			for ctx.Err() == nil {
				var id sql.NullInt64
				if err := db.QueryRowContext(ctx, "SELECT MAX(snapshot_id) FROM `t$snapshots`").Scan(&id); err != nil {
					if ctx.Err() == nil {
						errs.add("monitor %d: %v", i, err)
					}
					return
				}
				if id.Int64 < last {
					errs.add("server %d: the latest snapshot went back from %d to %d", i, last, id.Int64)
				}
				last = id.Int64
				monitored[i]++
				time.Sleep(50 * time.Millisecond)
			}
		}()
	}
	for s, db := range dbs {
		for w := range perServer {
			conn, err := db.Conn(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			wg.Add(1)
			go func() {
				defer wg.Done()
				ccWorker(ctx, conn, s*perServer+w, m, errs, stats)
			}()
		}
		conn, err := db.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			ccDDL(ctx, conn, s, errs, allowed, &allowedMu, objectStore)
		}()
	}
	wg.Wait()
	canceled := 0
	var failures []string
	for _, e := range errs.errs {
		if strings.Contains(e, " canceled: ") {
			canceled++
			continue
		}
		failures = append(failures, e)
	}
	if len(failures) > 0 {
		t.Fatalf("%d failures:\n%s\nserver logs:\n%s", len(failures), strings.Join(failures, "\n"), tail(servers[0].logText()+servers[1].logText(), 4000))
	}
	if canceled > 0 {
		// A statement canceled by the deadline has an unknown outcome: the
		// model of that worker could be off by it. Not expected: workers
		// run their statements on background contexts.
		t.Fatalf("%d statements canceled: %v", canceled, errs.errs)
	}
	// dd, when the races left it, reads through both servers: no table
	// whose files a race deleted (issue 12).
	for i, db := range dbs {
		var c int64
		if err := db.QueryRow("SELECT COUNT(*) FROM dd").Scan(&c); err != nil && int(mysqlErrNo(err)) != 1146 {
			t.Errorf("server %d: dd after the races: %v", i, err)
		}
	}
	// The table equals the model, through both servers.
	for i, db := range dbs {
		got := map[int64]int64{}
		for _, r := range queryStrings(t, db, "SELECT k, v FROM t") {
			k, _ := strconv.ParseInt(r[0], 10, 64)
			v, _ := strconv.ParseInt(r[1], 10, 64)
			got[k] = v
		}
		bad := 0
		for k, v := range m.rows {
			if g, ok := got[k]; !ok || g != v {
				if bad++; bad <= 10 {
					t.Errorf("server %d: key %d = %d (present %v), model %d", i, k, g, ok, v)
				}
			}
		}
		for k, g := range got {
			if _, ok := m.rows[k]; !ok {
				if bad++; bad <= 10 {
					t.Errorf("server %d: key %d = %d is not in the model", i, k, g)
				}
			}
		}
		if bad > 0 {
			t.Fatalf("server %d: %d keys differ from the model (%d rows, model %d)", i, bad, len(got), len(m.rows))
		}
	}
	// Snapshot ids: the live ones consecutive, their commit times in
	// order; expiration and compaction ran.
	rows := queryStrings(t, dbs[0], "SELECT snapshot_id, commit_kind, commit_time FROM `t$snapshots` ORDER BY snapshot_id")
	var prevID int64
	var prevTime string
	compacts := 0
	for i, r := range rows {
		id, _ := strconv.ParseInt(r[0], 10, 64)
		if i > 0 && id != prevID+1 {
			t.Errorf("snapshot %d follows %d: the live snapshot ids are not consecutive", id, prevID)
		}
		if i > 0 && r[2] < prevTime {
			t.Errorf("snapshot %d committed at %s, before snapshot %d (%s)", id, r[2], prevID, prevTime)
		}
		if r[1] == "COMPACT" {
			compacts++
		}
		prevID, prevTime = id, r[2]
	}
	first, _ := strconv.ParseInt(rows[0][0], 10, 64)
	if first <= 1 {
		t.Errorf("the earliest snapshot is %d: expiration did not run", first)
	}
	ids := files(t, "default.db/t/snapshot")
	for _, f := range ids {
		if s, ok := strings.CutPrefix(filepath.Base(f), "snapshot-"); ok {
			id, _ := strconv.ParseInt(s, 10, 64)
			if id < first || id > prevID {
				t.Errorf("snapshot file %s is outside the live range %d..%d", f, first, prevID)
			}
		}
	}
	// The DDL races leave nothing behind once dropped.
	for _, q := range []string{"DROP TABLE IF EXISTS dd", "DROP DATABASE IF EXISTS ddb"} {
		if _, err := dbs[0].Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, prefix := range []string{"default.db/dd", "ddb.db"} {
		var left []string
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if left = files(t, prefix); len(left) == 0 {
				break
			}
		}
		if len(left) > 0 {
			t.Errorf("%s: %d files left after the drop: %v", prefix, len(left), left)
		}
	}
	t.Logf("2 servers × %d connections for %v: %d statements acknowledged (%.0f/s), %d retries on 1213; "+
		"snapshots %d..%d live (%d compactions among them); %d monitor reads; DDL races' expected errors %v; "+
		"%d transactions retried on 1412 (their snapshot expired by the other server)",
		perServer, run, stats.ok, float64(stats.ok)/run.Seconds(), stats.retr, first, prevID, compacts,
		monitored[0]+monitored[1], allowed, ccExpiredTx.Load())
}

// tail is the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
