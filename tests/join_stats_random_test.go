package tests

import (
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/provider"
)

// TestJoinStatsRandom is a seeded test of the join planner's statistics
// (provider/stats_histogram.go, provider/coster.go): random key-range joins
// over primary-key tables written in several commits (updates, deletes,
// one table compacted) run with the PRIMARY histograms and lakesql's join
// costs on and off; both answers must equal a Go model of the tables. The
// statistics must change the plan of some queries (the test fails when
// they no longer reach GMS), and the self-join of two wide key ranges must
// become a hash join with them.
//
// LAKESQL_JOIN_STATS_SEED fixes the seed; LAKESQL_JOIN_STATS_QUERIES sets
// the number of queries (default 60).
func TestJoinStatsRandom(t *testing.T) {
	seed := time.Now().UnixNano()
	if s := os.Getenv("LAKESQL_JOIN_STATS_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseInt(s, 10, 64); err != nil {
			t.Fatalf("LAKESQL_JOIN_STATS_SEED: %v", err)
		}
	}
	n := 60
	if s := os.Getenv("LAKESQL_JOIN_STATS_QUERIES"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	t.Logf("seed %d (rerun with LAKESQL_JOIN_STATS_SEED=%d), %d queries", seed, seed, n)
	rnd := rand.New(rand.NewSource(seed))
	t.Cleanup(func() { provider.SetStatistics(true) })

	addr := startWarehouseServer(t, t.TempDir())
	mustExec(t, openWarehouseDB(t, addr, "", ""), "CREATE DATABASE js")
	db := openWarehouseDB(t, addr, "js", "")
	mustExec(t, db,
		"CREATE TABLE a (k BIGINT, v BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '2', 'write-only' = 'true')",
		"CREATE TABLE c (k BIGINT, v BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '3')",
		"CREATE TABLE b (k BIGINT, g BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '1')")
	const keys = 4000
	model := map[string]map[int64]int64{"a": {}, "b": {}, "c": {}}
	for _, tb := range []string{"a", "c"} {
		for range 3 {
			var vals []string
			for range 800 {
				k, v := 1+rnd.Int63n(keys), rnd.Int63n(1000)
				model[tb][k] = v
				vals = append(vals, fmt.Sprintf("(%d, %d)", k, v))
			}
			mustExec(t, db, "INSERT INTO "+tb+" VALUES "+strings.Join(vals, ", "))
		}
		lo := 1 + rnd.Int63n(keys)
		mustExec(t, db, fmt.Sprintf("DELETE FROM %s WHERE k BETWEEN %d AND %d", tb, lo, lo+50))
		for k := range model[tb] {
			if k >= lo && k <= lo+50 {
				delete(model[tb], k)
			}
		}
	}
	mustExec(t, db, "CALL sys.compact(table => 'js.c')")
	var vals []string
	for range 300 {
		k, g := 1+rnd.Int63n(keys), rnd.Int63n(7)
		model["b"][k] = g
		vals = append(vals, fmt.Sprintf("(%d, %d)", k, g))
	}
	mustExec(t, db, "INSERT INTO b VALUES "+strings.Join(vals, ", "))

	// join is a query and its model answer: count and sum of the inner
	// side's v over matching pairs.
	type join struct {
		sql  string
		want string
	}
	rangeOf := func() (int64, int64) {
		lo := 1 + rnd.Int63n(keys)
		w := []int64{0, 10, 200, keys}[rnd.Intn(4)]
		return lo - w/4, lo + w
	}
	gen := func() join {
		x, y := []string{"a", "c"}[rnd.Intn(2)], []string{"a", "c", "b"}[rnd.Intn(3)]
		xlo, xhi := rangeOf()
		ylo, yhi := int64(-1<<40), int64(1<<40)
		var yFilter string
		if rnd.Intn(2) == 0 {
			ylo, yhi = rangeOf()
			yFilter = fmt.Sprintf(" AND y.k BETWEEN %d AND %d", ylo, yhi)
		}
		onV := y != "b" && rnd.Intn(4) == 0 // join on a non-key column: a hash join either way
		on := "x.k = y.k"
		if onV {
			on = "x.v = y.k"
		}
		var cnt, sum int64
		for xk, xv := range model[x] {
			if xk < xlo || xk > xhi {
				continue
			}
			yk := xk
			if onV {
				yk = xv
			}
			yv, ok := model[y][yk]
			if !ok || yk < ylo || yk > yhi {
				continue
			}
			cnt++
			sum += yv
		}
		col := "v"
		if y == "b" {
			col = "g"
		}
		q := fmt.Sprintf("SELECT COUNT(*), COALESCE(SUM(y.%s), 0) FROM %s x JOIN %s y ON %s WHERE x.k BETWEEN %d AND %d%s",
			col, x, y, on, xlo, xhi, yFilter)
		return join{q, fmt.Sprintf("%d %d", cnt, sum)}
	}
	answer := func(q string) string {
		rows := queryStrings(t, db, q)
		return strings.Join(rows[0], " ")
	}
	plan := func(q string) string {
		var b strings.Builder
		for _, r := range queryStrings(t, db, "EXPLAIN PLAN "+q) {
			b.WriteString(strings.Join(r, " ") + "\n")
		}
		return b.String()
	}
	changed := 0
	for i := range n {
		j := gen()
		for _, on := range []bool{true, false} {
			provider.SetStatistics(on)
			if got := answer(j.sql); got != j.want {
				t.Errorf("seed %d query %d (statistics %v): %s\n got %s, want %s", seed, i, on, j.sql, got, j.want)
			}
		}
		provider.SetStatistics(true)
		withStats := plan(j.sql)
		provider.SetStatistics(false)
		if withStats != plan(j.sql) {
			changed++
		}
	}
	t.Logf("%d of %d plans changed by the statistics", changed, n)

	// The self-join of two wide key ranges: a hash join with the
	// statistics, a lookup join (one probe per outer row) without.
	wide := fmt.Sprintf("SELECT COUNT(*) FROM c x JOIN c y ON x.k = y.k WHERE x.k <= %d AND y.k <= %d", keys, keys)
	provider.SetStatistics(true)
	if p := plan(wide); !strings.Contains(p, "HashJoin") {
		t.Errorf("with statistics, %s is not a hash join:\n%s", wide, p)
	}
	provider.SetStatistics(false)
	if p := plan(wide); !strings.Contains(p, "LookupJoin") {
		t.Errorf("without statistics, %s is not a lookup join:\n%s", wide, p)
	}
	if changed == 0 {
		t.Errorf("seed %d: the statistics changed no plan in %d queries", seed, n)
	}
}

