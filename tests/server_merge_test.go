package tests

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/sqlengine"
)

// MERGE INTO and INSERT OVERWRITE through the MySQL protocol, on a writable
// server over an empty temporary warehouse (database mw).

type mergeServer struct {
	addr string
	db   *sql.DB
	conn *sql.Conn // one session, for transactions
}

func startMergeServer(t *testing.T) *mergeServer {
	t.Helper()
	srv, err := sqlengine.New(context.Background(), sqlengine.Config{Warehouse: t.TempDir(), Host: "127.0.0.1", Port: 0})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Start() }()
	t.Cleanup(func() {
		srv.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("server did not stop")
		}
	})
	open := func(db string) *sql.DB {
		d, err := sql.Open("mysql", fmt.Sprintf("root@tcp(%s)/%s?parseTime=true&interpolateParams=true", srv.Addr(), db))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		return d
	}
	boot := open("")
	waitReady(t, boot)
	if _, err := boot.Exec("CREATE DATABASE mw"); err != nil {
		t.Fatal(err)
	}
	s := &mergeServer{addr: srv.Addr(), db: open("mw")}
	s.conn, err = s.db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.conn.Close() })
	return s
}

// exec runs statements on the server's session connection.
func (s *mergeServer) exec(t *testing.T, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if _, err := s.conn.ExecContext(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// affected runs q and returns its affected-row count.
func (s *mergeServer) affected(t *testing.T, q string) int64 {
	t.Helper()
	res, err := s.conn.ExecContext(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// fails runs q, which must fail with MySQL error code (0: any code).
func (s *mergeServer) fails(t *testing.T, q string, code uint16, want string) {
	t.Helper()
	_, err := s.conn.ExecContext(context.Background(), q)
	if err == nil {
		t.Fatalf("%s: succeeded, want an error", q)
	}
	if code != 0 && mysqlErrNo(err) != code {
		t.Errorf("%s: error %v, want code %d", q, err, code)
	}
	if !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(want)) {
		t.Errorf("%s: error %q, want it to mention %q", q, err, want)
	}
}

// rows returns the rows of q as text lines, sorted.
func (s *mergeServer) rows(t *testing.T, q string) []string {
	t.Helper()
	var out []string
	for _, r := range queryStrings(t, s.conn, q) {
		out = append(out, strings.Join(r, "|"))
	}
	slices.Sort(out)
	return out
}

func (s *mergeServer) snapshots(t *testing.T, table string) []string {
	t.Helper()
	return s.rows(t, "SELECT snapshot_id, commit_kind FROM `"+table+"$snapshots`")
}

func mergeSameRows(t *testing.T, what string, got, want []string) {
	t.Helper()
	want = slices.Sorted(slices.Values(want))
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

// count returns the number of snapshots of table.
func (s *mergeServer) count(t *testing.T, table string) int { return len(s.snapshots(t, table)) }

// mergeBase creates tgt and its twin ref with the same rows, and src.
func mergeBase(t *testing.T, s *mergeServer) {
	for _, tbl := range []string{"tgt", "ref"} {
		s.exec(t,
			"CREATE TABLE "+tbl+" (id INT PRIMARY KEY, v INT, name VARCHAR(20) NOT NULL)",
			"INSERT INTO "+tbl+" VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, 'c'), (4, 5, 'd'), (7, 70, 'g')")
	}
	s.exec(t,
		"CREATE TABLE src (id INT PRIMARY KEY, v INT, name VARCHAR(20), op VARCHAR(1))",
		"INSERT INTO src VALUES (1, 11, 'A', 'U'), (2, 0, 'B', 'D'), (3, 3, 'C', 'U'), (4, 44, 'D', 'U'), (5, 50, 'E', 'I'), (6, 60, 'F', 'D'), (8, NULL, 'H', 'I')")
}

// TestServerMergeMatchesHandWritten compares a MERGE with the same changes
// made by hand with DELETE, UPDATE … JOIN and INSERT … SELECT.
func TestServerMergeMatchesHandWritten(t *testing.T) {
	s := startMergeServer(t)
	mergeBase(t, s)
	before := s.count(t, "tgt")
	n := s.affected(t, `MERGE INTO tgt AS t USING src AS s ON t.id = s.id
		WHEN MATCHED AND s.op = 'D' THEN DELETE
		WHEN MATCHED AND s.v > t.v THEN UPDATE SET v = s.v, t.name = CONCAT(t.name, s.name)
		WHEN NOT MATCHED AND s.op <> 'D' THEN INSERT (id, v, name) VALUES (s.id, COALESCE(s.v, -1), LOWER(s.name))`)
	// By hand, against the state before: the matched rows of each clause
	// are disjoint here, so the order below gives the same result.
	s.exec(t,
		"INSERT INTO ref (id, v, name) SELECT s.id, COALESCE(s.v, -1), LOWER(s.name) FROM src s WHERE s.op <> 'D' AND s.id NOT IN (SELECT id FROM ref)",
		"DELETE FROM ref WHERE id IN (SELECT id FROM src WHERE op = 'D')",
		"UPDATE ref SET name = CONCAT(name, (SELECT s.name FROM src s WHERE s.id = ref.id)), v = (SELECT s.v FROM src s WHERE s.id = ref.id) "+
			"WHERE EXISTS (SELECT 1 FROM src s WHERE s.id = ref.id AND s.op <> 'D' AND s.v > ref.v)",
	)
	want := []string{"1|11|aA", "3|30|c", "4|44|dD", "5|50|e", "7|70|g", "8|-1|h"}
	mergeSameRows(t, "MERGE result", s.rows(t, "SELECT * FROM tgt"), want)
	mergeSameRows(t, "by hand", s.rows(t, "SELECT * FROM ref"), want)
	if n != 5 { // 1 delete, 2 updates, 2 inserts
		t.Errorf("MERGE affected %d rows, want 5", n)
	}
	if got := s.count(t, "tgt"); got != before+1 {
		t.Errorf("MERGE made %d snapshots, want 1", got-before)
	}
}

// TestServerMergeFirstClauseWins: each matched row takes the first clause
// whose condition is TRUE on the row as it was before the MERGE (a NULL
// condition does not hold), even when an earlier clause's update would make
// a later clause's condition true.
func TestServerMergeFirstClauseWins(t *testing.T) {
	s := startMergeServer(t)
	s.exec(t,
		"CREATE TABLE t1 (id INT PRIMARY KEY, v INT, flag BOOLEAN)",
		"INSERT INTO t1 VALUES (1, 5, NULL), (2, 50, TRUE), (3, 7, FALSE), (4, 8, TRUE), (5, 500, NULL)",
		"CREATE TABLE s1 (id INT PRIMARY KEY, flag BOOLEAN)",
		"INSERT INTO s1 VALUES (1, NULL), (2, NULL), (3, TRUE), (4, FALSE), (5, NULL)",
	)
	n := s.affected(t, `MERGE INTO t1 USING s1 ON t1.id = s1.id
		WHEN MATCHED AND t1.v < 10 AND s1.flag THEN UPDATE SET v = t1.v + 1000
		WHEN MATCHED AND t1.v < 10 THEN UPDATE SET v = t1.v + 100
		WHEN MATCHED AND t1.v > 100 THEN DELETE
		WHEN MATCHED AND t1.v + 100 > 100 THEN UPDATE SET flag = NOT COALESCE(t1.flag, FALSE)`)
	mergeSameRows(t, "t1", s.rows(t, "SELECT id, v, flag FROM t1"), []string{"1|105|NULL", "2|50|0", "3|1007|0", "4|108|1"})
	if n != 5 {
		t.Errorf("affected %d, want 5", n)
	}
}

// TestServerMergeSubquerySource deduplicates the source in a subquery.
func TestServerMergeSubquerySource(t *testing.T) {
	s := startMergeServer(t)
	s.exec(t,
		"CREATE TABLE totals (id INT PRIMARY KEY, total BIGINT, n INT)",
		"INSERT INTO totals VALUES (1, 100, 1), (2, 200, 2)",
		"CREATE TABLE events (eid INT PRIMARY KEY, id INT, amount INT)",
		"INSERT INTO events VALUES (1, 1, 5), (2, 1, 7), (3, 3, 1), (4, 3, 2), (5, 3, 3), (6, 2, 0)",
	)
	// Joined directly, events would match totals row 1 twice: an error.
	s.fails(t, `MERGE INTO totals t USING events e ON t.id = e.id
		WHEN MATCHED THEN UPDATE SET total = t.total + e.amount`, 0, "more than one source row")
	n := s.affected(t, `MERGE INTO totals t
		USING (SELECT id, SUM(amount) AS amount, COUNT(*) AS n FROM events GROUP BY id) s
		ON t.id = s.id
		WHEN MATCHED AND s.amount = 0 THEN DELETE
		WHEN MATCHED THEN UPDATE SET total = t.total + s.amount, n = t.n + s.n
		WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.amount, s.n)`)
	mergeSameRows(t, "totals", s.rows(t, "SELECT * FROM totals"), []string{"1|112|3", "3|6|3"})
	if n != 3 {
		t.Errorf("affected %d, want 3", n)
	}
	// Source rows matched to a target row that no clause acts on may repeat.
	n = s.affected(t, `MERGE INTO totals t USING events e ON t.id = e.id
		WHEN MATCHED AND e.amount > 100 THEN DELETE`)
	if n != 0 {
		t.Errorf("affected %d, want 0", n)
	}
}

// TestServerMergeSnapshotsAndTransactions: an autocommit MERGE is one
// snapshot; inside BEGIN … ROLLBACK nothing is written; inside BEGIN …
// COMMIT it joins the transaction's single snapshot; a MERGE that fails
// half-way inside a transaction leaves the transaction's other writes.
func TestServerMergeSnapshotsAndTransactions(t *testing.T) {
	s := startMergeServer(t)
	mergeBase(t, s)
	const m = `MERGE INTO tgt t USING src s ON t.id = s.id
		WHEN MATCHED AND s.op = 'D' THEN DELETE
		WHEN MATCHED THEN UPDATE SET v = s.v
		WHEN NOT MATCHED THEN INSERT (id, name) VALUES (s.id, s.name)`
	orig := s.rows(t, "SELECT * FROM tgt")
	before := s.snapshots(t, "tgt")

	s.exec(t, "BEGIN", m)
	inTx := s.rows(t, "SELECT * FROM tgt")
	s.exec(t, "ROLLBACK")
	mergeSameRows(t, "after ROLLBACK", s.rows(t, "SELECT * FROM tgt"), orig)
	mergeSameRows(t, "snapshots after ROLLBACK", s.snapshots(t, "tgt"), before)
	want := []string{"1|11|a", "3|3|c", "4|44|d", "5|NULL|E", "6|NULL|F", "7|70|g", "8|NULL|H"}
	mergeSameRows(t, "read inside the transaction", inTx, want)

	s.exec(t, "BEGIN", "INSERT INTO tgt VALUES (9, 90, 'i')", m, "UPDATE tgt SET v = 0 WHERE id = 7", "COMMIT")
	mergeSameRows(t, "after COMMIT", s.rows(t, "SELECT * FROM tgt"),
		[]string{"1|11|a", "3|3|c", "4|44|d", "5|NULL|E", "6|NULL|F", "7|0|g", "8|NULL|H", "9|90|i"})
	after := s.snapshots(t, "tgt")
	if len(after) != len(before)+1 {
		t.Fatalf("BEGIN … COMMIT made %d snapshots, want 1", len(after)-len(before))
	}

	// Autocommit: exactly one new snapshot; the old one still reads the old rows.
	s.exec(t, "UPDATE src SET op = 'U'", "UPDATE src SET v = v + 1")
	last := len(after)
	s.exec(t, m)
	if got := s.count(t, "tgt"); got != last+1 {
		t.Errorf("autocommit MERGE made %d snapshots, want 1", got-last)
	}
	mergeSameRows(t, "AS OF the snapshot before the MERGE", s.rows(t, fmt.Sprintf("SELECT * FROM tgt AS OF %d", last)),
		[]string{"1|11|a", "3|3|c", "4|44|d", "5|NULL|E", "6|NULL|F", "7|0|g", "8|NULL|H", "9|90|i"})
	mergeSameRows(t, "after autocommit MERGE", s.rows(t, "SELECT * FROM tgt"),
		[]string{"1|12|a", "2|NULL|B", "3|4|c", "4|45|d", "5|51|E", "6|61|F", "7|0|g", "8|NULL|H", "9|90|i"})

	// A MERGE whose deletes are buffered before an update fails (NOT NULL)
	// is discarded as a whole; the transaction's other writes stay.
	s.exec(t, "UPDATE src SET op = 'D' WHERE id = 1", "UPDATE src SET name = NULL WHERE id = 3")
	cur := s.rows(t, "SELECT * FROM tgt")
	s.exec(t, "BEGIN", "INSERT INTO tgt VALUES (10, 100, 'j')")
	s.fails(t, `MERGE INTO tgt t USING src s ON t.id = s.id
		WHEN MATCHED AND s.op = 'D' THEN DELETE
		WHEN MATCHED THEN UPDATE SET name = s.name`, 1048, "name")
	s.exec(t, "COMMIT")
	mergeSameRows(t, "after a failed MERGE in a transaction", s.rows(t, "SELECT * FROM tgt"), append(cur, "10|100|j"))
}

// TestServerMergeErrors: errors leave the table and its snapshots as they
// were, and the connection usable.
func TestServerMergeErrors(t *testing.T) {
	s := startMergeServer(t)
	mergeBase(t, s)
	s.exec(t, "CREATE TABLE app (id INT, v INT)")
	orig := s.rows(t, "SELECT * FROM tgt")
	snaps := s.snapshots(t, "tgt")
	for _, c := range []struct {
		q    string
		code uint16
		want string
	}{
		{"MERGE INTO tgt t USING src s ON t.id = s.id WHEN MATCHED DELETE", 1064, "THEN"},
		{"MERGE INTO tgt t USING src s ON t.id = s.id", 1064, "MATCHED"},
		{"MERGE INTO tgt t USING src s WHEN MATCHED THEN DELETE", 1064, "ON"},
		{"MERGE INTO tgt t USING (SELECT * FROM src) ON t.id = src.id WHEN MATCHED THEN DELETE", 1064, "alias"},
		{"MERGE INTO tgt t USING src s ON t.id = s.id WHEN NOT MATCHED THEN DELETE", 1064, "only INSERT"},
		{"MERGE INTO tgt t USING src s ON t.id = s.id WHEN MATCHED THEN INSERT VALUES (1, 2, 'x')", 1064, "cannot INSERT"},
		{"MERGE INTO tgt t USING src s ON (t.id = s.id WHEN MATCHED THEN DELETE", 1064, "unbalanced"},
		{"MERGE INTO tgt t USING src s ON t.id = s.id WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id)", 1064, "2 columns but has 1"},
		{"MERGE INTO nosuch t USING src s ON t.id = s.id WHEN MATCHED THEN DELETE", 1146, "nosuch"},
		{"MERGE INTO tgt t USING nosuch s ON t.id = s.id WHEN MATCHED THEN DELETE", 1146, "nosuch"},
		{"MERGE INTO tgt t USING src s ON t.id = s.id WHEN MATCHED THEN UPDATE SET nosuch = 1", 1054, "nosuch"},
		{"MERGE INTO tgt t USING src s ON t.id = s.nosuch WHEN MATCHED THEN DELETE", 1054, "nosuch"},
		{"MERGE INTO tgt t USING src s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.nosuch", 1054, "nosuch"},
		{"MERGE INTO tgt t USING src s ON t.id = s.id WHEN NOT MATCHED THEN INSERT (id, name) VALUES (s.id, NULL)", 1048, "name"},
		{"MERGE INTO tgt t USING src s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = 'abc'", 0, "abc"},
		{"MERGE INTO tgt t USING src s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = 99999999999", 0, "out of range"},
		{"MERGE INTO tgt t USING src s ON t.v > 0 WHEN MATCHED THEN DELETE", 0, "more than one source row"},
		{"MERGE INTO app t USING src s ON t.id = s.id WHEN MATCHED THEN DELETE", 0, "primary key"},
	} {
		s.fails(t, c.q, c.code, c.want)
	}
	mergeSameRows(t, "tgt after errors", s.rows(t, "SELECT * FROM tgt"), orig)
	mergeSameRows(t, "tgt snapshots after errors", s.snapshots(t, "tgt"), snaps)
	// The protocol layer parses prepared statements before any handler:
	// a server-side prepared MERGE is a syntax error.
	if _, err := s.conn.PrepareContext(context.Background(), "MERGE INTO tgt t USING src s ON t.id = s.id WHEN MATCHED AND s.v = ? THEN DELETE"); err == nil {
		t.Errorf("prepared MERGE succeeded")
	}
	// Append tables accept insert-only MERGE.
	if n := s.affected(t, "MERGE INTO app USING src ON app.id = src.id WHEN NOT MATCHED AND src.v IS NOT NULL THEN INSERT VALUES (src.id, src.v)"); n != 6 {
		t.Errorf("insert-only MERGE into an append table affected %d, want 6", n)
	}
}

// TestServerMergePartialUpdate merges into a Flink-DDL partial-update table
// and compares with UPDATE … JOIN / INSERT … SELECT by hand.
func TestServerMergePartialUpdate(t *testing.T) {
	s := startMergeServer(t)
	for _, tbl := range []string{"pu", "pu_ref"} {
		s.exec(t,
			"CREATE TABLE "+tbl+" (id INT, a INT, b STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('merge-engine' = 'partial-update', 'bucket' = '2')",
			"INSERT INTO "+tbl+" VALUES (1, 1, 'x'), (2, 2, 'y'), (3, 3, NULL)")
	}
	s.exec(t,
		"CREATE TABLE up (id INT PRIMARY KEY, a INT, b VARCHAR(10))",
		"INSERT INTO up VALUES (1, 10, NULL), (3, NULL, 'z'), (4, 40, 'w')")
	s.affected(t, `MERGE INTO pu USING up ON pu.id = up.id
		WHEN MATCHED THEN UPDATE SET a = up.a, b = up.b
		WHEN NOT MATCHED THEN INSERT (id, a) VALUES (up.id, up.a)`)
	s.exec(t,
		"INSERT INTO pu_ref (id, a) SELECT id, a FROM up WHERE id NOT IN (SELECT id FROM pu_ref)",
		"UPDATE pu_ref SET a = 10, b = NULL WHERE id = 1",
		"UPDATE pu_ref SET a = NULL, b = 'z' WHERE id = 3")
	// partial-update keeps the old value where the new one is NULL.
	want := []string{"1|10|x", "2|2|y", "3|3|z", "4|40|NULL"}
	mergeSameRows(t, "MERGE", s.rows(t, "SELECT * FROM pu"), want)
	mergeSameRows(t, "by hand", s.rows(t, "SELECT * FROM pu_ref"), want)
}

// TestServerMergePartitionedStar: a partitioned Flink-DDL table with two
// buckets, UPDATE SET * / INSERT *, and WHEN NOT MATCHED BY SOURCE.
func TestServerMergePartitionedStar(t *testing.T) {
	s := startMergeServer(t)
	s.exec(t,
		"CREATE TABLE pt (id INT, dt STRING, v DOUBLE, PRIMARY KEY (id, dt) NOT ENFORCED) PARTITIONED BY (dt) WITH ('bucket' = '2')",
		"INSERT INTO pt VALUES (1, 'a', 1.5), (2, 'a', 2.5), (3, 'b', 3.5), (4, 'b', 4.5), (5, 'c', 5.5)",
		"CREATE TABLE ps (id INT, dt VARCHAR(10), v DOUBLE, PRIMARY KEY (id, dt))",
		"INSERT INTO ps VALUES (1, 'a', 10), (3, 'b', 30), (6, 'b', 60), (7, 'd', 70)",
	)
	n := s.affected(t, "MERGE INTO mw.pt AS t USING mw.ps AS s ON t.id = s.id AND t.dt = s.dt "+
		"WHEN MATCHED THEN UPDATE SET * "+
		"WHEN NOT MATCHED THEN INSERT * "+
		"WHEN NOT MATCHED BY SOURCE AND t.dt = 'b' THEN DELETE "+
		"WHEN NOT MATCHED BY SOURCE THEN UPDATE SET v = -t.v;")
	mergeSameRows(t, "pt", s.rows(t, "SELECT id, dt, v FROM pt"),
		[]string{"1|a|10", "2|a|-2.5", "3|b|30", "5|c|-5.5", "6|b|60", "7|d|70"})
	if n != 7 {
		t.Errorf("affected %d, want 7", n)
	}
}

// TestServerInsertOverwrite: dynamic and static partition overwrite, an
// unpartitioned table, OVERWRITE snapshots, time travel to before.
func TestServerInsertOverwrite(t *testing.T) {
	s := startMergeServer(t)
	s.exec(t,
		"CREATE TABLE p (id INT, v INT, dt STRING, PRIMARY KEY (id, dt) NOT ENFORCED) PARTITIONED BY (dt) WITH ('bucket' = '2')",
		"INSERT INTO p VALUES (1, 10, 'a'), (2, 20, 'a'), (3, 30, 'b'), (4, 40, 'b')",
	)
	lastKind := func() string {
		sn := s.snapshots(t, "p")
		slices.SortFunc(sn, func(a, b string) int { return len(a) - len(b) })
		return queryStrings(t, s.conn, "SELECT commit_kind FROM `p$snapshots` ORDER BY snapshot_id DESC LIMIT 1")[0][0]
	}
	// Dynamic: only partition a is written, so only a is replaced.
	if n := s.affected(t, "INSERT OVERWRITE p SELECT 10, 100, 'a'"); n != 1 {
		t.Errorf("affected %d, want 1", n)
	}
	mergeSameRows(t, "dynamic", s.rows(t, "SELECT * FROM p"), []string{"10|100|a", "3|30|b", "4|40|b"})
	if k := lastKind(); k != "OVERWRITE" {
		t.Errorf("commit_kind %s, want OVERWRITE", k)
	}
	mergeSameRows(t, "AS OF 1", s.rows(t, "SELECT * FROM p AS OF 1"), []string{"1|10|a", "2|20|a", "3|30|b", "4|40|b"})

	// Static from a SELECT of the table itself: the PARTITION value fills dt.
	s.exec(t, "INSERT OVERWRITE TABLE p PARTITION (dt = 'b') SELECT id + 100, v FROM p WHERE dt = 'a'")
	mergeSameRows(t, "static select", s.rows(t, "SELECT * FROM p"), []string{"10|100|a", "110|100|b"})
	// Static VALUES into a new partition, with a column list.
	s.exec(t, "INSERT OVERWRITE p PARTITION (dt='c') (v, id) VALUES (70, 7), ROW(80, 8)")
	mergeSameRows(t, "static values", s.rows(t, "SELECT * FROM p WHERE dt = 'c'"), []string{"7|70|c", "8|80|c"})
	// A static partition is replaced even by no rows.
	n0 := s.count(t, "p")
	s.exec(t, "INSERT OVERWRITE p PARTITION (dt = 'c') SELECT id, v FROM p WHERE 1 = 0")
	mergeSameRows(t, "static empty", s.rows(t, "SELECT * FROM p"), []string{"10|100|a", "110|100|b"})
	if k := lastKind(); k != "OVERWRITE" || s.count(t, "p") != n0+1 {
		t.Errorf("static empty overwrite: commit_kind %s, %d snapshots, want one OVERWRITE", k, s.count(t, "p")-n0)
	}
	// A dynamic overwrite of no rows changes nothing (Paimon skips it).
	n0 = s.count(t, "p")
	s.exec(t, "INSERT OVERWRITE p SELECT * FROM p WHERE 1 = 0")
	if got := s.count(t, "p"); got != n0 {
		t.Errorf("empty dynamic overwrite made %d snapshots", got-n0)
	}
	mergeSameRows(t, "dynamic empty", s.rows(t, "SELECT * FROM p"), []string{"10|100|a", "110|100|b"})

	// Inside BEGIN … ROLLBACK nothing is written.
	n0 = s.count(t, "p")
	s.exec(t, "BEGIN", "INSERT OVERWRITE p PARTITION (dt = 'a') VALUES (1, 1)", "ROLLBACK")
	mergeSameRows(t, "after ROLLBACK", s.rows(t, "SELECT * FROM p"), []string{"10|100|a", "110|100|b"})
	if got := s.count(t, "p"); got != n0 {
		t.Errorf("rolled back overwrite made %d snapshots", got-n0)
	}
	// Inside BEGIN … COMMIT: one OVERWRITE snapshot.
	s.exec(t, "BEGIN", "INSERT OVERWRITE p PARTITION (dt = 'a') VALUES (1, 1), (2, 2)", "COMMIT")
	mergeSameRows(t, "after COMMIT", s.rows(t, "SELECT * FROM p"), []string{"1|1|a", "110|100|b", "2|2|a"})
	if k := lastKind(); k != "OVERWRITE" || s.count(t, "p") != n0+1 {
		t.Errorf("overwrite in a transaction: commit_kind %s, %d snapshots", k, s.count(t, "p")-n0)
	}

	// Unpartitioned tables are replaced whole: primary-key and append.
	s.exec(t,
		"CREATE TABLE u (id INT PRIMARY KEY, v INT)", "INSERT INTO u VALUES (1, 1), (2, 2), (3, 3)",
		"CREATE TABLE ua (id INT, v INT)", "INSERT INTO ua VALUES (1, 1), (1, 1), (2, 2)",
		"INSERT OVERWRITE u VALUES (9, 90)",
		"INSERT OVERWRITE ua SELECT id, SUM(v) FROM ua GROUP BY id",
	)
	mergeSameRows(t, "u", s.rows(t, "SELECT * FROM u"), []string{"9|90"})
	mergeSameRows(t, "ua", s.rows(t, "SELECT * FROM ua"), []string{"1|2", "2|2"})
	mergeSameRows(t, "u AS OF 1", s.rows(t, "SELECT * FROM u AS OF 1"), []string{"1|1", "2|2", "3|3"})

	// Errors leave everything as it was.
	cur, snaps := s.rows(t, "SELECT * FROM p"), s.snapshots(t, "p")
	s.fails(t, "INSERT OVERWRITE p PARTITION (nope = 'x') SELECT 1, 2", 0, "not a partition column")
	s.fails(t, "INSERT OVERWRITE u PARTITION (id = 1) SELECT 2", 0, "not a partition column")
	s.fails(t, "INSERT OVERWRITE p PARTITION (dt = 'a') (dt) SELECT 'a'", 0, "static value")
	s.fails(t, "INSERT OVERWRITE p PARTITION (dt = 'a') SELECT 1", 0, "")
	s.fails(t, "INSERT OVERWRITE p PARTITION (dt = 'a' SELECT 1, 2", 1064, "")
	s.fails(t, "INSERT OVERWRITE p DELETE", 1064, "SELECT or VALUES")
	s.fails(t, "INSERT OVERWRITE nosuch SELECT 1", 1146, "nosuch")
	s.fails(t, "INSERT OVERWRITE p PARTITION (dt = NULL) SELECT 1, 2", 1235, "NULL")
	mergeSameRows(t, "p after errors", s.rows(t, "SELECT * FROM p"), cur)
	mergeSameRows(t, "p snapshots after errors", s.snapshots(t, "p"), snaps)
}

// TestServerMergeMultiStatement: MERGE and INSERT OVERWRITE inside a
// multi-statement query run in order with the statements around them.
func TestServerMergeMultiStatement(t *testing.T) {
	s := startMergeServer(t)
	mergeBase(t, s)
	s.exec(t, "CREATE TABLE u (id INT PRIMARY KEY, v INT)", "INSERT INTO u VALUES (1, 1)")
	db, err := sql.Open("mysql", fmt.Sprintf("root@tcp(%s)/mw?multiStatements=true", s.addr))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("DELETE FROM src WHERE op = 'D'; " +
		"MERGE INTO tgt USING src ON tgt.id = src.id WHEN MATCHED THEN DELETE; " +
		"INSERT OVERWRITE u SELECT id, v FROM tgt; " +
		"UPDATE u SET v = v + 1"); err != nil {
		t.Fatal(err)
	}
	mergeSameRows(t, "tgt", s.rows(t, "SELECT id FROM tgt"), []string{"2", "7"})
	mergeSameRows(t, "u", s.rows(t, "SELECT * FROM u"), []string{"2|21", "7|71"})
}
