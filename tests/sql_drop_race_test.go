package tests

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// DDL racing DML through SQL, on two servers over one warehouse (each
// with its own catalog; a DROP on one, the writes on the other): DROP
// TABLE racing INSERTs removes everything (no snapshot/, manifest/,
// bucket-N/ or index/ left behind), an INSERT racing it either commits
// before the drop or fails with 1146, a table created again under the
// same name starts clean, and DROP DATABASE racing CREATE TABLE leaves no
// table and no schema-less folder.

// filesBelow lists the files (not folders) below dir; a missing dir has
// none.
func filesBelow(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// dropRaceAck is one INSERT of a writer: its key, when it was sent and
// answered, and whether it was acknowledged.
type dropRaceAck struct {
	key        int64
	start, end time.Time
	ok         bool
	unknown    bool // the client gave up waiting
}

func TestSQLDropTableRacingInserts(t *testing.T) {
	wh := t.TempDir()
	a, b := startWriteServer(t, wh), startWriteServer(t, wh)
	dbA, dbB := a.open(t, ""), b.open(t, "")
	dbB.SetMaxOpenConns(8)
	tableDir := filepath.Join(wh, "default.db", "r")
	const trials, writers = 5, 4
	var next atomic.Int64
	for trial := range trials {
		if _, err := dbA.Exec("CREATE TABLE r (k BIGINT, v BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '2')"); err != nil {
			t.Fatalf("trial %d: CREATE TABLE: %v", trial, err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		var (
			mu   sync.Mutex
			acks []dropRaceAck
			bad  []error
			wg   sync.WaitGroup
		)
		for range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ctx.Err() == nil {
					k := next.Add(1)
					start := time.Now()
					_, err := dbB.ExecContext(ctx, fmt.Sprintf("INSERT INTO r VALUES (%d, %d), (%d, %d)", k, k, -k, k))
					ack := dropRaceAck{key: k, start: start, end: time.Now(), ok: err == nil}
					if err != nil && ctx.Err() != nil {
						ack.unknown = true // canceled: the outcome is unknown
					}
					mu.Lock()
					acks = append(acks, ack)
					// 1146: the table is gone (or was dropped while the
					// INSERT committed); 1213: a retryable conflict.
					if err != nil && !ack.unknown && mysqlErrNo(err) != 1146 && mysqlErrNo(err) != 1213 {
						bad = append(bad, err)
					}
					mu.Unlock()
				}
			}()
		}
		// Some INSERTs commit first (counted, not timed: the machine may
		// be slow).
		acked := func(after time.Time) int {
			mu.Lock()
			defer mu.Unlock()
			n := 0
			for _, a := range acks {
				if a.ok && a.start.After(after) {
					n++
				}
			}
			return n
		}
		waitAcks := func(after time.Time, n int) {
			for deadline := time.Now().Add(30 * time.Second); acked(after) < n && time.Now().Before(deadline); {
				time.Sleep(10 * time.Millisecond)
			}
		}
		waitAcks(time.Time{}, 3+trial)
		dropStart := time.Now()
		if _, err := dbA.Exec("DROP TABLE r"); err != nil {
			t.Fatalf("trial %d: DROP TABLE: %v", trial, err)
		}
		dropEnd := time.Now()
		time.Sleep(100 * time.Millisecond) // INSERTs racing the drop finish and fail
		// The table again, with the writers still running.
		if _, err := dbA.Exec("CREATE TABLE r (k BIGINT, v BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '2')"); err != nil {
			t.Fatalf("trial %d: CREATE TABLE again: %v", trial, err)
		}
		createEnd := time.Now()
		waitAcks(createEnd, 3)
		cancel()
		wg.Wait()
		if len(bad) > 0 {
			t.Fatalf("trial %d: INSERTs failed otherwise than with 1146: %v", trial, bad)
		}
		// The new table: every row one an acknowledged INSERT wrote, every
		// INSERT sent after it was created there, none acknowledged
		// before the drop started.
		rows := queryStrings(t, dbA, "SELECT k FROM r")
		have := map[int64]bool{}
		for _, r := range rows {
			k, _ := strconv.ParseInt(r[0], 10, 64)
			have[k] = true
		}
		for k := range have { // an INSERT wrote both rows or none
			if !have[-k] {
				t.Errorf("trial %d: key %d is in the table without key %d: a torn INSERT", trial, k, -k)
			}
		}
		var okBefore, failed, okAfter int
		byKey := map[int64]dropRaceAck{}
		for _, ack := range acks {
			byKey[ack.key] = ack
			switch {
			case ack.unknown:
			case !ack.ok:
				failed++
				if have[ack.key] {
					t.Errorf("trial %d: key %d is in the new table, but its INSERT failed", trial, ack.key)
				}
			case ack.end.Before(dropStart):
				okBefore++
				if have[ack.key] {
					t.Errorf("trial %d: key %d, acknowledged before DROP TABLE, is in the table created again", trial, ack.key)
				}
			case ack.start.After(createEnd):
				okAfter++
				if !have[ack.key] {
					t.Errorf("trial %d: key %d, acknowledged after CREATE TABLE, is not in the table", trial, ack.key)
				}
			}
		}
		for k := range have {
			if a, ok := byKey[max(k, -k)]; !ok || (!a.ok && !a.unknown) {
				t.Errorf("trial %d: key %d is in the new table, but no INSERT of it was acknowledged", trial, k)
			}
		}
		if okBefore == 0 || okAfter == 0 {
			t.Errorf("trial %d: %d INSERTs acknowledged before the drop and %d after the create: the race was not run", trial, okBefore, okAfter)
		}
		t.Logf("trial %d: drop took %v; %d INSERTs acknowledged before the drop, %d failed, %d acknowledged in the new table (%d keys)",
			trial, dropEnd.Sub(dropStart).Round(time.Millisecond), okBefore, failed, okAfter, len(have)/2)
		// Dropped for good: nothing of the table is left.
		if _, err := dbA.Exec("DROP TABLE r"); err != nil {
			t.Fatalf("trial %d: DROP TABLE: %v", trial, err)
		}
		// Statements the canceled clients left running may still be
		// writing and then taking their files back: wait for them.
		for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if _, err := os.Stat(tableDir); errors.Is(err, fs.ErrNotExist) {
				break
			}
		}
		if files := filesBelow(t, tableDir); len(files) > 0 {
			t.Fatalf("trial %d: DROP TABLE left %d files behind: %v", trial, len(files), files)
		}
		if _, err := os.Stat(tableDir); !errors.Is(err, fs.ErrNotExist) {
			out, _ := exec.Command("find", tableDir).CombinedOutput()
			t.Fatalf("trial %d: DROP TABLE left the folder %s behind (%v): %s", trial, tableDir, err, out)
		}
	}
}

