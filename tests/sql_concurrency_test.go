package tests

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Concurrency of writes through SQL: several connections, several servers
// (in one process and in two) over one warehouse, a real read-write
// conflict reported as MySQL error 1213, and a connection dropped inside a
// transaction.

// scTable creates table name (k BIGINT key, v BIGINT) with the given
// bucket option through db.
func scTable(t *testing.T, db *sql.DB, name, bucket string) {
	t.Helper()
	q := fmt.Sprintf("CREATE TABLE %s (k BIGINT, v BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '%s')", name, bucket)
	if _, err := db.Exec(q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// scCount returns COUNT(*) and the v of key 0 (-1 when absent).
func scCount(t *testing.T, db queryer, table string) (int, int64) {
	t.Helper()
	n, err := strconv.Atoi(queryStrings(t, db, "SELECT COUNT(*) FROM "+table)[0][0])
	if err != nil {
		t.Fatal(err)
	}
	rows := queryStrings(t, db, fmt.Sprintf("SELECT v FROM %s WHERE k = 0", table))
	if len(rows) == 0 {
		return n, -1
	}
	v, err := strconv.ParseInt(rows[0][0], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n, v
}

// execRetry runs q, retrying MySQL error 1213 (deadlock / conflict); it
// returns the number of retries.
func execRetry(ctx context.Context, db *sql.DB, q string) (int, error) {
	for retries := 0; ; retries++ {
		_, err := db.ExecContext(ctx, q)
		if err == nil {
			return retries, nil
		}
		if mysqlErrNo(err) != 1213 || retries >= 200 {
			return retries, fmt.Errorf("%s: %w (after %d retries)", q, err, retries)
		}
	}
}

// scWriter inserts keys id*100000+1..n of table and increments the v of
// key 0 after each insert, all in autocommit, retrying conflicts.
func scWriter(ctx context.Context, db *sql.DB, table string, id, n int) (retries int, err error) {
	for j := 1; j <= n; j++ {
		r, err := execRetry(ctx, db, fmt.Sprintf("INSERT INTO %s VALUES (%d, %d)", table, id*100000+j, j))
		retries += r
		if err != nil {
			return retries, err
		}
		r, err = execRetry(ctx, db, fmt.Sprintf("UPDATE %s SET v = v + 1 WHERE k = 0", table))
		retries += r
		if err != nil {
			return retries, err
		}
	}
	return retries, nil
}

// TestSQLConcurrentDisjointInserts: two connections interleave autocommit
// inserts of disjoint keys into one table; both succeed without conflicts
// and every row is there.
func TestSQLConcurrentDisjointInserts(t *testing.T) {
	ws := startWriteServer(t, t.TempDir())
	db := ws.open(t, "")
	db.SetMaxOpenConns(4)
	scTable(t, db, "d", "2")
	const n = 30
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 2)
	start := time.Now()
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := db.Conn(ctx)
			if err != nil {
				errs[w] = err
				return
			}
			defer conn.Close()
			for j := 0; j < n; j++ {
				q := fmt.Sprintf("INSERT INTO d VALUES (%d, %d)", w*1000+j, j)
				if _, err := conn.ExecContext(ctx, q); err != nil {
					errs[w] = fmt.Errorf("connection %d: %s: %w", w, q, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	el := time.Since(start)
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got := queryStrings(t, db, "SELECT k, v FROM d ORDER BY k")
	if len(got) != 2*n {
		t.Fatalf("%d rows, want %d", len(got), 2*n)
	}
	for i, r := range got {
		w, j := i/n, i%n
		if r[0] != strconv.Itoa(w*1000+j) || r[1] != strconv.Itoa(j) {
			t.Fatalf("row %d = %v, want [%d %d]", i, r, w*1000+j, j)
		}
	}
	// Automatic compaction adds COMPACT snapshots; group commit may put the
	// two connections' concurrent statements into one APPEND snapshot, so
	// there are between n (every commit shared) and 2n (none) of them.
	snaps, _ := strconv.Atoi(queryStrings(t, db, "SELECT COUNT(*) FROM `d$snapshots` WHERE commit_kind = 'APPEND'")[0][0])
	if snaps < n || snaps > 2*n {
		t.Errorf("%d APPEND snapshots for %d statements on 2 connections, want %d to %d", snaps, 2*n, n, 2*n)
	}
	t.Logf("%d autocommit inserts on 2 connections in %v: %.0f statements/s", 2*n, el.Round(time.Millisecond), float64(2*n)/el.Seconds())
}

// TestSQLConcurrentServers: two writers (two connections of one server, or
// two lakesql servers in one process over one warehouse) write one table at
// once: blind inserts of their own keys and
// read-modify-write increments of one shared row. Every statement succeeds
// (retrying 1213), no row is lost and no increment is lost.
func TestSQLConcurrentServers(t *testing.T) {
	for _, c := range []struct {
		name, bucket string
		servers      int
	}{{"one-server/bucket=2", "2", 1}, {"two-servers/bucket=2", "2", 2}, {"two-servers/bucket=-1", "-1", 2}} {
		t.Run(c.name, func(t *testing.T) {
			wh := t.TempDir()
			bucket := c.bucket
			s1 := startWriteServer(t, wh)
			s2 := s1
			if c.servers == 2 {
				s2 = startWriteServer(t, wh)
			}
			db1, db2 := s1.open(t, ""), s2.open(t, "")
			scTable(t, db1, "c", bucket)
			if _, err := db2.Exec("INSERT INTO c VALUES (0, 0)"); err != nil {
				t.Fatal(err)
			}
			const n = 15
			ctx := context.Background()
			var wg sync.WaitGroup
			retries := make([]int, 2)
			errs := make([]error, 2)
			start := time.Now()
			for i, db := range []*sql.DB{db1, db2} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					retries[i], errs[i] = scWriter(ctx, db, "c", i+1, n)
				}()
			}
			wg.Wait()
			el := time.Since(start)
			for i, err := range errs {
				if err != nil {
					t.Fatalf("server %d: %v", i+1, err)
				}
			}
			for _, db := range []*sql.DB{db1, db2} {
				rows, v := scCount(t, db, "c")
				if rows != 1+2*n || v != 2*n {
					t.Errorf("%d rows and counter %d, want %d rows and counter %d (lost rows or lost updates)", rows, v, 1+2*n, 2*n)
				}
			}
			t.Logf("%d server(s), 2 writers × %d (insert + increment) in %v: %.0f statements/s, %d + %d retries on 1213",
				c.servers, n, el.Round(time.Millisecond), float64(4*n)/el.Seconds(), retries[0], retries[1])
		})
	}
}

// scHelperEnv names the warehouse for TestSQLConcurrencyHelperProcess.
const scHelperEnv = "LAKESQL_SQLCONC_HELPER_WAREHOUSE"

// TestSQLConcurrencyHelperProcess is the second OS process of
// TestSQLConcurrentProcesses (it does nothing in a normal run): it starts
// its own lakesql server over the warehouse in $LAKESQL_SQLCONC_HELPER_WAREHOUSE,
// runs scWriter as writer 2 and prints "retries N" or "error ...".
func TestSQLConcurrencyHelperProcess(t *testing.T) {
	wh := os.Getenv(scHelperEnv)
	if wh == "" {
		return
	}
	n, _ := strconv.Atoi(os.Getenv("LAKESQL_SQLCONC_HELPER_N"))
	ws := startWriteServer(t, wh)
	db := ws.open(t, "")
	fmt.Println("ready")
	retries, err := scWriter(context.Background(), db, "c", 2, n)
	if err != nil {
		fmt.Println("error", strings.ReplaceAll(err.Error(), "\n", " "))
		return
	}
	fmt.Println("retries", retries)
}

// TestSQLConcurrentProcesses is TestSQLConcurrentServers with the second
// writer in a second OS process (the test binary re-executed).
func TestSQLConcurrentProcesses(t *testing.T) {
	if os.Getenv(scHelperEnv) != "" {
		return
	}
	wh := t.TempDir()
	ws := startWriteServer(t, wh)
	db := ws.open(t, "")
	scTable(t, db, "c", "2")
	if _, err := db.Exec("INSERT INTO c VALUES (0, 0)"); err != nil {
		t.Fatal(err)
	}
	const n = 15
	cmd := exec.Command(os.Args[0], "-test.run=^TestSQLConcurrencyHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), scHelperEnv+"="+wh, "LAKESQL_SQLCONC_HELPER_N="+strconv.Itoa(n))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	// Start writing once the child's server is up.
	select {
	case l := <-lines:
		if l != "ready" {
			t.Fatalf("helper process: %q", l)
		}
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("helper process did not start")
	}
	start := time.Now()
	retries, werr := scWriter(context.Background(), db, "c", 1, n)
	var childRetries = -1
	var childErr string
	for l := range lines {
		if s, ok := strings.CutPrefix(l, "retries "); ok {
			childRetries, _ = strconv.Atoi(s)
		}
		if s, ok := strings.CutPrefix(l, "error "); ok {
			childErr = s
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("helper process: %v\n%s", err, stderr.String())
	}
	el := time.Since(start)
	if werr != nil {
		t.Fatalf("this process: %v", werr)
	}
	if childErr != "" || childRetries < 0 {
		t.Fatalf("helper process failed: %q\n%s", childErr, stderr.String())
	}
	rows, v := scCount(t, db, "c")
	if rows != 1+2*n || v != 2*n {
		t.Errorf("%d rows and counter %d, want %d rows and counter %d (lost rows or lost updates)", rows, v, 1+2*n, 2*n)
	}
	t.Logf("2 processes × %d (insert + increment) in %v, %d + %d retries on 1213", n, el.Round(time.Millisecond), retries, childRetries)
}

// TestSQLTransactionConflict: a transaction whose UPDATE, DELETE or ON
// DUPLICATE KEY UPDATE read a key that another writer changed after the
// transaction started fails at COMMIT with 1213; the other writer's value
// stays (no lost update) and the retried transaction succeeds. Writes that
// read nothing, and reads of other keys, do not conflict.
func TestSQLTransactionConflict(t *testing.T) {
	ws := startWriteServer(t, t.TempDir())
	db := ws.open(t, "")
	db.SetMaxOpenConns(4)
	ctx := context.Background()
	cases := []struct {
		name     string
		a        string // transaction A's statement on key 1
		b        string // B's autocommit statement
		conflict bool
		want     string // k=1 after A's COMMIT (or B, on conflict): "v" or "gone"
		retried  string // k=1 after A retried (conflicts only)
	}{
		{"update", "UPDATE %s SET v = v + 1 WHERE k = 1", "UPDATE %s SET v = v + 10 WHERE k = 1", true, "10", "11"},
		{"delete", "DELETE FROM %s WHERE k = 1", "UPDATE %s SET v = v + 10 WHERE k = 1", true, "10", "gone"},
		{"odku", "INSERT INTO %s VALUES (1, 100) ON DUPLICATE KEY UPDATE v = v + 1", "UPDATE %s SET v = v + 10 WHERE k = 1", true, "10", "11"},
		{"update-vs-insert", "UPDATE %s SET v = v + 1 WHERE k = 1", "INSERT INTO %s VALUES (1, 7)", true, "7", "8"},
		{"update-vs-delete", "UPDATE %s SET v = v + 1 WHERE k = 1", "DELETE FROM %s WHERE k = 1", true, "gone", "gone"},
		// No conflict: A reads key 1, B writes key 2.
		{"other-key", "UPDATE %s SET v = v + 1 WHERE k = 1", "UPDATE %s SET v = v + 10 WHERE k = 2", false, "1", ""},
		// No conflict: a blind upsert reads nothing; the later commit (A) wins.
		{"blind-insert", "INSERT INTO %s VALUES (1, 5)", "UPDATE %s SET v = v + 10 WHERE k = 1", false, "5", ""},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			table := fmt.Sprintf("x%d", i)
			scTable(t, db, table, "1")
			if _, err := db.Exec(fmt.Sprintf("INSERT INTO %s VALUES (1, 0), (2, 0)", table)); err != nil {
				t.Fatal(err)
			}
			a, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer closeConn(a)
			stmtA, stmtB := strings.ReplaceAll(c.a, "%s", table), strings.ReplaceAll(c.b, "%s", table)
			for _, q := range []string{"BEGIN", stmtA} {
				if _, err := a.ExecContext(ctx, q); err != nil {
					t.Fatalf("A: %s: %v", q, err)
				}
			}
			if _, err := db.ExecContext(ctx, stmtB); err != nil {
				t.Fatalf("B: %s: %v", stmtB, err)
			}
			_, err = a.ExecContext(ctx, "COMMIT")
			if c.conflict {
				if err == nil {
					t.Fatalf("A's COMMIT succeeded after B's %q changed the key A read: lost update", stmtB)
				}
				if mysqlErrNo(err) != 1213 {
					t.Fatalf("A's COMMIT: %v, want MySQL error 1213", err)
				}
			} else if err != nil {
				t.Fatalf("A's COMMIT: %v, want success", err)
			}
			if got := scValue(t, db, table, 1); got != c.want {
				t.Errorf("after A's COMMIT: k=1 is %s, want %s", got, c.want)
			}
			if !c.conflict {
				return
			}
			// A's connection is usable and out of the failed transaction.
			if got := scValue(t, a, table, 1); got != c.want {
				t.Errorf("A after the failed COMMIT sees k=1 %s, want %s", got, c.want)
			}
			for _, q := range []string{"BEGIN", stmtA, "COMMIT"} {
				if _, err := a.ExecContext(ctx, q); err != nil {
					t.Fatalf("A retried: %s: %v", q, err)
				}
			}
			if got := scValue(t, db, table, 1); got != c.retried {
				t.Errorf("after A retried: k=1 is %s, want %s", got, c.retried)
			}
		})
	}
}

// scValue is the v of key k as text, or "gone".
func scValue(t *testing.T, q queryer, table string, k int) string {
	t.Helper()
	rows := queryStrings(t, q, fmt.Sprintf("SELECT v FROM %s WHERE k = %d", table, k))
	if len(rows) == 0 {
		return "gone"
	}
	return rows[0][0]
}

// scDialer is a go-sql-driver dialer that keeps every connection so a test
// can drop one without a COM_QUIT.
var scDialer struct {
	once  sync.Once
	mu    sync.Mutex
	conns []net.Conn
}

func scDropNet() string {
	scDialer.once.Do(func() {
		mysql.RegisterDialContext("lakesqldrop", func(ctx context.Context, addr string) (net.Conn, error) {
			c, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
			if err == nil {
				scDialer.mu.Lock()
				scDialer.conns = append(scDialer.conns, c)
				scDialer.mu.Unlock()
			}
			return c, err
		})
	})
	return "lakesqldrop"
}

// TestSQLDroppedConnection: a connection that disappears in the middle of a
// transaction leaves nothing: no rows, no snapshot, no files; the session's
// buffered writes are gone and the table stays writable.
func TestSQLDroppedConnection(t *testing.T) {
	wh := t.TempDir()
	ws := startWriteServer(t, wh)
	db := ws.open(t, "")
	scTable(t, db, "dc", "2")
	if _, err := db.Exec("INSERT INTO dc VALUES (1, 1), (2, 2)"); err != nil {
		t.Fatal(err)
	}
	files := func() []string {
		var out []string
		filepath.WalkDir(filepath.Join(wh, "default.db", "dc"), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				out = append(out, p)
			}
			return nil
		})
		return out
	}
	before := files()
	if len(before) == 0 {
		t.Fatalf("no files under %s: the table folder is elsewhere", filepath.Join(wh, "default.db", "dc"))
	}
	// The doomed connection: its own pool with one connection through the
	// dropping dialer.
	dropNet := scDropNet()
	scDialer.mu.Lock()
	first := len(scDialer.conns)
	scDialer.mu.Unlock()
	doomed, err := sql.Open("mysql", fmt.Sprintf("root@%s(%s)/?interpolateParams=true", dropNet, ws.addr))
	if err != nil {
		t.Fatal(err)
	}
	defer doomed.Close()
	doomed.SetMaxOpenConns(1)
	ctx := context.Background()
	c, err := doomed.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"BEGIN", "INSERT INTO dc VALUES (3, 3), (4, 4)", "UPDATE dc SET v = 100 WHERE k = 1", "DELETE FROM dc WHERE k = 2"} {
		if _, err := c.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if got := queryStrings(t, c, "SELECT COUNT(*) FROM dc")[0][0]; got != "3" {
		t.Fatalf("inside the transaction: %s rows, want 3", got)
	}
	scDialer.mu.Lock()
	if len(scDialer.conns) != first+1 {
		scDialer.mu.Unlock()
		t.Fatalf("%d new connections through the dialer, want 1", len(scDialer.conns)-first)
	}
	scDialer.conns[first].Close() // no COMMIT, no COM_QUIT
	scDialer.mu.Unlock()
	c.Close()
	// Give the server time to notice, then check nothing happened.
	time.Sleep(300 * time.Millisecond)
	want := [][]string{{"1", "1"}, {"2", "2"}}
	if got := queryStrings(t, db, "SELECT k, v FROM dc ORDER BY k"); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after the dropped connection: %v, want %v", got, want)
	}
	if got := queryStrings(t, db, "SELECT COUNT(*) FROM `dc$snapshots`")[0][0]; got != "1" {
		t.Errorf("%s snapshots after the dropped connection, want 1", got)
	}
	if after := files(); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("files changed after the dropped connection:\nbefore %v\n after %v", before, after)
	}
	// The table stays writable, and the rows the dead transaction touched
	// are free.
	if _, err := db.Exec("UPDATE dc SET v = v + 1 WHERE k IN (1, 2)"); err != nil {
		t.Fatal(err)
	}
	if got := queryStrings(t, db, "SELECT k, v FROM dc ORDER BY k"); fmt.Sprint(got) != "[[1 2] [2 3]]" {
		t.Errorf("after a later update: %v", got)
	}
}

