package tests

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestAggregateWithoutGroupByLimitZero: an aggregate without GROUP BY that
// nothing reads (LIMIT 0 above it, directly, through ORDER BY, HAVING, a
// derived table or a UNION) answers an empty result, as MySQL does, on the
// row path and with the aggregate scan, in the text and the binary
// protocol; GMS v0.20.0's groupByIter panicked closing unread
// (sqlengine/aggregate_all.go) and the client got 1105.
func TestAggregateWithoutGroupByLimitZero(t *testing.T) {
	addr := startWarehouseServer(t, t.TempDir())
	mustExec(t, openWarehouseDB(t, addr, "", ""), "CREATE DATABASE lz")
	db := openWarehouseDB(t, addr, "lz", "")
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	mustExec(t, conn,
		"CREATE TABLE o (id BIGINT, status STRING, amount DECIMAL(12,2), PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '2')",
		"INSERT INTO o VALUES (1, 'new', 1.50), (2, 'paid', 2.25), (3, 'new', NULL)",
		"CREATE TABLE a (id BIGINT, v INT)", "INSERT INTO a VALUES (1, 10), (2, 20)")
	queries := []string{
		"SELECT COUNT(*) FROM o LIMIT 0",
		"SELECT COUNT(*), SUM(amount) FROM o WHERE id > 1 LIMIT 0",
		"SELECT COUNT(*) AS c FROM o ORDER BY c LIMIT 0",
		"SELECT SUM(amount) FROM o HAVING SUM(amount) > 0 LIMIT 0",
		"SELECT * FROM (SELECT COUNT(*) AS c FROM o) x LIMIT 0",
		"SELECT x.c FROM (SELECT MAX(amount) AS c FROM o LIMIT 0) x",
		"SELECT COUNT(*) FROM o UNION ALL SELECT 1 LIMIT 0",
		"SELECT COUNT(*), MIN(v) FROM a LIMIT 0",
		"SELECT status, COUNT(*) FROM o GROUP BY status LIMIT 0",
		"SELECT DISTINCT COUNT(*) FROM o LIMIT 0",
	}
	for _, vec := range []int{0, 1} {
		mustExec(t, conn, fmt.Sprintf("SET lakesql_vectorized_aggregates = %d", vec))
		for _, q := range queries {
			if got := queryStrings(t, conn, q); len(got) != 0 {
				t.Errorf("vectorized=%d: %s: %v, want no rows", vec, q, got)
			}
		}
		// The binary protocol (server-side prepared, LIMIT bound to 0).
		if got := queryStrings(t, conn, "SELECT COUNT(*) FROM o LIMIT ?", 0); len(got) != 0 {
			t.Errorf("vectorized=%d: prepared LIMIT 0: %v", vec, got)
		}
		// Read to the end, the same aggregates still answer.
		if got := fmt.Sprint(queryStrings(t, conn, "SELECT COUNT(*), SUM(amount) FROM o LIMIT 1")); got != "[[3 3.75]]" {
			t.Errorf("vectorized=%d: COUNT, SUM: %s", vec, got)
		}
		if got := fmt.Sprint(queryStrings(t, conn, "SELECT ANY_VALUE(v) FROM a ORDER BY 1")); got != "[[10] [20]]" {
			t.Errorf("vectorized=%d: ANY_VALUE alone is one row per row (as GMS did): %s", vec, got)
		}
	}
}