func TestSQLDropDatabaseRacingCreateTable(t *testing.T) {
	wh := t.TempDir()
	a, b := startWriteServer(t, wh), startWriteServer(t, wh)
	dbA, dbB := a.open(t, ""), b.open(t, "")
	dbDir := filepath.Join(wh, "rdb.db")
	const trials, creators = 5, 3
	for trial := range trials {
		if _, err := dbA.Exec("CREATE DATABASE rdb"); err != nil {
			t.Fatalf("trial %d: CREATE DATABASE: %v", trial, err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		var (
			mu      sync.Mutex
			created int
			bad     []error
			wg      sync.WaitGroup
			next    atomic.Int64
		)
		for range creators {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ctx.Err() == nil {
					n := next.Add(1)
					_, err := dbB.ExecContext(ctx, fmt.Sprintf("CREATE TABLE rdb.t%d (k BIGINT, v BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '1')", n))
					if err == nil {
						_, err = dbB.ExecContext(ctx, fmt.Sprintf("INSERT INTO rdb.t%d VALUES (1, 1)", n))
					}
					mu.Lock()
					switch {
					case err == nil:
						created++
					case ctx.Err() != nil:
					case mysqlErrNo(err) == 1049 || mysqlErrNo(err) == 1146: // the database (or table) is gone
					default:
						bad = append(bad, err)
					}
					mu.Unlock()
				}
			}()
		}
		time.Sleep(time.Duration(200+50*trial) * time.Millisecond)
		if _, err := dbA.Exec("DROP DATABASE rdb"); err != nil {
			t.Fatalf("trial %d: DROP DATABASE: %v", trial, err)
		}
		time.Sleep(100 * time.Millisecond) // creates racing the drop finish and fail
		cancel()
		wg.Wait()
		if len(bad) > 0 {
			t.Fatalf("trial %d: CREATE TABLE/INSERT failed otherwise than with 1049/1146: %v", trial, bad)
		}
		if created == 0 {
			t.Errorf("trial %d: no table was created before the drop: the race was not run", trial)
		}
		// Statements the canceled clients left running may still be
		// taking their files back: wait for them.
		for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if _, err := os.Stat(dbDir); errors.Is(err, fs.ErrNotExist) {
				break
			}
		}
		for i, db := range []*sql.DB{dbA, dbB} {
			for _, r := range queryStrings(t, db, "SHOW DATABASES") {
				if r[0] == "rdb" {
					t.Fatalf("trial %d: database rdb is still listed by server %d after DROP DATABASE (files: %v)", trial, i+1, filesBelow(t, dbDir))
				}
			}
		}
		if files := filesBelow(t, dbDir); len(files) > 0 {
			t.Fatalf("trial %d: DROP DATABASE left %d files behind: %v", trial, len(files), files)
		}
		if _, err := os.Stat(dbDir); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("trial %d: DROP DATABASE left the folder %s behind (%v)", trial, dbDir, err)
		}
		t.Logf("trial %d: %d tables created before the drop", trial, created)
	}
}
