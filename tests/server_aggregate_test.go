package tests

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestAggregateScanEqualsRowPath: random GROUP BY queries (COUNT, SUM, AVG,
// MIN, MAX over columns of every common type, grouped by 0–2 columns, with
// random filters) over random tables — a primary-key table merged from
// several commits with updates and deletes, the same table fully compacted
// (its buckets read file by file), one whose files hold disjoint key ranges
// (one file only retractions), and an append table — return
// exactly the same column definitions and values with the aggregate scan
// (lakesql_vectorized_aggregates = 1) as row by row through GMS (= 0). The
// seed is printed on failure (LAKESQL_SEED picks one).
func TestAggregateScanEqualsRowPath(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("LAKESQL_SEED"); s != "" {
		fmt.Sscan(s, &seed)
	}
	rng := rand.New(rand.NewPCG(seed, 31))
	wh := t.TempDir()
	addr := startWarehouseServer(t, wh)
	mustExec(t, openWarehouseDB(t, addr, "", ""), "CREATE DATABASE agg")
	db := openWarehouseDB(t, addr, "agg", "")
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const cols = "p STRING, id BIGINT, i INT, s SMALLINT, ti TINYINT, d DECIMAL(10,2), db DECIMAL(30,6), v VARCHAR(10), dt DATE, ts TIMESTAMP(3), b BOOLEAN, f DOUBLE, h DECIMAL(18,0)"
	mustExec(t, conn,
		"CREATE TABLE pk ("+cols+", PRIMARY KEY (p, id) NOT ENFORCED) PARTITIONED BY (p) WITH ('bucket' = '3')",
		"CREATE TABLE ap ("+cols+")",
		// cmp: compacted buckets (one run per bucket: read file by file);
		// dj: files of disjoint key ranges, one of them only retractions.
		"CREATE TABLE cmp ("+cols+", PRIMARY KEY (p, id) NOT ENFORCED) PARTITIONED BY (p) WITH ('bucket' = '3')",
		"CREATE TABLE dj ("+cols+", PRIMARY KEY (p, id) NOT ENFORCED) PARTITIONED BY (p) WITH ('bucket' = '2', 'write-only' = 'true')",
		// mow: deletion vectors (batch selections) over compacted files.
		"CREATE TABLE mow ("+cols+", PRIMARY KEY (p, id) NOT ENFORCED) PARTITIONED BY (p) WITH ('bucket' = '2', 'deletion-vectors.enabled' = 'true')")
	val := func(nullable bool, gen func() string) string {
		if nullable && rng.IntN(6) == 0 {
			return "NULL"
		}
		return gen()
	}
	row := func(id int) string {
		return "(" + strings.Join([]string{
			fmt.Sprintf("'p%d'", rng.IntN(3)),
			fmt.Sprint(id),
			val(true, func() string { return fmt.Sprint(rng.IntN(2000) - 1000) }),
			val(true, func() string { return fmt.Sprint(rng.IntN(20) - 10) }),
			val(true, func() string { return fmt.Sprint(rng.IntN(7)) }),
			val(true, func() string { return fmt.Sprintf("%d.%02d", rng.IntN(20000)-10000, rng.IntN(100)) }),
			val(true, func() string { return fmt.Sprintf("%d%09d.%06d", rng.IntN(99), rng.IntN(1e9), rng.IntN(1e6)) }),
			val(true, func() string { return fmt.Sprintf("'%s'", []string{"a", "b", "B", "ab", "é", "", "zz"}[rng.IntN(7)]) }),
			val(true, func() string { return fmt.Sprintf("'2026-0%d-1%d'", 1+rng.IntN(3), rng.IntN(10)) }),
			val(true, func() string { return fmt.Sprintf("'2026-01-01 0%d:00:00.%03d'", rng.IntN(3), rng.IntN(1000)) }),
			val(true, func() string { return []string{"true", "false"}[rng.IntN(2)] }),
			val(true, func() string { return fmt.Sprintf("%g", float64(rng.IntN(1000))/8) }),
			// near ±10^18, three in four negative: sums leave int64 (the exact sum goes big)
			val(true, func() string { return fmt.Sprint(max(1-2*rng.Int64N(4), -1) * (999999999999999999 - rng.Int64N(1e6))) }),
		}, ", ") + ")"
	}
	for _, table := range []string{"pk", "ap", "mow"} {
		for batch := range 4 {
			var rows []string
			for range 150 {
				id := rng.IntN(400)
				if table != "ap" && batch == 0 {
					id = len(rows)
				}
				rows = append(rows, row(id))
			}
			mustExec(t, conn, "INSERT INTO "+table+" VALUES "+strings.Join(rows, ", "))
		}
	}
	mustExec(t, conn, "UPDATE pk SET i = i + 1, v = 'upd' WHERE id % 7 = 3", "DELETE FROM pk WHERE id % 11 = 5",
		"UPDATE mow SET i = i + 1, v = 'upd' WHERE id % 7 = 3", "DELETE FROM mow WHERE id % 11 = 5")
	mustExec(t, conn, "INSERT INTO cmp SELECT * FROM pk", "UPDATE cmp SET d = -d WHERE id % 5 = 1", "DELETE FROM cmp WHERE id % 13 = 2",
		"CALL sys.compact(table => 'cmp')")
	for r := range 3 {
		var rows []string
		for k := range 60 + rng.IntN(60) {
			rows = append(rows, row(r*1000+k))
		}
		mustExec(t, conn, "INSERT INTO dj VALUES "+strings.Join(rows, ", "))
	}
	// One transaction inserts and deletes keys of their own range: its
	// files hold only retractions (-D) of keys no other file has.
	mustExec(t, conn, "BEGIN", "INSERT INTO dj VALUES "+row(5000)+", "+row(5001)+", "+row(5002), "DELETE FROM dj WHERE id >= 5000", "COMMIT")

	if dvs := queryStrings(t, conn, "SELECT COUNT(*) FROM `mow$table_indexes` WHERE index_type = 'DELETION_VECTORS'"); fmt.Sprint(dvs) == "[[0]]" {
		t.Fatal("mow has no deletion vectors")
	}
	groupCols := []string{"p", "i", "s", "ti", "d", "db", "v", "dt", "ts", "b", "h"}
	numCols := []string{"id", "i", "s", "ti", "d", "db", "h"}
	anyCols := []string{"p", "id", "i", "s", "ti", "d", "db", "v", "dt", "ts", "b", "f", "h"}
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	aggregate := func() string {
		switch rng.IntN(9) {
		case 0:
			return "COUNT(*)"
		case 1:
			return "COUNT(" + pick(anyCols) + ")"
		case 2, 3:
			return "SUM(" + pick(numCols) + ")"
		case 4:
			return "AVG(" + pick(numCols) + ")"
		case 5:
			return "MIN(" + pick(anyCols) + ")"
		case 6:
			return "MAX(" + pick(anyCols) + ")"
		case 7:
			return "SUM(f)" // not exact in parallel: stays row by row
		}
		return "COUNT(DISTINCT v)" // not computed by the scan
	}
	filter := func() string {
		leaf := func() string {
			switch rng.IntN(6) {
			case 0:
				return pick(anyCols) + " IS NULL"
			case 1:
				return fmt.Sprintf("i > %d", rng.IntN(2000)-1000)
			case 2:
				return fmt.Sprintf("v = '%s'", pick([]string{"a", "B", "upd", "zz"}))
			case 3:
				return fmt.Sprintf("d BETWEEN %d AND %d", -5000, rng.IntN(10000))
			case 4:
				return "ti + s < 3"
			}
			return fmt.Sprintf("p IN ('p0', 'p%d')", rng.IntN(3))
		}
		switch rng.IntN(4) {
		case 0:
			return ""
		case 1:
			return " WHERE " + leaf()
		case 2:
			return " WHERE " + leaf() + " AND " + leaf()
		}
		return " WHERE " + leaf() + " OR NOT (" + leaf() + ")"
	}
	setVec := func(on int) { mustExec(t, conn, fmt.Sprintf("SET lakesql_vectorized_aggregates = %d", on)) }
	scans, tops, total := 0, 0, 0
	for q := range 240 {
		table := []string{"pk", "ap", "cmp", "dj", "mow"}[q%5]
		var sel, group []string
		for range rng.IntN(3) {
			if c := pick(groupCols); !slices.Contains(group, c) {
				group = append(group, c)
			}
		}
		sel = append(sel, group...)
		var aliases []string
		for a := range 1 + rng.IntN(4) {
			aliases = append(aliases, fmt.Sprintf("a%d", a))
			sel = append(sel, aggregate()+" AS "+aliases[a])
		}
		query := "SELECT " + strings.Join(sel, ", ") + " FROM " + table + filter()
		if len(group) > 0 {
			query += " GROUP BY " + strings.Join(group, ", ")
		}
		// One query in three keeps the first groups of an order made total
		// by the group keys (ties of the aggregates broken by them):
		// AggregateTopNRule picks those groups from the typed aggregates.
		ordered := q%3 == 0
		if ordered {
			var by []string
			for range 1 + rng.IntN(2) {
				by = append(by, pick(append(aliases, group...))+pick([]string{"", " DESC"}))
			}
			for _, g := range group {
				by = append(by, g+pick([]string{"", " DESC"}))
			}
			query += fmt.Sprintf(" ORDER BY %s LIMIT %d", strings.Join(by, ", "), rng.IntN(7)) // LIMIT 0 too (sqlengine/aggregate_all.go)
		}
		setVec(0)
		want := rawQuery(t, conn, query)
		setVec(1)
		got := rawQuery(t, conn, query)
		if !ordered {
			slices.Sort(want.rows)
			slices.Sort(got.rows)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("seed %d: %s\naggregate scan: %v\n  row by row: %v", seed, query, got, want)
		}
		plan := fmt.Sprint(queryStrings(t, conn, "EXPLAIN PLAN "+query))
		if strings.Contains(plan, "AggregateScan") {
			scans++
		}
		if strings.Count(plan, "TopN(") > 1 { // GMS's and the scan's
			tops++
		}
		total++
	}
	t.Logf("%d of %d queries ran as an aggregate scan, %d kept their first groups in it (seed %d)", scans, total, tops, seed)
	if scans < total/3 || tops < 3 { // ~13 expected of the 80 ordered queries
		t.Fatalf("only %d of %d queries used the aggregate scan, %d its top groups", scans, total, tops)
	}
}

// TestLongInListsAreExact: IN lists longer than an index lookup takes
// (bigIn: a hash set evaluated by the scan and the filter) return what the
// same list split into short lists does, on a primary-key table (the keys
// are looked up) and on a non-key column, with NULLs and values of other
// types in the list.
func TestLongInListsAreExact(t *testing.T) {
	wh := t.TempDir()
	addr := startWarehouseServer(t, wh)
	mustExec(t, openWarehouseDB(t, addr, "", ""), "CREATE DATABASE il")
	db := openWarehouseDB(t, addr, "il", "")
	mustExec(t, db, "CREATE TABLE t (p STRING, id BIGINT, v INT, PRIMARY KEY (p, id) NOT ENFORCED) PARTITIONED BY (p) WITH ('bucket' = '2')")
	var rows []string
	for i := range 3000 {
		rows = append(rows, fmt.Sprintf("('p%d', %d, %d)", i%3, i, i%500))
	}
	mustExec(t, db, "INSERT INTO t VALUES "+strings.Join(rows, ", "))
	rng := rand.New(rand.NewPCG(3, 3))
	for _, col := range []string{"id", "v"} {
		var lits []string
		for range 1200 {
			lits = append(lits, fmt.Sprint(rng.IntN(4000)-200))
		}
		lits = append(lits, "NULL", "'17'")
		long := fmt.Sprintf("SELECT p, id, v FROM t WHERE %s IN (%s)", col, strings.Join(lits, ", "))
		var parts []string
		for i := 0; i < len(lits); i += 100 {
			parts = append(parts, fmt.Sprintf("%s IN (%s)", col, strings.Join(lits[i:min(i+100, len(lits))], ", ")))
		}
		short := "SELECT p, id, v FROM t WHERE " + strings.Join(parts, " OR ")
		got, want := rawQuery(t, db, long), rawQuery(t, db, short)
		slices.Sort(got.rows)
		slices.Sort(want.rows)
		if len(want.rows) == 0 || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s IN (%d values): %d rows, want %d", col, len(lits), len(got.rows), len(want.rows))
		}
		plan := fmt.Sprint(queryStrings(t, db, "EXPLAIN PLAN "+long))
		if strings.Contains(plan, "IndexedTableAccess") {
			t.Fatalf("a long IN list was planned as index ranges: %s", plan[:min(len(plan), 400)])
		}
	}
}

