package tests

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestServerSplitsPackedToTargetSize: through the protocol, a one-bucket
// append table of several files is read as several splits once
// 'source.split.target-size' is smaller than its files (each weighing at
// least 'source.split.open-file-cost', 4 MB by default), as Java's
// AppendOnlySplitGenerator packs them; with the default 128 MB it stays one
// split. A primary-key bucket that merges is cut only between sections
// (files of overlapping keys), as MergeTreeSplitGenerator does: one section
// stays one split whatever the target. The rows read are the same either
// way.
func TestServerSplitsPackedToTargetSize(t *testing.T) {
	seed := rand.Uint64()
	rng := rand.New(rand.NewPCG(seed, 9))
	addr := startWarehouseServer(t, t.TempDir())
	mustExec(t, openWarehouseDB(t, addr, "", ""), "CREATE DATABASE sp")
	db := openWarehouseDB(t, addr, "sp", "")
	const cols = "id BIGINT NOT NULL, v INT, s VARCHAR(20), d DECIMAL(12,2)"
	const small = "'source.split.target-size' = '8mb'"
	// write-only: no automatic compaction joins the files.
	mustExec(t, db,
		"CREATE TABLE one ("+cols+") WITH ('bucket' = '1', 'bucket-key' = 'id', 'write-only' = 'true')",
		"CREATE TABLE packed ("+cols+") WITH ('bucket' = '1', 'bucket-key' = 'id', 'write-only' = 'true', "+small+")",
		"CREATE TABLE unaware ("+cols+") WITH ('bucket' = '-1', 'write-only' = 'true', "+small+")",
		"CREATE TABLE pk ("+cols+", PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1', 'write-only' = 'true', "+small+")")
	const commits = 5
	for range commits {
		var rows []string
		for range 40 {
			rows = append(rows, fmt.Sprintf("(%d, %d, 's%d', %d.%02d)", rng.IntN(100), rng.IntN(1000)-500, rng.IntN(50), rng.IntN(10000), rng.IntN(100)))
		}
		for _, tbl := range []string{"one", "packed", "unaware", "pk"} {
			mustExec(t, db, "INSERT INTO "+tbl+" VALUES "+strings.Join(rows, ", "))
		}
	}
	// Sections: keys 0-9, 10-19, 20-29, 30-39, then 0-9 again (overlapping
	// the first): four sections of whole files, 4 MB each, two to a split;
	// secs1 is the same table read as one split.
	mustExec(t, db,
		"CREATE TABLE secs ("+cols+", PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1', 'write-only' = 'true', "+small+")",
		"CREATE TABLE secs1 ("+cols+", PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1', 'write-only' = 'true')")
	for _, lo := range []int{0, 10, 20, 30, 0} {
		var rows []string
		for id := lo; id < lo+10; id++ {
			rows = append(rows, fmt.Sprintf("(%d, %d, 's%d', %d.%02d)", id, rng.IntN(1000)-500, rng.IntN(50), rng.IntN(10000), rng.IntN(100)))
		}
		mustExec(t, db, "INSERT INTO secs VALUES "+strings.Join(rows, ", "), "INSERT INTO secs1 VALUES "+strings.Join(rows, ", "))
	}
	splits := func(query string) int {
		t.Helper()
		var b strings.Builder
		for _, r := range queryStrings(t, db, "EXPLAIN PLAN "+query) {
			b.WriteString(r[0] + "\n")
		}
		m := prunedRe.FindStringSubmatch(b.String())
		if m == nil {
			t.Fatalf("EXPLAIN PLAN %s shows no pruning note:\n%s", query, b.String())
		}
		n, _ := strconv.Atoi(m[6])
		return n
	}
	// (A filter every file passes makes EXPLAIN show the split count.)
	// Five files of a few KB weigh 4 MB each: two to a split of 8 MB.
	want := map[string]int{"one": 1, "packed": (commits + 1) / 2, "unaware": (commits + 1) / 2, "pk": 1, "secs": 2, "secs1": 1}
	for tbl, n := range want {
		if got := splits("SELECT * FROM " + tbl + " WHERE v > -1000"); got != n {
			t.Errorf("seed %d: %s read as %d splits, want %d", seed, tbl, got, n)
		}
	}
	for _, q := range []string{
		"SELECT * FROM %s ORDER BY id, v, s, d",
		"SELECT COUNT(*), SUM(v), SUM(d), MIN(s), MAX(id) FROM %s",
		"SELECT s, id FROM %s WHERE v > 0 ORDER BY s, id, v",
		"SELECT d FROM %s",
	} {
		for _, pair := range [][2]string{{"packed", "one"}, {"unaware", "one"}, {"secs", "secs1"}} {
			tbl := pair[0]
			base := queryStrings(t, db, fmt.Sprintf(q, pair[1]))
			if len(base) == 0 {
				t.Fatalf("%s: no rows", fmt.Sprintf(q, pair[1]))
			}
			got := queryStrings(t, db, fmt.Sprintf(q, tbl))
			if !strings.Contains(q, "ORDER BY") {
				sortRows(base)
				sortRows(got)
			}
			if !slices.EqualFunc(got, base, slices.Equal) {
				t.Errorf("seed %d: %s: %d rows differ from %s's %d", seed, fmt.Sprintf(q, tbl), len(got), pair[1], len(base))
			}
		}
	}
	// The option applies when set later too.
	mustExec(t, db, "ALTER TABLE one SET ("+small+")")
	if got := splits("SELECT * FROM one WHERE v > -1000"); got != want["packed"] {
		t.Errorf("seed %d: after ALTER TABLE SET, one read as %d splits, want %d", seed, got, want["packed"])
	}
}

func sortRows(rows [][]string) {
	slices.SortFunc(rows, func(a, b []string) int { return slices.Compare(a, b) })
}