// TestPrimaryStatisticsFollowSnapshots checks that the PRIMARY histogram
// (shown in information_schema.COLUMN_STATISTICS, as MySQL 8.0 shows a
// column's histogram) is that of the table's latest snapshot: each commit
// changes its row count and key range, and a table whose first key column
// is not an integer has none.
func TestPrimaryStatisticsFollowSnapshots(t *testing.T) {
	addr := startWarehouseServer(t, t.TempDir())
	mustExec(t, openWarehouseDB(t, addr, "", ""), "CREATE DATABASE hs")
	db := openWarehouseDB(t, addr, "hs", "")
	mustExec(t, db,
		"CREATE TABLE t (k INT, v STRING, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '2')",
		"CREATE TABLE s (k STRING, v INT, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '2')",
		"INSERT INTO s VALUES ('a', 1)")
	stat := func() (rows, lo, hi int64) {
		q := "SELECT JSON_EXTRACT(histogram, '$.statistic.row_count'), JSON_EXTRACT(histogram, '$.statistic.buckets[0].upper_bound[0]'), " +
			"JSON_EXTRACT(histogram, CONCAT('$.statistic.buckets[', JSON_LENGTH(JSON_EXTRACT(histogram, '$.statistic.buckets')) - 1, '].upper_bound[0]')) " +
			"FROM information_schema.column_statistics WHERE schema_name = 'hs' AND table_name = 't' AND column_name = 'k'"
		got := queryStrings(t, db, q)
		if len(got) != 1 {
			t.Fatalf("%s: %v", q, got)
		}
		var err error
		var v [3]int64
		for i := range v {
			if v[i], err = strconv.ParseInt(got[0][i], 10, 64); err != nil {
				t.Fatalf("%s: %v", q, got)
			}
		}
		return v[0], v[1], v[2]
	}
	insert := func(from, to int) {
		var vals []string
		for k := from; k <= to; k++ {
			vals = append(vals, fmt.Sprintf("(%d, 'x')", k))
		}
		mustExec(t, db, "INSERT INTO t VALUES "+strings.Join(vals, ", "))
	}
	insert(1, 100)
	if rows, _, hi := stat(); rows != 100 || hi != 100 {
		t.Fatalf("after 100 rows: %d rows, largest key %d", rows, hi)
	}
	insert(101, 1000)
	rows, first, hi := stat()
	if rows != 1000 || hi != 1000 || first >= 1000 {
		t.Fatalf("after 1000 rows: %d rows, first bound %d, largest key %d", rows, first, hi)
	}
	insert(-500, -1)
	if rows, first, hi := stat(); rows != 1500 || hi != 1000 || first >= 0 {
		t.Fatalf("after 1500 rows: %d rows, first bound %d, largest key %d", rows, first, hi)
	}
	if got := queryStrings(t, db, "SELECT COUNT(*) FROM information_schema.column_statistics WHERE table_name = 's'"); got[0][0] != "0" {
		t.Fatalf("a STRING key has a histogram: %v", got)
	}
	// A histogram of the first column of a two-column key is not a key of
	// that column: `a = 13` keeps both rows (GMS answered "max1Row
	// iterator returned more than one row" when the statistic said so).
	mustExec(t, db,
		"CREATE TABLE kc (a INT, b STRING, v INT, PRIMARY KEY (a, b) NOT ENFORCED) WITH ('bucket' = '2')",
		"INSERT INTO kc VALUES (13, 'x', 1), (13, 'y', 2), (14, 'x', 3)")
	for _, q := range []string{"SELECT v FROM kc WHERE a = 13 ORDER BY v", "SELECT v FROM kc WHERE a IN (13) ORDER BY v"} {
		if got := queryStrings(t, db, q); len(got) != 2 || got[0][0] != "1" || got[1][0] != "2" {
			t.Fatalf("%s: %v", q, got)
		}
	}
}