// TestSQLConcurrentBlindUpserts: two servers upsert the same key at the same
// moment, round after round. Both commit (blind upserts read nothing), and
// the later snapshot must win: the value at the latest snapshot is the one
// its commit wrote, and AS OF the snapshot before shows the other writer's.
func TestSQLConcurrentBlindUpserts(t *testing.T) {
	wh := t.TempDir()
	s1, s2 := startWriteServer(t, wh), startWriteServer(t, wh)
	dbs := []*sql.DB{s1.open(t, ""), s2.open(t, "")}
	if _, err := dbs[0].Exec("CREATE TABLE u (k BIGINT, w STRING, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '1')"); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const rounds = 12
	wrong := 0
	for r := 0; r < rounds; r++ {
		var wg sync.WaitGroup
		errs := make([]error, 2)
		start := make(chan struct{})
		for i, db := range dbs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				_, errs[i] = db.ExecContext(ctx, fmt.Sprintf("INSERT INTO u VALUES (1, '%c%d')", 'A'+i, r))
			}()
		}
		close(start)
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatalf("round %d: %v", r, err)
			}
		}
		// The two latest writes (automatic compaction may commit COMPACT
		// snapshots in between and after them, which change no row).
		appends := queryStrings(t, dbs[0], "SELECT snapshot_id FROM `u$snapshots` WHERE commit_kind <> 'COMPACT' ORDER BY snapshot_id DESC")
		id, _ := strconv.Atoi(appends[0][0])
		pid, _ := strconv.Atoi(appends[1][0])
		last := queryStrings(t, dbs[0], fmt.Sprintf("SELECT w FROM u AS OF %d", id))[0][0]
		prev := queryStrings(t, dbs[0], fmt.Sprintf("SELECT w FROM u AS OF %d", pid))[0][0]
		now := queryStrings(t, dbs[0], "SELECT w FROM u")[0][0]
		a, b := fmt.Sprintf("A%d", r), fmt.Sprintf("B%d", r)
		if len(appends) != 2*(r+1) || now != last || !(last == a && prev == b || last == b && prev == a) {
			wrong++
			t.Errorf("round %d: %d writes; snapshot %d has w=%s, snapshot %d has w=%s, the table now %s; want %s and %s in commit order, the later commit winning",
				r, len(appends), id, last, pid, prev, now, a, b)
		}
	}
	if wrong > 0 {
		seqs := queryStrings(t, dbs[0], "SELECT min_sequence_number, max_sequence_number FROM `u$files` ORDER BY min_sequence_number")
		t.Logf("%d of %d rounds: the later commit lost; sequence numbers of the data files (each round's two writers share one): %v", wrong, rounds, seqs)
	}
}

