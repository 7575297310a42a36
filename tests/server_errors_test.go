package tests

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestServerErrors: MySQL error numbers for the common mistakes, and the
// connection keeps working after each.
func TestServerErrors(t *testing.T) {
	ctx := context.Background()
	conn, err := serverDB(t).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, c := range []struct {
		q     string
		errno uint16
		names string
	}{
		{"USE no_such_db", 1049, "no_such_db"},
		{"SELECT * FROM no_such_db.pk_09", 1049, "no_such_db"},
		{"SELECT * FROM no_such_table", 1146, "no_such_table"},
		{"SELECT * FROM `pk_09$no_such_system_table`", 1146, "no_such_system_table"},
		{"SELECT no_such_column FROM pk_09", 1054, "no_such_column"},
		{"SELECT f0 FROM pk_09 WHERE no_such_column = 1", 1054, "no_such_column"},
		{"SELEC f0 FROM pk_09", 1064, "SELEC"},
		{"SELECT f0 FROM pk_09 WHERE", 1064, ""},
	} {
		_, rows, err := queryRows(ctx, conn, c.q)
		switch {
		case err == nil:
			t.Errorf("%s: want error %d, got %d rows", c.q, c.errno, len(rows))
		case mysqlErrNo(err) != c.errno:
			t.Errorf("%s: error number %d, want %d (%v)", c.q, mysqlErrNo(err), c.errno, err)
		case !strings.Contains(err.Error(), c.names):
			t.Errorf("%s: error %q does not name %q", c.q, err, c.names)
		}
		got := queryStrings(t, conn, "SELECT DATABASE(), COUNT(*) FROM pk_09")
		if got[0][0] != fxDB || got[0][1] == "0" {
			t.Errorf("after %s: DATABASE(), COUNT(*) = %q", c.q, got[0])
		}
	}
}

// TestServerReadOnly: the fixture server is read-only; writes are refused
// and the table is unchanged.
func TestServerReadOnly(t *testing.T) {
	db := serverDB(t)
	before := queryStrings(t, db, "SELECT COUNT(*) FROM pk_09")
	for _, q := range []string{
		"INSERT INTO pk_09 VALUES ('x', 10, 0, 1.0)",
		"DELETE FROM pk_09",
		"CREATE TABLE fx.t_new (id INT PRIMARY KEY)",
	} {
		if _, err := db.Exec(q); err == nil {
			t.Errorf("%s on a read-only server: no error", q)
		} else if mysqlErrNo(err) == 0 {
			t.Errorf("%s: %v is not a MySQL error", q, err)
		}
	}
	if after := queryStrings(t, db, "SELECT COUNT(*) FROM pk_09"); after[0][0] != before[0][0] {
		t.Errorf("COUNT(*) changed from %s to %s", before[0][0], after[0][0])
	}
}

// TestServerOrderByAndLimit: ORDER BY on a primary-key table comes back
// sorted (GMS must keep the Sort: buckets interleave), with and without a
// key filter that goes through the PRIMARY index; LIMIT 1 returns one row.
func TestServerOrderByAndLimit(t *testing.T) {
	db := serverDB(t)
	f := loadTTFixture(t)
	var keys []string // f0 of the latest rows, sorted
	for _, r := range f.latest {
		keys = append(keys, strings.SplitN(r, "|", 2)[0])
	}
	slices.Sort(keys)
	for _, c := range []struct {
		q    string
		want []string
	}{
		{"SELECT f0 FROM " + ttTable + " ORDER BY f0", keys},
		{"SELECT f0 FROM " + ttTable + " ORDER BY f0, f1, f2", keys},
		{"SELECT f0 FROM " + ttTable + " ORDER BY f0 DESC", reversed(keys)},
		{"SELECT f0 FROM " + ttTable + " WHERE f0 > 'B' ORDER BY f0", filter(keys, func(k string) bool { return k > "B" })},
		{"SELECT f0 FROM " + ttTable + " WHERE f0 BETWEEN 'B' AND 'M' ORDER BY f0 DESC", reversed(filter(keys, func(k string) bool { return k >= "B" && k <= "M" }))},
		{"SELECT f0 FROM " + ttTable + " ORDER BY f0 LIMIT 3", keys[:3]},
		{"SELECT f0 FROM " + ttTable + " ORDER BY f0 LIMIT 2 OFFSET 1", keys[1:3]},
	} {
		if got := column(queryStrings(t, db, c.q), 0); !slices.Equal(got, c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.q, got, c.want)
		}
	}
	for _, q := range []string{
		"SELECT * FROM " + ttTable + " LIMIT 1",
		"SELECT * FROM pk_09 LIMIT 1",
		"SELECT * FROM append_with_bloomfilter LIMIT 1",
		"SELECT * FROM " + ttTable + " AS OF 2 LIMIT 1",
	} {
		if got := queryStrings(t, db, q); len(got) != 1 {
			t.Errorf("%s: %d rows", q, len(got))
		}
	}
	if got := queryStrings(t, db, "SELECT * FROM "+ttTable+" LIMIT 0"); len(got) != 0 {
		t.Errorf("LIMIT 0: %d rows", len(got))
	}
}

