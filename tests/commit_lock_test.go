package tests

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmwrite/compactjob"
	"github.com/lakesql/lakesql/sqlengine"
)

// noConditionalCreate opens the local folder dir as a store whose
// CreateIfNotExists overwrites (an S3-compatible store that ignores
// If-None-Match: *), in itself and in every Sub.
func noConditionalCreate(t *testing.T, dir string) storage.Storage {
	t.Helper()
	st, err := storage.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return storage.NewFaulty(st, &storage.Injector{Overwrite: true})
}

// TestCommitLockWithoutConditionalCreate: two servers on one warehouse
// whose store does not honour conditional create, both configured with
// the same file: commit lock, race read-modify-write UPDATEs and INSERTs
// through the protocol. The servers reach the warehouse by two spellings
// of its path (a symlink), so they share no in-process lock or group
// commit: only the commit lock keeps them from publishing the same
// snapshot id. Model check: every acknowledged increment and row is
// there, read through both servers, and the snapshot ids are consecutive.
func TestCommitLockWithoutConditionalCreate(t *testing.T) {
	dir := t.TempDir()
	wh := filepath.Join(dir, "warehouse")
	if err := os.MkdirAll(wh, 0o755); err != nil {
		t.Fatal(err)
	}
	alias := filepath.Join(dir, "alias")
	if err := os.Symlink(wh, alias); err != nil {
		t.Fatal(err)
	}
	lock := "file:" + filepath.Join(dir, "locks")
	var dbs []*sql.DB
	for _, p := range []string{wh, alias} {
		st := noConditionalCreate(t, p)
		addr := startServerConfig(t, sqlengine.Config{Storage: st, Warehouse: st.URL(), Host: "127.0.0.1", Port: 0, CommitLock: lock})
		db := openWarehouseDB(t, addr, "default", "")
		db.SetMaxOpenConns(8)
		dbs = append(dbs, db)
	}
	const keys = 4
	mustExec(t, dbs[0], "CREATE TABLE c (k INT PRIMARY KEY, v INT)")
	mustExec(t, dbs[0], "CREATE TABLE a (id INT PRIMARY KEY, g INT)")
	mustExec(t, dbs[0], "INSERT INTO c VALUES (0, 0), (1, 0), (2, 0), (3, 0)")

	const perServer, rounds = 4, 20
	var (
		increments [keys]atomic.Int64
		inserted   atomic.Int64
		retries    atomic.Int64
		wg         sync.WaitGroup
		failed     = make(chan error, 2*perServer)
	)
	// exec runs a statement until it commits, retrying on 1213 (nothing
	// was committed then).
	exec := func(db *sql.DB, q string, args ...any) error {
		for attempt := 0; ; attempt++ {
			_, err := db.Exec(q, args...)
			if err == nil {
				return nil
			}
			if mysqlErrNo(err) != 1213 || attempt == 50 {
				return fmt.Errorf("%s: %w", q, err)
			}
			retries.Add(1)
		}
	}
	for s, db := range dbs {
		for g := range perServer {
			wg.Add(1)
			go func() {
				defer wg.Done()
				w := s*perServer + g
				for i := range rounds {
					k := (w + i) % keys
					if err := exec(db, "UPDATE c SET v = v + 1 WHERE k = ?", k); err != nil {
						failed <- err
						return
					}
					increments[k].Add(1)
					if err := exec(db, "INSERT INTO a VALUES (?, ?)", w*1000+i, w); err != nil {
						failed <- err
						return
					}
					inserted.Add(1)
				}
			}()
		}
	}
	wg.Wait()
	close(failed)
	for err := range failed {
		t.Fatal(err)
	}
	for s, db := range dbs {
		for k := range keys {
			var v int64
			if err := db.QueryRow("SELECT v FROM c WHERE k = ?", k).Scan(&v); err != nil {
				t.Fatal(err)
			}
			if want := increments[k].Load(); v != want {
				t.Errorf("server %d: key %d = %d, want %d acknowledged increments (a commit was lost)", s, k, v, want)
			}
		}
		var n int64
		if err := db.QueryRow("SELECT COUNT(*) FROM a").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if want := inserted.Load(); n != want {
			t.Errorf("server %d: %d rows in a, want %d acknowledged inserts", s, n, want)
		}
	}
	for _, table := range []string{"c", "a"} {
		ids := queryStrings(t, dbs[1], fmt.Sprintf("SELECT snapshot_id FROM `%s$snapshots` ORDER BY snapshot_id", table))
		for i, id := range ids {
			if len(id) != 1 || id[0] != strconv.Itoa(i+1) {
				t.Fatalf("%s: snapshot ids %v are not 1 … %d", table, ids, len(ids))
			}
		}
		t.Logf("%s: %d snapshots", table, len(ids))
	}
	t.Logf("%d increments, %d inserts, %d retries on 1213", 2*perServer*rounds, inserted.Load(), retries.Load())
}

