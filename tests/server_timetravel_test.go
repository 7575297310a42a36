package tests

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/testutil"
)

// The time-travel tests use pk_table_scan_and_read_mor (PK (f0, f1, f2),
// partitioned by f1, 2 buckets, snapshots 1..5; 3 is a compaction of 2) and
// its expected rows at the latest snapshot (case 0) and at snapshot 2
// (case 1).
const ttTable = "pk_table_scan_and_read_mor"

type ttFixture struct {
	latest, snap2 []string // rows as "f0|f1|f2|f3", sorted
	commitMillis  map[int64]int64
}

func loadTTFixture(t *testing.T) ttFixture {
	t.Helper()
	root := testutil.FixturesDir(t)
	exp := readExpectedFile(t, filepath.Join(root, "expected", ttTable+".json"))
	rows := func(c expectedCase) []string {
		if !slices.Equal(c.Columns, []string{"f0", "f1", "f2", "f3"}) {
			t.Fatalf("case columns %q", c.Columns)
		}
		var out []string
		for _, r := range c.Rows {
			out = append(out, fmt.Sprintf("%v|%v|%v|%s", r[0], r[1], r[2], normFloat(fmt.Sprint(r[3]))))
		}
		slices.Sort(out)
		return out
	}
	if exp.Cases[0].Snapshot != nil || exp.Cases[1].Snapshot == nil || *exp.Cases[1].Snapshot != 2 {
		t.Fatal("expected cases 0 (latest) and 1 (snapshot 2)")
	}
	f := ttFixture{latest: rows(exp.Cases[0]), snap2: rows(exp.Cases[1]), commitMillis: map[int64]int64{}}
	snaps, _ := filepath.Glob(filepath.Join(root, exp.TablePath, "snapshot", "snapshot-*"))
	for _, p := range snaps {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			ID         int64 `json:"id"`
			TimeMillis int64 `json:"timeMillis"`
		}
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		f.commitMillis[s.ID] = s.TimeMillis
	}
	if len(f.commitMillis) != 5 {
		t.Fatalf("want snapshots 1..5, found %v", f.commitMillis)
	}
	return f
}

// ttRows runs a SELECT f0, f1, f2, f3 query and returns its rows as
// "f0|f1|f2|f3", sorted.
func ttRows(t *testing.T, q queryer, query string, args ...any) []string {
	t.Helper()
	var out []string
	for _, r := range queryStrings(t, q, query, args...) {
		for i := 3; i < len(r); i++ {
			r[i] = normFloat(r[i])
		}
		out = append(out, strings.Join(r, "|"))
	}
	slices.Sort(out)
	return out
}

func TestServerTimeTravelSpellings(t *testing.T) {
	db := serverDB(t)
	f := loadTTFixture(t)
	sel := "SELECT f0, f1, f2, f3 FROM " + ttTable
	if got := ttRows(t, db, sel); !slices.Equal(got, f.latest) {
		t.Errorf("latest:\n got %q\nwant %q", got, f.latest)
	}
	// Snapshot 3 compacted snapshot 2: same rows.
	for _, q := range []string{
		sel + " AS OF 2",
		sel + " AS OF 3",
		sel + " AS OF '3'",
		sel + " FOR VERSION AS OF 3",
		sel + " AS OF 3 AS t WHERE t.f3 IS NOT NULL OR t.f3 IS NULL",
	} {
		t.Run(q, func(t *testing.T) {
			if got := ttRows(t, db, q); !slices.Equal(got, f.snap2) {
				t.Errorf("%s:\n got %q\nwant %q", q, got, f.snap2)
			}
		})
	}
}