// TestRepeatedAggregateInSelect: a select list that repeats an aggregate
// without an alias (SUM(o.amount), SUM(o.amount) — BI tools write it), over
// a join and with HAVING and ORDER BY, answers what the query with one
// SUM does, with the column named as written, with eager aggregation and
// the aggregate scan on and off; GMS v0.20.0's planbuilder refused it with
// 1105 "does not exist in scope, but there is an alias defined in this
// projection" (sqlengine/builtins/repeated_select.go).
func TestRepeatedAggregateInSelect(t *testing.T) {
	addr := startWarehouseServer(t, t.TempDir())
	mustExec(t, openWarehouseDB(t, addr, "", ""), "CREATE DATABASE ra")
	db := openWarehouseDB(t, addr, "ra", "")
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var orders, users []string
	for i := range 200 {
		orders = append(orders, fmt.Sprintf("(%d, %d, %d.%02d)", i, i%13, i%17, i%100))
	}
	for u := range 13 {
		users = append(users, fmt.Sprintf("(%d, 'r%d')", u, u%4))
	}
	mustExec(t, conn,
		"CREATE TABLE o (order_id BIGINT, user_id BIGINT, amount DECIMAL(12,2), PRIMARY KEY (order_id) NOT ENFORCED) WITH ('bucket' = '2')",
		"CREATE TABLE u (user_id BIGINT, region STRING, PRIMARY KEY (user_id) NOT ENFORCED) WITH ('bucket' = '1')",
		"INSERT INTO o VALUES "+strings.Join(orders, ", "), "INSERT INTO u VALUES "+strings.Join(users, ", "))
	const from = " FROM o JOIN u ON o.user_id = u.user_id"
	// The reference repeats the value through another expression (x + 0),
	// which GMS plans as another aggregate.
	for _, c := range []struct{ repeated, single string }{
		{"SELECT u.region, SUM(o.amount), SUM(o.amount)" + from + " GROUP BY u.region HAVING SUM(o.amount) > 0",
			"SELECT u.region, SUM(o.amount), SUM(o.amount + 0)" + from + " GROUP BY u.region HAVING SUM(o.amount) > 0"},
		{"SELECT u.region, SUM(o.amount), SUM(o.amount) AS s2" + from + " GROUP BY u.region HAVING SUM(o.amount) > 0",
			"SELECT u.region, SUM(o.amount), SUM(o.amount + 0)" + from + " GROUP BY u.region HAVING SUM(o.amount) > 0"},
		{"SELECT u.region, MAX(o.amount), COUNT(*), MAX(o.amount), MAX(o.amount)" + from + " GROUP BY u.region ORDER BY MAX(o.amount) DESC, u.region LIMIT 3",
			"SELECT u.region, MAX(o.amount), COUNT(*), MAX(o.amount + 0), MAX(o.amount + 0)" + from + " GROUP BY u.region ORDER BY MAX(o.amount) DESC, u.region LIMIT 3"},
		{"SELECT SUM(o.amount), SUM(o.amount) FROM o", "SELECT SUM(o.amount), SUM(o.amount + 0) FROM o"},
	} {
		for _, set := range []string{"1, 1", "0, 1", "1, 0", "0, 0"} {
			on := strings.Split(set, ", ")
			mustExec(t, conn, "SET lakesql_eager_aggregation = "+on[0], "SET lakesql_vectorized_aggregates = "+on[1])
			cols, got, err := queryRows(context.Background(), conn, c.repeated)
			if err != nil {
				t.Fatalf("eager, vectorized = %s: %s: %v", set, c.repeated, err)
			}
			_, want, err := queryRows(context.Background(), conn, c.single)
			if err != nil {
				t.Fatal(err)
			}
			g, w := fmt.Sprint(textRows(got)), fmt.Sprint(textRows(want))
			if !strings.Contains(c.repeated, "ORDER BY") {
				g, w = fmt.Sprint(sortedRowsText(textRows(got))), fmt.Sprint(sortedRowsText(textRows(want)))
			}
			if len(want) == 0 || g != w {
				t.Errorf("eager, vectorized = %s: %s:\n got %s\nwant %s", set, c.repeated, g, w)
			}
			for i, col := range cols[1:] {
				if strings.HasPrefix(col, "SUM(") || strings.HasPrefix(col, "MAX(") || col == "COUNT(*)" || col == "s2" {
					continue
				}
				t.Errorf("%s: column %d is named %q, want the text as written", c.repeated, i+1, col)
			}
		}
	}
}

// textRows is rows as text (NULL as "NULL").
func textRows(rows [][]any) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		for _, v := range r {
			out[i] = append(out[i], textOf(v))
		}
	}
	return out
}

// TestShowWarningsInRaisedOrder: SHOW WARNINGS lists a multi-row INSERT
// IGNORE's warnings in the order they were raised (row 1's first), as
// MySQL does; GMS v0.20.0 listed them newest first (sqlengine/session.go
// Warnings).
func TestShowWarningsInRaisedOrder(t *testing.T) {
	addr := startWarehouseServer(t, t.TempDir())
	mustExec(t, openWarehouseDB(t, addr, "", ""), "CREATE DATABASE sw")
	db := openWarehouseDB(t, addr, "sw", "")
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	mustExec(t, conn, "CREATE TABLE t (id BIGINT, v VARCHAR(2), PRIMARY KEY (id) NOT ENFORCED)",
		"INSERT IGNORE INTO t VALUES (1, 'aaa'), (2, 'b'), (3, 'cccc'), (4, 'ddddd')")
	got := queryStrings(t, conn, "SHOW WARNINGS")
	if len(got) != 3 {
		t.Fatalf("SHOW WARNINGS: %v, want 3 warnings", got)
	}
	for i, row := range []string{"1", "3", "4"} {
		if !strings.HasSuffix(got[i][2], "row "+row) && !strings.Contains(got[i][2], "row "+row+" ") {
			t.Errorf("warning %d: %v, want row %s's (in the order raised): all %v", i+1, got[i], row, got)
		}
	}
	// SHOW WARNINGS does not clear them; LIMIT keeps the first ones.
	if again := queryStrings(t, conn, "SHOW WARNINGS LIMIT 1"); len(again) != 1 || again[0][2] != got[0][2] {
		t.Errorf("SHOW WARNINGS LIMIT 1 after SHOW WARNINGS: %v, want %v", again, got[:1])
	}
}