// TestCommitLockNotTaken: while another writer holds the commit lock past
// commit-lock-timeout, a commit, a two-table transaction, a tag and a
// CREATE TABLE each fail with MySQL's 1205 naming the lock, change
// nothing and leave the connection usable; once it is released they
// succeed.
func TestCommitLockNotTaken(t *testing.T) {
	dir := t.TempDir()
	lock := "file:" + filepath.Join(dir, "locks")
	st := noConditionalCreate(t, filepath.Join(dir, "warehouse"))
	addr := startServerConfig(t, sqlengine.Config{Storage: st, Warehouse: st.URL(), Host: "127.0.0.1", Port: 0,
		CommitLock: lock, CommitLockTimeout: 200 * time.Millisecond, CompactionWorkers: -1})
	db := openWarehouseDB(t, addr, "default", "")
	mustExec(t, db, "CREATE TABLE t (k INT PRIMARY KEY, v INT)")
	mustExec(t, db, "CREATE TABLE u (k INT PRIMARY KEY)")
	mustExec(t, db, "INSERT INTO t VALUES (1, 1)")

	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	holder, err := storage.ParseLock(lock, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	state := func() string {
		return fmt.Sprint(queryStrings(t, db, "SELECT k, v FROM t ORDER BY k"), queryStrings(t, db, "SELECT k FROM u"),
			queryStrings(t, db, "SELECT snapshot_id FROM `t$snapshots`"), queryStrings(t, db, "SELECT snapshot_id FROM `u$snapshots`"),
			queryStrings(t, db, "SELECT tag_name FROM `t$tags`"), queryStrings(t, db, "SHOW TABLES"))
	}
	cases := []struct {
		key   string // the lock held
		stmts []string
	}{
		{"default.db/t/snapshot", []string{"INSERT INTO t VALUES (2, 2)"}},
		{"default.db/t/snapshot", []string{"UPDATE t SET v = 5 WHERE k = 1"}},
		{"_lakesql/transactions", []string{"BEGIN", "INSERT INTO t VALUES (3, 3)", "INSERT INTO u VALUES (3)", "COMMIT"}},
		{"default.db/t/tag", []string{"CALL sys.create_tag('default.t', 'x', 1)"}},
		{"default.db/z/schema", []string{"CREATE TABLE z (k INT)"}},
	}
	for _, tc := range cases {
		before := state()
		unlock, err := holder.Lock(ctx, tc.key)
		if err != nil {
			t.Fatal(err)
		}
		last := tc.stmts[len(tc.stmts)-1]
		for _, q := range tc.stmts {
			_, err := conn.ExecContext(ctx, q)
			if q != last {
				if err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				continue
			}
			if mysqlErrNo(err) != 1205 || !strings.Contains(err.Error(), "commit lock") || !strings.Contains(err.Error(), "commit-lock-timeout") {
				t.Fatalf("%s with %s locked: %v, want 1205 naming the commit lock and commit-lock-timeout", q, tc.key, err)
			}
		}
		var one int
		if err := conn.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
			t.Fatalf("the connection after %s: %v", last, err)
		}
		if after := state(); after != before {
			t.Fatalf("%s failed on the lock but changed the warehouse:\nbefore %s\nafter  %s", last, before, after)
		}
		if err := unlock(); err != nil {
			t.Fatal(err)
		}
		for _, q := range tc.stmts {
			if _, err := conn.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s once the lock is free: %v", q, err)
			}
		}
	}
	if got := fmt.Sprint(queryStrings(t, db, "SELECT k, v FROM t ORDER BY k"), queryStrings(t, db, "SELECT k FROM u")); got != "[[1 5] [2 2] [3 3]] [[3]]" {
		t.Fatalf("after the lock was free: %s", got)
	}
	// A lock that fails (its folder replaced by a file): an error naming
	// the lock, nothing changed; the folder back, writes work again.
	lockDir := filepath.Join(dir, "locks")
	if err := os.Rename(lockDir, lockDir+".away"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lockDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	before := state()
	for _, q := range []string{"INSERT INTO t VALUES (4, 4)", "CREATE TABLE z2 (k INT)"} {
		_, err := conn.ExecContext(ctx, q)
		if err == nil || !strings.Contains(err.Error(), "commit lock") || !strings.Contains(err.Error(), lockDir) {
			t.Fatalf("%s with a broken lock folder: %v, want an error naming the commit lock %s", q, err, lockDir)
		}
		t.Logf("%s with a broken lock: %v", q, err)
	}
	if after := state(); after != before {
		t.Fatalf("writes that failed on the lock changed the warehouse:\nbefore %s\nafter  %s", before, after)
	}
	if err := os.Remove(lockDir); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(lockDir+".away", lockDir); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, "INSERT INTO t VALUES (4, 4)", "CREATE TABLE z2 (k INT)")
}

