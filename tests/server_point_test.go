package tests

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/internal/metrics"
)

// rawResult is a result as the client receives it: the column definitions
// and every value's raw bytes (nil for NULL).
type rawResult struct {
	cols []string
	rows []string
}

func rawQuery(t *testing.T, q queryer, query string, args ...any) rawResult {
	t.Helper()
	rs, err := q.QueryContext(context.Background(), query, args...)
	if err != nil {
		t.Fatalf("%s %v: %v", query, args, err)
	}
	defer rs.Close()
	cts, err := rs.ColumnTypes()
	if err != nil {
		t.Fatal(err)
	}
	var out rawResult
	for _, ct := range cts {
		l, _ := ct.Length()
		p, s, _ := ct.DecimalSize()
		n, _ := ct.Nullable()
		out.cols = append(out.cols, fmt.Sprintf("%s %s len=%d dec=%d,%d null=%v", ct.Name(), ct.DatabaseTypeName(), l, p, s, n))
	}
	vals := make([]sql.RawBytes, len(cts))
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rs.Next() {
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, v := range vals {
			if v == nil {
				b.WriteString("NULL|")
			} else {
				fmt.Fprintf(&b, "%q|", v)
			}
		}
		out.rows = append(out.rows, b.String())
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPointQueriesEqualPlannedQueries: point queries (SELECT by the whole
// primary key, plain and server-side prepared) answered by the point-query
// front return exactly what the planner returns for the same statement
// (kept from the front by a comment), column definitions and bytes alike,
// for random present and absent keys of a table with a composite key
// (partition STRING, BIGINT, VARCHAR) and columns of many types with NULLs,
// across writes, an ALTER TABLE and a transaction (which the front leaves to
// the planner); and most of them are answered directly.
func TestPointQueriesEqualPlannedQueries(t *testing.T) {
	wh := t.TempDir()
	addr := startWarehouseServer(t, wh)
	mustExec(t, openWarehouseDB(t, addr, "", ""), "CREATE DATABASE pq")
	db := openWarehouseDB(t, addr, "pq", "")
	prep := openWarehouseDB(t, addr, "pq", "&interpolateParams=false")
	mustExec(t, db, `CREATE TABLE t (dt STRING, id BIGINT, code VARCHAR(8), amt DECIMAL(12,2), ok BOOLEAN, ts TIMESTAMP(3),
		d DATE, f DOUBLE, note STRING, PRIMARY KEY (dt, id, code) NOT ENFORCED) PARTITIONED BY (dt) WITH ('bucket' = '3')`)
	rng := rand.New(rand.NewPCG(5, 15))
	type key struct {
		dt   string
		id   int64
		code string
	}
	var keys []key
	insert := func(n int) {
		var vals []string
		for range n {
			k := key{fmt.Sprintf("2026-01-0%d", 1+rng.IntN(3)), rng.Int64N(1000) - 500, []string{"a", "B", "ab", "é", ""}[rng.IntN(5)]}
			keys = append(keys, k)
			note := "NULL"
			if rng.IntN(3) > 0 {
				note = fmt.Sprintf("'n%d'", rng.IntN(100))
			}
			vals = append(vals, fmt.Sprintf("('%s', %d, '%s', %d.%02d, %v, '2026-01-01 10:00:00.%03d', '2025-12-%02d', %g, %s)",
				k.dt, k.id, k.code, rng.IntN(10000), rng.IntN(100), rng.IntN(2) == 0, rng.IntN(1000), 1+rng.IntN(28), rng.Float64()*100, note))
		}
		mustExec(t, db, "INSERT INTO t (dt, id, code, amt, ok, ts, d, f, note) VALUES "+strings.Join(vals, ", "))
	}
	check := func(round int) {
		t.Helper()
		for i := range 60 {
			k := keys[rng.IntN(len(keys))]
			if i%4 == 0 {
				k.id += 1000 // absent
			}
			cols := []string{"*", "note, id", "amt, ts, d, ok, f, code"}[i%3]
			where := fmt.Sprintf("dt = '%s' AND id = %d AND code = '%s'", k.dt, k.id, strings.ReplaceAll(k.code, "'", "''"))
			want := rawQuery(t, db, "SELECT /* planned */ "+cols+" FROM t WHERE "+where)
			got := rawQuery(t, db, "SELECT "+cols+" FROM t WHERE "+where)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("round %d: SELECT %s WHERE %s:\n got %v\nwant %v", round, cols, where, got, want)
			}
			pq := "SELECT " + cols + " FROM t WHERE code = ? AND id = ? AND dt = ?"
			gotP := rawQuery(t, prep, pq, k.code, k.id, k.dt)
			wantP := rawQuery(t, prep, strings.Replace(pq, "SELECT", "SELECT /* planned */", 1), k.code, k.id, k.dt)
			if fmt.Sprint(gotP) != fmt.Sprint(wantP) {
				t.Fatalf("round %d: prepared %s %v:\n got %v\nwant %v", round, pq, k, gotP, wantP)
			}
		}
	}
	direct := metrics.PointQueries.With("direct")
	before := direct.Load()
	insert(200)
	check(1)
	insert(50)
	mustExec(t, db, "UPDATE t SET note = 'upd' WHERE id > 0", "DELETE FROM t WHERE id < -400")
	check(2)
	mustExec(t, db, "ALTER TABLE t ADD COLUMN extra INT")
	insert(20)
	check(3)
	// Inside a transaction the planner answers, and sees the pending write.
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var k key
	if err := db.QueryRow("SELECT dt, id, code FROM t LIMIT 1").Scan(&k.dt, &k.id, &k.code); err != nil {
		t.Fatal(err)
	}
	mustExec(t, conn, "BEGIN", fmt.Sprintf("UPDATE t SET note = 'tx' WHERE dt = '%s' AND id = %d AND code = '%s'", k.dt, k.id, k.code))
	got := rawQuery(t, conn, fmt.Sprintf("SELECT note FROM t WHERE dt = '%s' AND id = %d AND code = '%s'", k.dt, k.id, k.code))
	mustExec(t, conn, "ROLLBACK")
	if len(got.rows) != 1 || got.rows[0] != `"tx"|` {
		t.Fatalf("point query in a transaction: %v, want the pending write", got.rows)
	}
	n := direct.Load() - before
	t.Logf("%d point queries answered directly", n)
	if n < 200 {
		t.Fatalf("only %d point queries were answered directly: the front is not in use", n)
	}
}

// TestPointQueryPrivileges: the point-query front checks the SELECT
// privilege as the planner does (error 1142), for an account that may read
// one table but not another of the same shape.
func TestPointQueryPrivileges(t *testing.T) {
	wh := t.TempDir()
	addr := startWarehouseServer(t, wh)
	root := openWarehouseDB(t, addr, "", "")
	mustExec(t, root, "CREATE DATABASE pp", "USE pp",
		"CREATE TABLE a (id BIGINT PRIMARY KEY, v INT)", "CREATE TABLE b (id BIGINT PRIMARY KEY, v INT)",
		"INSERT INTO a VALUES (1, 10)", "INSERT INTO b VALUES (1, 20)",
		"CREATE USER 'r'@'%' IDENTIFIED BY 'pw'", "GRANT SELECT ON pp.a TO 'r'@'%'")
	for range 20 { // warm both shapes for root
		rawQuery(t, root, "SELECT v FROM pp.a WHERE id = 1")
		rawQuery(t, root, "SELECT v FROM pp.b WHERE id = 1")
	}
	r, err := sql.Open("mysql", fmt.Sprintf("r:pw@tcp(%s)/pp", addr))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for range 3 {
		got := rawQuery(t, r, "SELECT v FROM pp.a WHERE id = 1")
		if len(got.rows) != 1 || got.rows[0] != `"10"|` {
			t.Fatalf("a: %v", got.rows)
		}
		_, err := r.Query("SELECT v FROM pp.b WHERE id = 1")
		if mysqlErrNo(err) != 1142 {
			t.Fatalf("b without the privilege: %v, want error 1142", err)
		}
	}
}

// TestPointQueriesSeeOtherServersCommits: a server answering point queries
// directly (and reusing the plan of a table's snapshot between them) sees
// every commit another server on the same warehouse acknowledged before the
// query: random inserts, updates (to NULL too) and deletes through server B
// are read through server A, plain and prepared, for present, updated,
// deleted and never-written keys, equal to a model of the table; and AS OF
// each earlier snapshot still reads that snapshot's rows.
func TestPointQueriesSeeOtherServersCommits(t *testing.T) {
	wh := t.TempDir()
	addrA, addrB := startWarehouseServer(t, wh), startWarehouseServer(t, wh)
	mustExec(t, openWarehouseDB(t, addrB, "", ""), "CREATE DATABASE fresh")
	a := openWarehouseDB(t, addrA, "fresh", "")
	aPrep := openWarehouseDB(t, addrA, "fresh", "&interpolateParams=false")
	b := openWarehouseDB(t, addrB, "fresh", "")
	mustExec(t, b, "CREATE TABLE t (id BIGINT PRIMARY KEY, v INT, s VARCHAR(10)) WITH ('bucket' = '2')")
	type row struct {
		v *int
		s *string
	}
	model := map[int64]row{}
	var history []map[int64]row // the model at each snapshot, by snapshot id - 1
	show := func(r row, ok bool) string {
		if !ok {
			return "[]"
		}
		out := "["
		if r.v == nil {
			out += "NULL|"
		} else {
			out += fmt.Sprintf("%q|", fmt.Sprint(*r.v))
		}
		if r.s == nil {
			out += "NULL|"
		} else {
			out += fmt.Sprintf("%q|", *r.s)
		}
		return out + "]"
	}
	rng := rand.New(rand.NewPCG(21, 22))
	lit := func(p *int) string {
		if p == nil {
			return "NULL"
		}
		return fmt.Sprint(*p)
	}
	slit := func(p *string) string {
		if p == nil {
			return "NULL"
		}
		return "'" + *p + "'"
	}
	direct := metrics.PointQueries.With("direct")
	before := direct.Load()
	for step := range 60 {
		// One commit through B.
		k := rng.Int64N(40)
		switch op := rng.IntN(4); {
		case op == 0 && len(model) > 0:
			mustExec(t, b, fmt.Sprintf("DELETE FROM t WHERE id = %d", k))
			delete(model, k)
		default:
			var r row
			if rng.IntN(4) > 0 {
				v := rng.IntN(1000)
				r.v = &v
			}
			if rng.IntN(4) > 0 {
				s := fmt.Sprintf("s%d", rng.IntN(100))
				r.s = &s
			}
			mustExec(t, b, fmt.Sprintf("INSERT INTO t VALUES (%d, %s, %s) ON DUPLICATE KEY UPDATE v = VALUES(v), s = VALUES(s)", k, lit(r.v), slit(r.s)))
			model[k] = r
		}
		var snap int
		if err := b.QueryRow("SELECT MAX(snapshot_id) FROM `t$snapshots`").Scan(&snap); err != nil {
			t.Fatal(err)
		}
		for len(history) < snap {
			history = append(history, nil)
		}
		history[snap-1] = maps.Clone(model)
		// Point queries through A: the key just written, and others.
		for i := range 6 {
			q := k
			if i > 0 {
				q = rng.Int64N(45) // some never written
			}
			r, ok := model[q]
			want := show(r, ok)
			got := fmt.Sprint(rawQuery(t, a, fmt.Sprintf("SELECT v, s FROM t WHERE id = %d", q)).rows)
			if got != want {
				t.Fatalf("step %d: server A, id %d: %s, want %s (server B committed snapshot %d)", step, q, got, want, snap)
			}
			if got := fmt.Sprint(rawQuery(t, aPrep, "SELECT v, s FROM t WHERE id = ?", q).rows); got != want {
				t.Fatalf("step %d: server A prepared, id %d: %s, want %s", step, q, got, want)
			}
		}
		// AS OF an earlier snapshot.
		if old := rng.IntN(len(history)); history[old] != nil {
			q := rng.Int64N(45)
			r, ok := history[old][q]
			got := fmt.Sprint(rawQuery(t, a, fmt.Sprintf("SELECT v, s FROM t AS OF %d WHERE id = %d", old+1, q)).rows)
			if want := show(r, ok); got != want {
				t.Fatalf("step %d: AS OF %d, id %d: %s, want %s", step, old+1, q, got, want)
			}
		}
	}
	if n := direct.Load() - before; n < 300 {
		t.Fatalf("only %d point queries were answered directly: the front is not in use", n)
	}
}