// TestAggregateTopNManyGroups: ORDER BY … LIMIT over a GROUP BY of more
// than 64k groups (negative keys, a NULL key, sums tied across many groups
// and sums leaving int64) keeps the same groups in the same order with the
// aggregate scan picking them from its typed groups (AggregateTopNRule) as
// row by row; a query whose tie-break the scan gets wrong fails here.
func TestAggregateTopNManyGroups(t *testing.T) {
	wh := t.TempDir()
	addr := startWarehouseServer(t, wh)
	mustExec(t, openWarehouseDB(t, addr, "", ""), "CREATE DATABASE tn")
	db := openWarehouseDB(t, addr, "tn", "")
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	mustExec(t, conn, "CREATE TABLE o (id BIGINT NOT NULL, u BIGINT, amt DECIMAL(12,2), big BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '3')")
	rng := rand.New(rand.NewPCG(11, 11))
	const users = 100_000
	id := 0
	for chunk := range 14 {
		var rows []string
		for range 10_000 {
			u := fmt.Sprint(rng.IntN(users) - users/2)
			if rng.IntN(1000) == 0 {
				u = "NULL"
			}
			amt := fmt.Sprintf("%d.%02d", rng.IntN(5), 25*rng.IntN(4)) // few distinct sums: many ties
			if rng.IntN(50) == 0 {
				amt = "NULL"
			}
			b := fmt.Sprint(rng.Int64N(1000))
			if rng.IntN(20) == 0 {
				b = fmt.Sprint(int64(math.MaxInt64) - rng.Int64N(1000)) // sums of a few leave int64
			}
			rows = append(rows, fmt.Sprintf("(%d, %s, %s, %s)", id, u, amt, b))
			id++
		}
		mustExec(t, conn, "INSERT INTO o VALUES "+strings.Join(rows, ", "))
		if chunk == 6 {
			mustExec(t, conn, "CALL sys.compact(table => 'o')")
		}
	}
	if n, _ := strconv.Atoi(queryStrings(t, conn, "SELECT COUNT(DISTINCT u) FROM o")[0][0]); n <= 1<<16 {
		t.Fatalf("%d groups, want more than 64k", n)
	}
	queries := []string{
		"SELECT u, COUNT(*), SUM(amt) AS s FROM o GROUP BY u ORDER BY s DESC, u LIMIT 10",
		"SELECT u, COUNT(*), SUM(amt) AS s FROM o GROUP BY u ORDER BY s, u DESC LIMIT 7",
		"SELECT u, COUNT(*) AS c FROM o GROUP BY u ORDER BY c DESC, u DESC LIMIT 12",
		"SELECT u, SUM(big) AS b FROM o GROUP BY u ORDER BY b DESC, u LIMIT 9",
		"SELECT u, SUM(big) AS b, COUNT(amt) FROM o GROUP BY u ORDER BY b, u LIMIT 9",
		"SELECT u, MIN(amt) AS lo, MAX(amt) AS hi FROM o GROUP BY u ORDER BY hi DESC, lo, u LIMIT 11",
		"SELECT u, MAX(amt) AS hi FROM o WHERE u < 0 GROUP BY u ORDER BY hi, u LIMIT 5",
		"SELECT u, COUNT(*) FROM o GROUP BY u ORDER BY u LIMIT 3",
		"SELECT u, COUNT(*) FROM o GROUP BY u ORDER BY u DESC LIMIT 3",
	}
	for _, q := range queries {
		mustExec(t, conn, "SET lakesql_vectorized_aggregates = 0")
		want := rawQuery(t, conn, q)
		mustExec(t, conn, "SET lakesql_vectorized_aggregates = 1")
		got := rawQuery(t, conn, q)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s\naggregate scan: %v\n  row by row: %v", q, got, want)
		}
		if plan := fmt.Sprint(queryStrings(t, conn, "EXPLAIN PLAN "+q)); strings.Count(plan, "TopN(") < 2 {
			t.Errorf("%s: the aggregate scan does not keep the first groups: %s", q, plan)
		}
	}
}
