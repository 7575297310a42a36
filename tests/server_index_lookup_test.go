package tests

import (
	"context"
	"strconv"
	"strings"
	"testing"
)

// TestServerIndexLookupExact reproduces issue 14 item 1 through the server:
// a NULL key in an index lookup matched every row (the lookup became a full
// scan and GMS had removed the join condition), and keys of another type
// than the key column (a string into BIGINT, an out-of-range BIGINT into
// INT, a finer DECIMAL) were converted lossily or widened the lookup.
func TestServerIndexLookupExact(t *testing.T) {
	ws := startWriteServer(t, t.TempDir())
	db := ws.open(t, "")
	ctx := context.Background()
	var vals []string
	for i := 1; i <= 100; i++ {
		vals = append(vals, "("+strconv.Itoa(i)+", "+strconv.Itoa(i)+")")
	}
	for _, q := range []string{
		"CREATE DATABASE il", "USE il",
		"CREATE TABLE a (id BIGINT, i INT, s STRING, big BIGINT, PRIMARY KEY (id) NOT ENFORCED)",
		"CREATE TABLE b (id BIGINT, k INT, PRIMARY KEY (id) NOT ENFORCED)",
		"CREATE TABLE c (id INT, k INT, PRIMARY KEY (id) NOT ENFORCED)",
		"CREATE TABLE d (k DECIMAL(6,2), v INT, PRIMARY KEY (k) NOT ENFORCED)",
		"INSERT INTO a VALUES (1, NULL, 'x', 3000000000), (2, 7, '12abc', NULL)",
		"INSERT INTO b VALUES " + strings.Join(vals, ", "),
		"INSERT INTO c VALUES " + strings.Join(vals, ", ") + ", (2147483647, 0), (-2147483648, 0)",
		"INSERT INTO d VALUES (1.23, 1), (1.24, 2), (5.00, 3)",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, c := range []struct{ q, want string }{
		// The reproduction: MariaDB and GMS's memory backend say 1.
		{"SELECT COUNT(*) FROM a JOIN b ON a.i = b.id", "1"},
		{"SELECT COUNT(*) FROM a JOIN b ON a.i = b.id + 0", "1"},
		{"SELECT COUNT(*) FROM a LEFT JOIN b ON a.i = b.id", "2"},
		{"SELECT COUNT(b.id) FROM a LEFT JOIN b ON a.i = b.id", "1"},
		{"SELECT COUNT(*) FROM a WHERE a.i IN (SELECT id FROM b)", "1"},
		{"SELECT COUNT(*) FROM a JOIN b ON a.i <=> b.id", "1"},
		{"SELECT COUNT(*) FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.id = a.i)", "1"},
		{"SELECT COUNT(*) FROM b WHERE id = NULL", "0"},
		{"SELECT COUNT(*) FROM b WHERE id <=> NULL", "0"},
		{"SELECT COUNT(*) FROM b WHERE id IN (NULL, 3)", "1"},
		// A string probe into a BIGINT key: the lookup is refused and the
		// comparison is MySQL's (sqlengine/builtins: string vs number as
		// DOUBLE, so '12abc' = 12 and 'x' = 0, as MySQL and MariaDB say);
		// never a full scan.
		{"SELECT COUNT(*) FROM a JOIN b ON a.s = b.id", "1"},
		{"SELECT COUNT(*) FROM a JOIN b ON (a.s = b.id) IS TRUE", "1"},
		// The refused equality goes back into the join condition, also
		// through aliases and with the lookup hinted.
		{"SELECT /*+ LOOKUP_JOIN(x,y) */ COUNT(*) FROM a AS x JOIN b AS y ON x.s = y.id", "1"},
		{"SELECT /*+ LOOKUP_JOIN(x,y) */ COUNT(*) FROM a AS x LEFT JOIN b AS y ON CONCAT(x.id, '') = y.id", "2"},
		{"SELECT /*+ LOOKUP_JOIN(x,y) */ COUNT(y.k) FROM a AS x LEFT JOIN b AS y ON CONCAT(x.id, '') = y.id", "2"},
		{"SELECT /*+ LOOKUP_JOIN(x,y) */ SUM(y.k) FROM a AS x JOIN b AS y ON CONCAT(x.id + 40, '') = y.id", "83"},
		// A BIGINT probe out of an INT key's range matches nothing (GMS
		// clamped it to 2147483647).
		{"SELECT COUNT(*) FROM a JOIN c ON a.big = c.id", "0"},
		{"SELECT COUNT(*) FROM a JOIN c ON a.big - 852516353 = c.id", "1"},
		{"SELECT COUNT(*) FROM c WHERE id = 3000000000", "0"},
		{"SELECT COUNT(*) FROM c WHERE id IN (3000000000, 5)", "1"},
		{"SELECT COUNT(*) FROM c WHERE id < 3000000000", "102"},
		{"SELECT COUNT(*) FROM c WHERE id > -3000000000", "102"},
		{"SELECT COUNT(*) FROM c WHERE id > 99.5", "2"},
		// A DECIMAL probe finer than the key's scale matches nothing (GMS
		// rounded it to the key's scale).
		{"SELECT COUNT(*) FROM a JOIN d ON a.i - 2 = d.k", "1"},
		{"SELECT COUNT(*) FROM a JOIN d ON a.i / 4 - 0.516 = d.k", "0"},
		{"SELECT COUNT(*) FROM a JOIN d ON a.i / 4 - 0.51 = d.k", "1"},
	} {
		got := queryStrings(t, db, c.q)
		if len(got) != 1 || got[0][0] != c.want {
			t.Errorf("%s = %v, want %s", c.q, got, c.want)
		}
	}
}

// TestServerPushdownOuterColumn: a filter inside a correlated subquery that
// compares a column of the outer table is not pushed into the inner table's
// scan, even when the inner table has a column of that name (it was, as a
// filter on the inner column, and the subquery counted 0 rows).
func TestServerPushdownOuterColumn(t *testing.T) {
	ws := startWriteServer(t, t.TempDir())
	db := ws.open(t, "")
	for _, q := range []string{
		"CREATE DATABASE po", "USE po",
		"CREATE TABLE a (id INT, k INT, PRIMARY KEY (id) NOT ENFORCED)",
		"CREATE TABLE b (id INT, k INT)",
		"INSERT INTO a VALUES (1, 5), (2, 6)",
		"INSERT INTO b VALUES (1, 7), (2, 8)",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, c := range []struct{ q, want string }{
		{"SELECT a.id, (SELECT COUNT(*) FROM b WHERE a.k = 5) FROM a ORDER BY a.id", "1|2 2|0"},
		{"SELECT a.id, (SELECT COUNT(*) FROM b WHERE a.k = 5 AND b.id > 1) FROM a ORDER BY a.id", "1|1 2|0"},
		{"SELECT x.id, (SELECT COUNT(*) FROM b AS y WHERE x.k < 6 AND y.k > 7) FROM a AS x ORDER BY x.id", "1|1 2|0"},
	} {
		var rows []string
		for _, r := range queryStrings(t, db, c.q) {
			rows = append(rows, strings.Join(r, "|"))
		}
		if got := strings.Join(rows, " "); got != c.want {
			t.Errorf("%s = %s, want %s", c.q, got, c.want)
		}
	}
}
