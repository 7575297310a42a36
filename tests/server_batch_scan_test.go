package tests

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestServerBatchScanSwitch: through the protocol, SELECTs of an append
// table and of a primary-key table with deletion vectors (rows deleted and
// updated over several commits, NULLs in every column) answer the same with
// rows made from column batches (lakesql_batch_scan = 1, the default) as
// row by row (= 0). A merge-on-read deduplicate table given the same writes
// as the deletion-vector one (mor: its overlapping runs merged over column
// batches, EXPLAIN says so) answers as the deletion-vector table does.
func TestServerBatchScanSwitch(t *testing.T) {
	seed := uint64(rand.Int64())
	rng := rand.New(rand.NewPCG(seed, 3))
	addr := startWarehouseServer(t, t.TempDir())
	mustExec(t, openWarehouseDB(t, addr, "", ""), "CREATE DATABASE bs")
	db := openWarehouseDB(t, addr, "bs", "")
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const cols = "id BIGINT, i INT, s VARCHAR(10), f DOUBLE, d DECIMAL(10,2), dt DATE, ts TIMESTAMP(3), b BOOLEAN"
	mustExec(t, conn,
		"CREATE TABLE ap ("+cols+")",
		"CREATE TABLE dv ("+cols+", PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '2', 'deletion-vectors.enabled' = 'true')",
		// cmp: compacted buckets; dj: files of disjoint keys, one holding
		// only retractions (both read as batches without merging).
		"CREATE TABLE cmp ("+cols+", PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '2')",
		"CREATE TABLE dj ("+cols+", PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '2', 'write-only' = 'true')",
		"CREATE TABLE mor ("+cols+", PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '2', 'write-only' = 'true')")
	val := func(v string) string {
		if rng.IntN(5) == 0 {
			return "NULL"
		}
		return v
	}
	for c := range 4 {
		var rows []string
		for range 50 {
			id := rng.IntN(120)
			rows = append(rows, fmt.Sprintf("(%d, %s, %s, %s, %s, %s, %s, %s)", id,
				val(fmt.Sprint(rng.IntN(1000)-500)), val(fmt.Sprintf("'s%d'", rng.IntN(30))),
				val(fmt.Sprintf("%d.5", rng.IntN(100))), val(fmt.Sprintf("%d.25", rng.IntN(100))),
				val(fmt.Sprintf("'2024-01-%02d'", 1+rng.IntN(28))), val(fmt.Sprintf("'2024-02-03 04:05:%02d.123'", rng.IntN(60))),
				val([]string{"TRUE", "FALSE"}[rng.IntN(2)])))
		}
		mustExec(t, conn, "INSERT INTO ap VALUES "+strings.Join(rows, ", "), "INSERT INTO dv VALUES "+strings.Join(rows, ", "),
			"INSERT INTO cmp VALUES "+strings.Join(rows, ", "), "INSERT INTO mor VALUES "+strings.Join(rows, ", "))
		if c > 0 {
			mustExec(t, conn, fmt.Sprintf("DELETE FROM dv WHERE id %% 7 = %d", c), fmt.Sprintf("DELETE FROM cmp WHERE id %% 7 = %d", c),
				fmt.Sprintf("DELETE FROM mor WHERE id %% 7 = %d", c))
		}
		// dj: this round's keys are shifted into a range of their own.
		shifted := make([]string, len(rows))
		for i, r := range rows {
			id, rest, _ := strings.Cut(r[1:], ",")
			var n int
			fmt.Sscan(id, &n)
			shifted[i] = fmt.Sprintf("(%d,%s", n+1000*c, rest)
		}
		mustExec(t, conn, "INSERT INTO dj VALUES "+strings.Join(shifted, ", "))
	}
	mustExec(t, conn, "CALL sys.compact(table => 'cmp')",
		"BEGIN", "INSERT INTO dj VALUES (9000, 1, 'x', 1, 1, NULL, NULL, TRUE), (9001, 2, 'y', 2, 2, NULL, NULL, FALSE)",
		"DELETE FROM dj WHERE id >= 9000", "COMMIT")
	queries := []string{"SELECT * FROM %s", "SELECT s, id FROM %s WHERE i > 0", "SELECT d, ts, b FROM %s WHERE s IS NULL OR f < 50",
		"SELECT id, dt FROM %s WHERE id BETWEEN 10 AND 60", "SELECT COUNT(*), SUM(i) FROM (SELECT i FROM %s WHERE b) x"}
	sorted := func(rows [][]string) []string {
		out := make([]string, len(rows))
		for i := range rows {
			out[i] = strings.Join(rows[i], "\x00")
		}
		slices.Sort(out)
		return out
	}
	for _, table := range []string{"ap", "dv", "cmp", "dj", "mor"} {
		for _, q := range queries {
			q = fmt.Sprintf(q, table)
			mustExec(t, conn, "SET lakesql_batch_scan = 0")
			want := queryStrings(t, conn, q)
			mustExec(t, conn, "SET lakesql_batch_scan = 1")
			got := queryStrings(t, conn, q)
			if len(want) == 0 {
				t.Fatalf("seed %d: %s: no rows", seed, q)
			}
			if w, g := sorted(want), sorted(got); !slices.Equal(w, g) {
				t.Fatalf("seed %d: %s:\nbatch scan: %q\nrow by row: %q", seed, q, g, w)
			}
			if table != "mor" {
				continue
			}
			dq := strings.Replace(q, "FROM mor", "FROM dv", 1)
			if w, g := sorted(queryStrings(t, conn, dq)), sorted(got); !slices.Equal(w, g) {
				t.Fatalf("seed %d: %s:\nmerged by columns: %q\nthe deletion-vector table: %q", seed, q, g, w)
			}
		}
	}
	if p := strings.Join(sorted(queryStrings(t, conn, "EXPLAIN PLAN SELECT * FROM mor")), "\n"); !strings.Contains(p, "buckets merged by columns") {
		t.Errorf("EXPLAIN PLAN of the merge-on-read table:\n%s", p)
	}
}
