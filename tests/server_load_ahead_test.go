package tests

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/provider"
)

// A LOAD DATA in autocommit mode into a primary-key table writes its rows
// as level-0 files whenever the write buffer fills, while it runs
// (provider.Loader, lsmwrite.WriteStatement); the commit publishes them.
// TestLoadAheadEqualsInsertPath loads random files with a tiny
// write-buffer-size (so rows of one key fall in several flushes) into
// tables of every merge engine, with and without deletion vectors, fixed
// and dynamic buckets, partitioned or not, on top of committed rows; and
// loads the same file through GMS's INSERT path (lakesql_load_direct = 0,
// whose rows are buffered and written at commit) into a twin table. Both
// tables must read back the same rows.

// loadAheadTable is one random table definition of the test.
func loadAheadTable(r *rand.Rand) string {
	opts := []string{"'write-buffer-size' = '" + []string{"4 kb", "16 kb", "64 kb"}[r.Intn(3)] + "'"}
	switch r.Intn(3) {
	case 0:
		opts = append(opts, "'bucket' = '1'")
	case 1:
		opts = append(opts, "'bucket' = '4'")
	default:
		opts = append(opts, "'bucket' = '-1'", "'dynamic-bucket.target-row-num' = '200'")
	}
	engine := []string{"deduplicate", "partial-update", "aggregation", "first-row"}[r.Intn(4)]
	opts = append(opts, "'merge-engine' = '"+engine+"'")
	if engine == "aggregation" {
		opts = append(opts, "'fields.v.aggregate-function' = 'sum'", "'fields.w.aggregate-function' = 'max'", "'fields.s.aggregate-function' = 'last_non_null_value'")
	}
	if engine != "first-row" && r.Intn(2) == 0 {
		opts = append(opts, "'deletion-vectors.enabled' = 'true'")
	}
	part := ""
	if r.Intn(2) == 0 {
		part = " PARTITIONED BY (p)"
	}
	return "CREATE TABLE %s (id INT NOT NULL, p INT NOT NULL, v BIGINT, w INT, s VARCHAR(20), PRIMARY KEY (id, p) NOT ENFORCED)" +
		part + " WITH (" + strings.Join(opts, ", ") + ")"
}