// TestSQLConcurrentTransfers: writers on two servers move amounts between
// five accounts in explicit transactions (two UPDATEs each), retrying 1213.
// Every committed transfer must count exactly once: each account ends at
// its start plus the committed transfers' deltas, and the total is kept.
func TestSQLConcurrentTransfers(t *testing.T) {
	wh := t.TempDir()
	s1, s2 := startWriteServer(t, wh), startWriteServer(t, wh)
	dbs := []*sql.DB{s1.open(t, ""), s2.open(t, ""), s1.open(t, ""), s2.open(t, "")}
	scTable(t, dbs[0], "acct", "2")
	const accounts, perWriter = 5, 8
	if _, err := dbs[0].Exec("INSERT INTO acct VALUES (0, 100), (1, 100), (2, 100), (3, 100), (4, 100)"); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var mu sync.Mutex
	want := make([]int64, accounts)
	for i := range want {
		want[i] = 100
	}
	retries := 0
	var wg sync.WaitGroup
	errs := make([]error, len(dbs))
	start := time.Now()
	for w, db := range dbs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := db.Conn(ctx)
			if err != nil {
				errs[w] = err
				return
			}
			defer closeConn(conn)
			for n := 0; n < perWriter; n++ {
				from, to, amt := (w+n)%accounts, (w+2*n+1)%accounts, int64(1+n)
				if from == to {
					to = (to + 1) % accounts
				}
				for attempt := 0; ; attempt++ {
					err := scTransfer(ctx, conn, from, to, amt)
					if err == nil {
						break
					}
					if mysqlErrNo(err) != 1213 || attempt > 100 {
						errs[w] = fmt.Errorf("writer %d transfer %d: %w", w, n, err)
						return
					}
					mu.Lock()
					retries++
					mu.Unlock()
				}
				mu.Lock()
				want[from] -= amt
				want[to] += amt
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	el := time.Since(start)
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var wantRows []string
	for i, v := range want {
		wantRows = append(wantRows, fmt.Sprintf("%d|%d", i, v))
	}
	for i, db := range dbs[:2] {
		var got []string
		for _, r := range queryStrings(t, db, "SELECT k, v FROM acct ORDER BY k") {
			got = append(got, strings.Join(r, "|"))
		}
		if fmt.Sprint(got) != fmt.Sprint(wantRows) {
			t.Errorf("server %d: accounts %v, want %v (a transfer was lost or applied twice)", i+1, got, wantRows)
		}
	}
	t.Logf("%d transfers (2 UPDATEs each) by %d writers on 2 servers in %v: %.0f transactions/s, %d retries on 1213",
		len(dbs)*perWriter, len(dbs), el.Round(time.Millisecond), float64(len(dbs)*perWriter)/el.Seconds(), retries)
}

// scTransfer moves amt from account from to account to in one transaction.
func scTransfer(ctx context.Context, conn *sql.Conn, from, to int, amt int64) error {
	for _, q := range []string{
		"BEGIN",
		fmt.Sprintf("UPDATE acct SET v = v - %d WHERE k = %d", amt, from),
		fmt.Sprintf("UPDATE acct SET v = v + %d WHERE k = %d", amt, to),
		"COMMIT",
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			conn.ExecContext(ctx, "ROLLBACK")
			return err
		}
	}
	return nil
}