// normFloat spells a DOUBLE the same whether it came from JSON (11.0) or
// MySQL (11).
func normFloat(s string) string {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return s
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func rowsText(rows [][]any) []string {
	var out []string
	for _, r := range rows {
		parts := make([]string, len(r))
		for i, v := range r {
			parts[i] = textOf(v)
			if i >= 3 {
				parts[i] = normFloat(parts[i])
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	slices.Sort(out)
	return out
}

// TestServerTimeTravelTimestamp: FOR SYSTEM_TIME AS OF TIMESTAMP '…' picks
// the latest snapshot committed at or before that time (snapshot JSON
// timeMillis, UTC).
func TestServerTimeTravelTimestamp(t *testing.T) {
	db := serverDB(t)
	f := loadTTFixture(t)
	sel := "SELECT f0, f1, f2, f3 FROM " + ttTable
	for _, snap := range []int64{1, 2, 4} {
		// Halfway between this snapshot's commit and the next one's.
		ms := f.commitMillis[snap] + (f.commitMillis[snap+1]-f.commitMillis[snap])/2
		ts := time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05.000")
		want := ttRows(t, db, fmt.Sprintf("%s AS OF %d", sel, snap))
		for _, q := range []string{
			fmt.Sprintf("%s FOR SYSTEM_TIME AS OF TIMESTAMP '%s'", sel, ts),
			fmt.Sprintf("%s AS OF TIMESTAMP('%s')", sel, ts),
		} {
			if got := ttRows(t, db, q); !slices.Equal(got, want) {
				t.Errorf("%s (between snapshots %d and %d): rows differ from AS OF %d\n got %q\nwant %q", q, snap, snap+1, snap, got, want)
			}
		}
	}
	// Before the first snapshot: an error, not the latest rows.
	first := time.UnixMilli(f.commitMillis[1] - 60_000).UTC().Format("2006-01-02 15:04:05")
	q := fmt.Sprintf("%s FOR SYSTEM_TIME AS OF TIMESTAMP '%s'", sel, first)
	if _, rows, err := queryRows(context.Background(), db, q); err == nil {
		t.Errorf("%s: want an error (before the first snapshot), got %d rows", q, len(rows))
	} else {
		t.Logf("%s: %v", q, err)
	}
}

// TestServerTimeTravelSelfJoin joins the table at snapshot 2 with itself at
// the latest snapshot: both sides must keep their own snapshot.
func TestServerTimeTravelSelfJoin(t *testing.T) {
	db := serverDB(t)
	f := loadTTFixture(t)
	old := map[string]string{}
	for _, r := range f.snap2 {
		p := strings.Split(r, "|")
		old[strings.Join(p[:3], "|")] = p[3]
	}
	var want []string
	for _, r := range f.latest {
		p := strings.Split(r, "|")
		if v, ok := old[strings.Join(p[:3], "|")]; ok {
			want = append(want, strings.Join(p[:3], "|")+"|"+v+"|"+p[3])
		}
	}
	slices.Sort(want)
	q := `SELECT o.f0, o.f1, o.f2, o.f3, n.f3 FROM ` + ttTable + ` AS OF 2 AS o
		JOIN ` + ttTable + ` AS n ON o.f0 = n.f0 AND o.f1 = n.f1 AND o.f2 = n.f2`
	if got := ttRows(t, db, q); !slices.Equal(got, want) {
		t.Errorf("%s:\n got %q\nwant %q", q, got, want)
	}
	// The same with the past on the right-hand side, and with AS OF 5
	// (the latest snapshot) against AS OF 2.
	q = `SELECT o.f0, o.f1, o.f2, o.f3, n.f3 FROM ` + ttTable + ` AS OF 5 AS n
		JOIN ` + ttTable + ` AS OF 2 AS o ON o.f0 = n.f0 AND o.f1 = n.f1 AND o.f2 = n.f2`
	if got := ttRows(t, db, q); !slices.Equal(got, want) {
		t.Errorf("%s:\n got %q\nwant %q", q, got, want)
	}
	// Rows deleted since snapshot 2 (anti-join).
	var gone []string
	latestKeys := map[string]bool{}
	for _, r := range f.latest {
		p := strings.Split(r, "|")
		latestKeys[strings.Join(p[:3], "|")] = true
	}
	for _, r := range f.snap2 {
		p := strings.Split(r, "|")
		if !latestKeys[strings.Join(p[:3], "|")] {
			gone = append(gone, r)
		}
	}
	q = `SELECT o.f0, o.f1, o.f2, o.f3 FROM ` + ttTable + ` AS OF 2 AS o
		LEFT JOIN ` + ttTable + ` AS n ON o.f0 = n.f0 AND o.f1 = n.f1 AND o.f2 = n.f2 WHERE n.f0 IS NULL`
	if got := ttRows(t, db, q); !slices.Equal(got, gone) {
		t.Errorf("%s:\n got %q\nwant %q", q, got, gone)
	}
}

// TestServerTimeTravelErrors: an unknown snapshot or tag is an error naming
// it, and the connection keeps working.
func TestServerTimeTravelErrors(t *testing.T) {
	ctx := context.Background()
	conn, err := serverDB(t).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, c := range []struct{ q, names string }{
		{"SELECT * FROM " + ttTable + " AS OF 99", "99"},
		{"SELECT * FROM " + ttTable + " AS OF '99'", "99"},
		{"SELECT * FROM " + ttTable + " AS OF 'no_such_tag'", "no_such_tag"},
		{"SELECT * FROM `" + ttTable + "$branch_no_such_branch`", "no_such_branch"},
		{"SELECT * FROM `" + ttTable + "$branch_no_such_branch` AS OF 1", "no_such_branch"},
		{"SELECT * FROM `" + ttTable + "$branch_no_such_branch$snapshots`", "no_such_branch"},
		{"SELECT * FROM `" + ttTable + "$branch_no_such_branch$audit_log` FOR VERSION BETWEEN 1 AND 2", "no_such_branch"},
	} {
		_, rows, err := queryRows(ctx, conn, c.q)
		if err == nil {
			t.Errorf("%s: want an error, got %d rows", c.q, len(rows))
		} else if mysqlErrNo(err) == 0 || !strings.Contains(err.Error(), c.names) {
			t.Errorf("%s: error %q is not a MySQL error naming %q", c.q, err, c.names)
		} else if !strings.Contains(c.q, "$branch") && mysqlErrNo(err) != 1210 {
			t.Errorf("%s: error %d, want 1210 (ER_WRONG_ARGUMENTS: no such snapshot or tag)", c.q, mysqlErrNo(err))
		} else if strings.Contains(c.q, "$branch") && mysqlErrNo(err) != 1146 {
			t.Errorf("%s: error %d, want 1146 (ER_NO_SUCH_TABLE: no such branch)", c.q, mysqlErrNo(err))
		} else {
			t.Logf("%s: %v", c.q, err)
		}
		if got := queryStrings(t, conn, "SELECT COUNT(*) FROM "+ttTable+" AS OF 2"); got[0][0] != "8" {
			t.Errorf("after %s: the connection answers COUNT(*) = %q, want 8", c.q, got[0][0])
		}
	}
}

// TestServerTimeTravelPrepared: a server-side prepared AS OF ? (GMS panics
// on it and drops the connection) must give a correct answer or an error,
// and the server must keep serving.
func TestServerTimeTravelPrepared(t *testing.T) {
	ctx := context.Background()
	f := loadTTFixture(t)
	db := openServerDB(t, "parseTime=true&interpolateParams=false")
	db.SetMaxOpenConns(1)
	for _, arg := range []any{int64(2), "2"} {
		q := "SELECT f0, f1, f2, f3 FROM " + ttTable + " AS OF ?"
		_, rows, err := queryRows(ctx, db, q, arg)
		switch {
		case err != nil:
			t.Logf("prepared %s with %T %v: %v (error number %d)", q, arg, arg, err, mysqlErrNo(err))
			if mysqlErrNo(err) == 0 {
				t.Errorf("prepared %s: the connection failed (%v) instead of a MySQL error", q, err)
			}
		case !slices.Equal(rowsText(rows), f.snap2):
			t.Errorf("prepared %s with %v: rows %q, want snapshot 2's %q", q, arg, rowsText(rows), f.snap2)
		}
		// The same pool (connection) still works.
		if got := ttRows(t, db, "SELECT f0, f1, f2, f3 FROM "+ttTable+" AS OF 2"); !slices.Equal(got, f.snap2) {
			t.Errorf("after the prepared AS OF ?: got %q", got)
		}
	}
	// Placeholders elsewhere work server-side prepared.
	got := ttRows(t, db, "SELECT f0, f1, f2, f3 FROM "+ttTable+" AS OF 2 WHERE f0 = ?", "Bob")
	if len(got) != 1 || !strings.HasPrefix(got[0], "Bob|") {
		t.Errorf("prepared WHERE f0 = ? on AS OF 2: %q", got)
	}
	// A new connection works.
	db2, err := sql.Open("mysql", fmt.Sprintf("root@tcp(%s)/%s", serverAddr(t), fxDB))
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	if got := queryStrings(t, db2, "SELECT COUNT(*) FROM "+ttTable); got[0][0] != fmt.Sprint(len(f.latest)) {
		t.Errorf("new connection: COUNT(*) = %q, want %d", got[0][0], len(f.latest))
	}
}