// TestServerSelfJoin joins a primary-key table with itself on its key (a
// lookup join through the PRIMARY index) and on a non-key column (a hash
// join): every row matches itself.
func TestServerSelfJoin(t *testing.T) {
	db := serverDB(t)
	n := queryStrings(t, db, "SELECT COUNT(*) FROM "+ttTable)[0][0]
	for _, q := range []string{
		"SELECT COUNT(*) FROM " + ttTable + " a JOIN " + ttTable + " b ON a.f0 = b.f0",
		"SELECT COUNT(*) FROM " + ttTable + " a JOIN " + ttTable + " b ON a.f0 = b.f0 AND a.f1 = b.f1 AND a.f2 = b.f2",
		"SELECT COUNT(*) FROM " + ttTable + " a WHERE EXISTS (SELECT 1 FROM " + ttTable + " b WHERE b.f0 = a.f0 AND b.f1 = a.f1 AND b.f2 = a.f2)",
	} {
		if got := queryStrings(t, db, q)[0][0]; got != n {
			t.Errorf("%s = %s, want %s (the row count)", q, got, n)
		}
	}
}

// TestServerParallelConnections: the same queries on 8 connections at once
// give identical results.
func TestServerParallelConnections(t *testing.T) {
	db := openServerDB(t, "parseTime=true&interpolateParams=true")
	db.SetMaxOpenConns(8)
	queries := []string{
		"SELECT * FROM " + ttTable + " ORDER BY f0",
		"SELECT f0, f3 FROM " + ttTable + " AS OF 2 ORDER BY f0",
		"SELECT f0, f1 FROM pk_09 WHERE f1 = 10 ORDER BY f0, f2",
		"SELECT * FROM append_with_bloomfilter ORDER BY f0",
		"SELECT COUNT(*), SUM(f3) FROM pk_table_scan_and_read_dv",
		"SELECT * FROM append_complex_build_in_fieldid ORDER BY f5",
	}
	run := func() (string, error) {
		ctx := context.Background()
		conn, err := db.Conn(ctx)
		if err != nil {
			return "", err
		}
		defer conn.Close()
		var b strings.Builder
		for _, q := range queries {
			_, rows, err := queryRows(ctx, conn, q)
			if err != nil {
				return "", fmt.Errorf("%s: %w", q, err)
			}
			fmt.Fprintf(&b, "%s\n", q)
			for _, r := range rows {
				for _, v := range r {
					fmt.Fprintf(&b, "%s\t", textOf(v))
				}
				b.WriteByte('\n')
			}
		}
		return b.String(), nil
	}
	want, err := run()
	if err != nil {
		t.Fatal(err)
	}
	const conns, rounds = 8, 2
	results := make([]string, conns*rounds)
	errs := make([]error, conns*rounds)
	var wg sync.WaitGroup
	for c := 0; c < conns; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				results[c*rounds+r], errs[c*rounds+r] = run()
			}
		}()
	}
	wg.Wait()
	for i := range results {
		if errs[i] != nil {
			t.Errorf("connection %d round %d: %v", i/rounds, i%rounds, errs[i])
		} else if results[i] != want {
			t.Errorf("connection %d round %d: results differ from the serial run", i/rounds, i%rounds)
		}
	}
	if strings.Count(want, "\n") < 30 {
		t.Errorf("the queries returned too few rows to mean anything:\n%s", want)
	}
}

func reversed(s []string) []string {
	out := slices.Clone(s)
	slices.Reverse(out)
	return out
}

func filter(s []string, keep func(string) bool) []string {
	var out []string
	for _, v := range s {
		if keep(v) {
			out = append(out, v)
		}
	}
	return out
}
