package tests

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestOrderByAliasLimit: ORDER BY an aggregate's alias with LIMIT (a
// Project between GMS's Limit and Sort) keeps only the first n rows while
// sorting (the plan shows TopN, sqlengine's topNThroughProject) and returns
// the rows of the model: every group's sum ordered by sum descending, then
// key, cut to n — with random data, limits and offsets, through the
// aggregate scan and the row path alike.
func TestOrderByAliasLimit(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("LAKESQL_SEED"); s != "" {
		fmt.Sscan(s, &seed)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	t.Logf("seed %d (LAKESQL_SEED)", seed)
	addr := startWarehouseServer(t, t.TempDir())
	mustExec(t, openWarehouseDB(t, addr, "", ""), "CREATE DATABASE topn")
	db := openWarehouseDB(t, addr, "topn", "")
	mustExec(t, db, "CREATE TABLE t (id BIGINT, k INT, v DECIMAL(10,2), PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '2')")
	sums := map[int]int64{} // cents by key
	var rows []string
	for id := range 600 {
		k, cents := rng.IntN(80), rng.Int64N(20000)-5000
		sums[k] += cents
		rows = append(rows, fmt.Sprintf("(%d, %d, %s)", id, k, centsText(cents)))
	}
	mustExec(t, db, "INSERT INTO t VALUES "+strings.Join(rows, ", "))
	keys := make([]int, 0, len(sums))
	for k := range sums {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b int) int {
		if sums[a] != sums[b] {
			if sums[a] > sums[b] {
				return -1
			}
			return 1
		}
		return a - b
	})
	model := make([]string, len(keys))
	for i, k := range keys {
		model[i] = fmt.Sprintf("%d %s", k, centsText(sums[k]))
	}
	plan := ""
	for _, r := range queryStrings(t, db, "EXPLAIN PLAN SELECT k, SUM(v) AS s FROM t GROUP BY k ORDER BY s DESC, k LIMIT 5") {
		plan += r[0] + "\n"
	}
	if !strings.Contains(plan, "TopN") {
		t.Errorf("ORDER BY an alias with LIMIT does not plan a TopN:\n%s", plan)
	}
	for _, vec := range []int{1, 0} {
		mustExec(t, db, fmt.Sprintf("SET lakesql_vectorized_aggregates = %d", vec))
		for range 12 {
			n, off := rng.IntN(len(keys)+3), rng.IntN(4)
			q := fmt.Sprintf("SELECT k, SUM(v) AS s FROM t GROUP BY k ORDER BY s DESC, k LIMIT %d OFFSET %d", n, off)
			var got []string
			for _, r := range queryStrings(t, db, q) {
				got = append(got, r[0]+" "+r[1])
			}
			want := model[min(off, len(model)):min(off+n, len(model))]
			if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
				t.Fatalf("seed %d, vectorized %d: %s\ngot  %v\nwant %v", seed, vec, q, got, want)
			}
		}
	}
}

// centsText writes a number of cents as a DECIMAL(…,2) text.
func centsText(c int64) string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
}

// TestOrderBySumAliasIsDecimal: ORDER BY the alias of a DECIMAL sum
// compares decimals (MySQL), not DOUBLEs, which cannot tell these sums
// apart; with and without LIMIT, vectorized and row by row.
func TestOrderBySumAliasIsDecimal(t *testing.T) {
	addr := startWarehouseServer(t, t.TempDir())
	mustExec(t, openWarehouseDB(t, addr, "", ""), "CREATE DATABASE sumalias")
	db := openWarehouseDB(t, addr, "sumalias", "")
	mustExec(t, db, "CREATE TABLE t (id BIGINT, k INT, v DECIMAL(30,2), PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1')",
		"INSERT INTO t VALUES (1, 1, 100000000000000000.01), (2, 2, 100000000000000000.02), (3, 3, 100000000000000000.00)")
	for _, vec := range []int{1, 0} {
		mustExec(t, db, fmt.Sprintf("SET lakesql_vectorized_aggregates = %d", vec))
		for _, q := range []string{
			"SELECT k, SUM(v) AS s FROM t GROUP BY k ORDER BY s DESC, k",
			"SELECT k, SUM(v) AS s FROM t GROUP BY k ORDER BY s DESC, k LIMIT 3",
			"SELECT k, SUM(v) AS s FROM t GROUP BY k ORDER BY s, k DESC",
		} {
			var got []string
			for _, r := range queryStrings(t, db, q) {
				got = append(got, r[0])
			}
			want := []string{"2", "1", "3"}
			if strings.Contains(q, "ORDER BY s,") {
				want = []string{"3", "1", "2"}
			}
			if !slices.Equal(got, want) {
				t.Errorf("vectorized %d: %s: keys %v, want %v", vec, q, got, want)
			}
		}
	}
}