// TestCommitLockWaitKilled: KILL QUERY stops a statement that waits for
// the commit lock (1317), long before commit-lock-timeout: its commit runs
// detached from the statement (group commit), but gives up the wait once
// every statement of its batch is gone, having written nothing. The
// connection stays usable.
func TestCommitLockWaitKilled(t *testing.T) {
	dir := t.TempDir()
	lock := "file:" + filepath.Join(dir, "locks")
	st := noConditionalCreate(t, filepath.Join(dir, "warehouse"))
	addr := startServerConfig(t, sqlengine.Config{Storage: st, Warehouse: st.URL(), Host: "127.0.0.1", Port: 0,
		CommitLock: lock, CommitLockTimeout: 10 * time.Minute, CompactionWorkers: -1})
	db := openWarehouseDB(t, addr, "default", "")
	mustExec(t, db, "CREATE TABLE t (k INT PRIMARY KEY, v INT)")
	ctx := context.Background()
	holder, err := storage.ParseLock(lock, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := holder.Lock(ctx, "default.db/t/snapshot")
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var id int64
	if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := conn.ExecContext(ctx, "INSERT INTO t VALUES (1, 1)")
		done <- err
	}()
	// Wait until the INSERT is running, then kill it.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		rows := queryStrings(t, db, "SELECT info FROM information_schema.processlist WHERE id = ?", id)
		if len(rows) == 1 && strings.HasPrefix(rows[0][0], "INSERT") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the INSERT never showed in the process list: %v", rows)
		}
	}
	mustExec(t, db, fmt.Sprintf("KILL QUERY %d", id))
	select {
	case err := <-done:
		if mysqlErrNo(err) != 1317 {
			t.Fatalf("INSERT waiting for the lock, killed: %v, want 1317", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the killed INSERT still waits for the lock after 2 minutes (commit-lock-timeout 10 minutes)")
	}
	t.Logf("ended %v after it started (commit-lock-timeout 10 minutes)", time.Since(start).Round(time.Millisecond))
	if got := queryStrings(t, db, "SELECT COUNT(*) FROM t"); fmt.Sprint(got) != "[[0]]" {
		t.Fatalf("rows after the killed INSERT: %v", got)
	}
	var one int
	if err := conn.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		t.Fatalf("the connection after KILL QUERY: %v", err)
	}
}