func TestLoadAheadEqualsInsertPath(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	trials := 16
	if testing.Short() {
		trials = 6
	}
	wh, dir := t.TempDir(), t.TempDir()
	addr := startFilesServer(t, wh, dir)
	mustExec(t, openWarehouseDB(t, addr, "", ""), "CREATE DATABASE lah")
	db := openWarehouseDB(t, addr, "lah", "")
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	null := func(v string) string {
		if r.Intn(5) == 0 {
			return `\N`
		}
		return v
	}
	for trial := 0; trial < trials; trial++ {
		ddl := loadAheadTable(r)
		keys := 50 + r.Intn(400)
		var file strings.Builder
		rows := 500 + r.Intn(3000)
		for range rows {
			fmt.Fprintf(&file, "%d,%d,%s,%s,%s\n", r.Intn(keys), r.Intn(3), null(fmt.Sprint(r.Intn(1000)-500)),
				null(fmt.Sprint(r.Intn(100))), null(fmt.Sprintf("s%d", r.Intn(1000))))
		}
		p := filepath.Join(dir, fmt.Sprintf("f%d.csv", trial))
		if err := os.WriteFile(p, []byte(file.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		// Rows committed before the LOAD (its rows merge with them).
		var pre strings.Builder
		for k := 0; k < keys; k += 1 + r.Intn(5) {
			if pre.Len() > 0 {
				pre.WriteString(", ")
			}
			fmt.Fprintf(&pre, "(%d, %d, %d, %d, 'pre%d')", k, r.Intn(3), r.Intn(100), r.Intn(100), k)
		}
		var res [2][][]string
		for k, direct := range []int{1, 0} {
			table := fmt.Sprintf("t%d_%d", trial, k)
			mustExec(t, conn, fmt.Sprintf(ddl, table), "INSERT INTO "+table+" VALUES "+pre.String(),
				fmt.Sprintf("SET lakesql_load_direct = %d", direct))
			rows0, files0 := provider.LoadedRows(), provider.LoadAheadFiles()
			out, err := conn.ExecContext(ctx, fmt.Sprintf("LOAD DATA INFILE '%s' INTO TABLE %s FIELDS TERMINATED BY ','", p, table))
			if err != nil {
				t.Fatalf("trial %d: %s: LOAD: %v", trial, fmt.Sprintf(ddl, table), err)
			}
			if n, _ := out.RowsAffected(); n != int64(rows) {
				t.Errorf("trial %d: %d rows affected, want %d", trial, n, rows)
			}
			if direct == 1 {
				if got := provider.LoadedRows() - rows0; got != int64(rows) {
					t.Errorf("trial %d: the direct path loaded %d rows, want %d", trial, got, rows)
				}
				// Several flushes of a buffer that holds a few hundred rows.
				if got := provider.LoadAheadFiles() - files0; got < 2 {
					t.Errorf("trial %d: %s: the LOAD wrote %d files before its commit, want several", trial, ddl, got)
				}
			} else if provider.LoadAheadFiles() != files0 {
				t.Errorf("trial %d: GMS's path wrote files ahead", trial)
			}
			res[k] = queryStrings(t, conn, "SELECT id, p, v, w, s FROM "+table+" ORDER BY id, p")
		}
		if !slices.EqualFunc(res[0], res[1], slices.Equal) {
			t.Errorf("trial %d: %s\nLOAD written ahead (%d rows):\n%v\nINSERT path (%d rows):\n%v", trial, ddl, len(res[0]), res[0], len(res[1]), res[1])
		}
		if len(res[0]) == 0 {
			t.Errorf("trial %d: no rows", trial)
		}
	}
}

// TestLoadAheadFailureLeavesNothing: a LOAD that fails after its buffer
// became files (a bad value past the first flushes) leaves the table as it
// was — its rows, and not one file more in the table's folder — in
// autocommit mode (the files written ahead are deleted) and inside
// BEGIN … ROLLBACK; a LOAD of an empty file changes nothing either.
func TestLoadAheadFailureLeavesNothing(t *testing.T) {
	wh, dir := t.TempDir(), t.TempDir()
	addr := startFilesServer(t, wh, dir)
	mustExec(t, openWarehouseDB(t, addr, "", ""), "CREATE DATABASE laf")
	db := openWarehouseDB(t, addr, "laf", "")
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var good, bad strings.Builder
	for k := range 5000 {
		fmt.Fprintf(&good, "%d,%d,s%d\n", k, k%7, k)
		if k == 4000 {
			bad.WriteString("4000,x,bad\n")
			continue
		}
		fmt.Fprintf(&bad, "%d,%d,t%d\n", k, k*2, k)
	}
	pGood, pBad, pEmpty := filepath.Join(dir, "good.csv"), filepath.Join(dir, "bad.csv"), filepath.Join(dir, "empty.csv")
	for p, s := range map[string]string{pGood: good.String(), pBad: bad.String(), pEmpty: ""} {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	load := func(p string) error {
		_, err := conn.ExecContext(ctx, fmt.Sprintf("LOAD DATA INFILE '%s' INTO TABLE t FIELDS TERMINATED BY ','", p))
		return err
	}
	folder := filepath.Join(wh, "laf.db", "t")
	files := func() []string {
		var out []string
		err := filepath.WalkDir(folder, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				out = append(out, strings.TrimPrefix(path, folder))
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, ddl := range []string{
		"CREATE TABLE t (id INT NOT NULL, v INT, s VARCHAR(10), PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '4', 'write-buffer-size' = '16 kb')",
		"CREATE TABLE t (id INT NOT NULL, v INT, s VARCHAR(10), PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '-1', 'write-buffer-size' = '16 kb', 'deletion-vectors.enabled' = 'true')",
	} {
		mustExec(t, conn, "DROP TABLE IF EXISTS t", ddl)
		if err := load(pGood); err != nil {
			t.Fatal(err)
		}
		want := queryStrings(t, conn, "SELECT * FROM t ORDER BY id")
		before := files()
		files0 := provider.LoadAheadFiles()
		if err := load(pBad); mysqlErrNo(err) != 1366 {
			t.Fatalf("%s: LOAD with a bad value: %v, want 1366", ddl, err)
		}
		if got := files(); !slices.Equal(got, before) {
			t.Errorf("%s: a failed LOAD changed the table's folder:\nbefore %v\nafter  %v", ddl, before, got)
		}
		if got := queryStrings(t, conn, "SELECT * FROM t ORDER BY id"); !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("%s: rows changed by a failed LOAD (%d rows, want %d)", ddl, len(got), len(want))
		}
		if provider.LoadAheadFiles() != files0 {
			t.Errorf("%s: a failed LOAD counted files written ahead", ddl)
		}
		snaps := snapshotCount(t, conn, "t")
		if err := load(pEmpty); err != nil {
			t.Fatal(err)
		}
		if got := files(); !slices.Equal(got, before) || snapshotCount(t, conn, "t") != snaps {
			t.Errorf("%s: a LOAD of an empty file changed the table's folder or snapshots:\nbefore %v\nafter  %v", ddl, before, got)
		}
		mustExec(t, conn, "BEGIN")
		if err := load(pBad); mysqlErrNo(err) != 1366 {
			t.Fatalf("%s: LOAD with a bad value in a transaction: %v, want 1366", ddl, err)
		}
		if err := load(pGood); err != nil {
			t.Fatal(err)
		}
		mustExec(t, conn, "ROLLBACK")
		if got := files(); !slices.Equal(got, before) {
			t.Errorf("%s: a rolled back transaction changed the table's folder:\nbefore %v\nafter  %v", ddl, before, got)
		}
		if got := queryStrings(t, conn, "SELECT * FROM t ORDER BY id"); !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("%s: rows changed by a rolled back transaction", ddl)
		}
		// The next LOAD commits as usual.
		if err := load(pGood); err != nil {
			t.Fatal(err)
		}
		if provider.LoadAheadFiles() == files0 {
			t.Errorf("%s: a LOAD of 5000 rows with a 16 kb buffer wrote no file before its commit", ddl)
		}
	}
}