// TestCommitLockCompactionJob: `lakesql compact --commit-lock` commits
// under the servers' lock: while the table's lock is held it fails with
// ErrLockTimeout and commits nothing, once free it compacts; a lock
// setting that is not one is a usage error.
func TestCommitLockCompactionJob(t *testing.T) {
	dir := t.TempDir()
	wh := filepath.Join(dir, "warehouse")
	lock := "file:" + filepath.Join(dir, "locks")
	st := noConditionalCreate(t, wh)
	addr := startServerConfig(t, sqlengine.Config{Storage: st, Warehouse: st.URL(), Host: "127.0.0.1", Port: 0, CommitLock: lock, CompactionWorkers: -1})
	db := openWarehouseDB(t, addr, "default", "")
	mustExec(t, db, "CREATE TABLE j (k INT PRIMARY KEY, v INT) WITH ('write-only' = 'true')")
	for i := range 3 {
		mustExec(t, db, fmt.Sprintf("INSERT INTO j VALUES (%d, %d)", i, i))
	}
	snapshots := func() string {
		return fmt.Sprint(queryStrings(t, db, "SELECT snapshot_id, commit_kind FROM `j$snapshots`"))
	}
	before := snapshots()
	ctx := context.Background()
	holder, err := storage.ParseLock(lock, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := holder.Lock(ctx, "default.db/j/snapshot")
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"--warehouse", wh, "--table", "default.j", "--full", "--commit-lock", lock}
	var out, prog bytes.Buffer
	err = compactjob.Run(ctx, &out, &prog, append(args, "--commit-lock-timeout", "200ms"))
	if !errors.Is(err, storage.ErrLockTimeout) {
		t.Fatalf("compact with the table's lock held: %v, want ErrLockTimeout", err)
	}
	if after := snapshots(); after != before {
		t.Fatalf("a compaction that did not get the lock committed: %s → %s", before, after)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	if err := compactjob.Run(ctx, &out, &prog, args); err != nil {
		t.Fatalf("compact once the lock is free: %v\n%s", err, prog.String())
	}
	if got := queryStrings(t, db, "SELECT commit_kind FROM `j$snapshots` ORDER BY snapshot_id DESC LIMIT 1"); fmt.Sprint(got) != "[[COMPACT]]" {
		t.Fatalf("last snapshot after the compaction: %v", got)
	}
	if got := fmt.Sprint(queryStrings(t, db, "SELECT k, v FROM j ORDER BY k")); got != "[[0 0] [1 1] [2 2]]" {
		t.Fatalf("rows after the compaction: %s", got)
	}
	var ue compactjob.UsageError
	if err := compactjob.Run(ctx, &out, &prog, []string{"--warehouse", wh, "--table", "default.j", "--commit-lock", "zk:x"}); !errors.As(err, &ue) {
		t.Fatalf("--commit-lock zk:x: %v, want a usage error", err)
	}
}

// TestCommitLockRacesOnEveryCreate: the other creates that must have one
// winner, raced by two servers on a store without conditional create that
// share a commit lock: the same CREATE TABLE (schema-0), the same tag, and
// account changes (the accounts file's next version). Each CREATE TABLE
// and tag has exactly one winner, and every account either server created
// logs in on both servers (none lost to an overwritten accounts file).
func TestCommitLockRacesOnEveryCreate(t *testing.T) {
	dir := t.TempDir()
	wh := filepath.Join(dir, "warehouse")
	if err := os.MkdirAll(wh, 0o755); err != nil {
		t.Fatal(err)
	}
	alias := filepath.Join(dir, "alias")
	if err := os.Symlink(wh, alias); err != nil {
		t.Fatal(err)
	}
	lock := "file:" + filepath.Join(dir, "locks")
	var (
		dbs   []*sql.DB
		addrs []string
	)
	for _, p := range []string{wh, alias} {
		st := noConditionalCreate(t, p)
		addr := startServerConfig(t, sqlengine.Config{Storage: st, Warehouse: st.URL(), Host: "127.0.0.1", Port: 0, CommitLock: lock, CompactionWorkers: -1})
		addrs = append(addrs, addr)
		dbs = append(dbs, openWarehouseDB(t, addr, "default", ""))
	}
	mustExec(t, dbs[0], "CREATE TABLE c (k INT PRIMARY KEY, v INT)")
	mustExec(t, dbs[0], "INSERT INTO c VALUES (1, 1)")
	// race runs q(s) on both servers at once and returns their errors.
	race := func(q func(s int) string) [2]error {
		var errs [2]error
		var wg sync.WaitGroup
		start := make(chan struct{})
		for s := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for attempt := 0; ; attempt++ {
					_, errs[s] = dbs[s].Exec(q(s))
					if mysqlErrNo(errs[s]) != 1213 || attempt == 20 {
						return
					}
				}
			}()
		}
		close(start)
		wg.Wait()
		return errs
	}
	const rounds = 12
	for i := range rounds {
		for _, q := range []func(int) string{
			func(int) string { return fmt.Sprintf("CREATE TABLE r%d (k INT PRIMARY KEY)", i) },
			func(int) string { return fmt.Sprintf("CALL sys.create_tag('default.c', 't%d', 1)", i) },
		} {
			errs := race(q)
			if (errs[0] == nil) == (errs[1] == nil) {
				t.Fatalf("%s on both servers at once: %v / %v, want exactly one to succeed", q(0), errs[0], errs[1])
			}
		}
		errs := race(func(s int) string { return fmt.Sprintf("CREATE USER 'u%d_%d'@'%%' IDENTIFIED BY 'pw'", s, i) })
		for s, err := range errs {
			if err != nil {
				t.Fatalf("CREATE USER u%d_%d: %v", s, i, err)
			}
		}
	}
	if n := len(queryStrings(t, dbs[1], "SHOW TABLES")); n != rounds+1 {
		t.Errorf("%d tables, want %d", n, rounds+1)
	}
	if n := len(queryStrings(t, dbs[1], "SELECT tag_name FROM `c$tags`")); n != rounds {
		t.Errorf("%d tags, want %d", n, rounds)
	}
	for _, addr := range addrs {
		for s := range 2 {
			for i := range rounds {
				u, err := sql.Open("mysql", fmt.Sprintf("u%d_%d:pw@tcp(%s)/", s, i, addr))
				if err != nil {
					t.Fatal(err)
				}
				err = u.Ping()
				u.Close()
				if err != nil {
					t.Fatalf("account u%d_%d on %s: %v (its creation was lost)", s, i, addr, err)
				}
			}
		}
	}
}
