package tests

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmread/inspect"
	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/snapshot"
)

// Compaction through the MySQL protocol: the automatic compaction of a
// server (copy-on-write tables, the write stall, write-only tables) and the
// dedicated compaction (lsmwrite.Compact, what `lakesql compact` and
// CALL sys.compact run) on tables a server writes.

// lsmShape is one bucket's files as $files shows them.
type lsmShape struct {
	partition string
	bucket    int
	levels    []int // level of every file
}

// runs counts the bucket's sorted runs.
func (s lsmShape) runs() int {
	n := 0
	var seen []int
	for _, l := range s.levels {
		if l == 0 {
			n++
		} else if !slices.Contains(seen, l) {
			seen = append(seen, l)
			n++
		}
	}
	return n
}

func tableShape(t testing.TB, q queryer, table, asOf string) []lsmShape {
	t.Helper()
	rows := queryStrings(t, q, fmt.Sprintf("SELECT `partition`, bucket, level FROM %s%s ORDER BY `partition`, bucket, level", sysTable(table, "files"), asOf))
	var out []lsmShape
	for _, r := range rows {
		b, _ := strconv.Atoi(r[1])
		l, _ := strconv.Atoi(r[2])
		if len(out) == 0 || out[len(out)-1].partition != r[0] || out[len(out)-1].bucket != b {
			out = append(out, lsmShape{partition: r[0], bucket: b})
		}
		out[len(out)-1].levels = append(out[len(out)-1].levels, l)
	}
	return out
}

// sysTable names the system table sys of table ("t" or "db.t").
func sysTable(table, sys string) string {
	if db, t, ok := strings.Cut(table, "."); ok {
		return fmt.Sprintf("`%s`.`%s$%s`", db, t, sys)
	}
	return fmt.Sprintf("`%s$%s`", table, sys)
}

// snapshotKinds lists commit_kind of every snapshot of table, in order.
func snapshotKinds(t testing.TB, q queryer, table string) []string {
	t.Helper()
	var out []string
	for _, r := range queryStrings(t, q, fmt.Sprintf("SELECT commit_kind FROM %s ORDER BY snapshot_id", sysTable(table, "snapshots"))) {
		out = append(out, r[0])
	}
	return out
}

func sqlLines(t testing.TB, q queryer, query string) string {
	t.Helper()
	var lines []string
	for _, r := range queryStrings(t, q, query) {
		lines = append(lines, strings.Join(r, "|"))
	}
	return strings.Join(lines, "\n")
}

// TestCompactionCopyOnWrite: with full-compaction.delta-commits = 1 every
// statement leaves each bucket it wrote as one sorted run on the max level
// (level 5 with the default num-levels), before it returns: each write is
// an APPEND snapshot followed by a COMPACT one, as Java's writer commits
// them.
func TestCompactionCopyOnWrite(t *testing.T) {
	ws := startWriteServer(t, t.TempDir())
	db := ws.open(t, "")
	mustExec(t, db, "CREATE TABLE cow (k BIGINT, p INT, v STRING, PRIMARY KEY (k, p) NOT ENFORCED) PARTITIONED BY (p) "+
		"WITH ('bucket' = '2', 'full-compaction.delta-commits' = '1')",
		"CREATE TABLE src (k BIGINT, p INT, v STRING, PRIMARY KEY (k, p) NOT ENFORCED)",
		"INSERT INTO src VALUES (2, 1, 'merged'), (9, 2, 'new')")
	steps := []struct {
		stmts []string
		want  string
	}{
		{[]string{"INSERT INTO cow VALUES (1, 1, 'a'), (2, 1, 'b'), (3, 2, 'c'), (4, 2, 'd')"}, "1|1|a\n2|1|b\n3|2|c\n4|2|d"},
		{[]string{"INSERT INTO cow VALUES (1, 1, 'a2'), (5, 1, 'e')"}, "1|1|a2\n2|1|b\n3|2|c\n4|2|d\n5|1|e"},
		{[]string{"UPDATE cow SET v = 'u' WHERE k >= 4"}, "1|1|a2\n2|1|b\n3|2|c\n4|2|u\n5|1|u"},
		{[]string{"DELETE FROM cow WHERE k = 3 OR k = 5"}, "1|1|a2\n2|1|b\n4|2|u"},
		{[]string{"BEGIN", "INSERT INTO cow VALUES (6, 2, 'f')", "DELETE FROM cow WHERE k = 1", "COMMIT"}, "2|1|b\n4|2|u\n6|2|f"},
		{[]string{"MERGE INTO cow t USING src s ON t.k = s.k AND t.p = s.p WHEN MATCHED THEN UPDATE SET v = s.v " +
			"WHEN NOT MATCHED THEN INSERT VALUES (s.k, s.p, s.v)"}, "2|1|merged\n4|2|u\n6|2|f\n9|2|new"},
	}
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer closeConn(conn)
	mustExec(t, conn, "USE `default`")
	for i, st := range steps {
		before := len(snapshotKinds(t, conn, "cow"))
		mustExec(t, conn, st.stmts...)
		if got := sqlLines(t, conn, "SELECT k, p, v FROM cow ORDER BY k"); got != st.want {
			t.Fatalf("step %d %v: rows\n%s\nwant\n%s", i, st.stmts, got, st.want)
		}
		for _, b := range tableShape(t, conn, "cow", "") {
			for _, l := range b.levels {
				if l != 5 {
					t.Fatalf("step %d %v: partition %s bucket %d has files on levels %v; copy-on-write leaves one run on level 5",
						i, st.stmts, b.partition, b.bucket, b.levels)
				}
			}
		}
		kinds := snapshotKinds(t, conn, "cow")[before:]
		if len(kinds) != 2 || kinds[0] != "APPEND" || kinds[1] != "COMPACT" {
			t.Fatalf("step %d %v: new snapshots %v, want [APPEND COMPACT]", i, st.stmts, kinds)
		}
	}
	// Every snapshot, APPEND or COMPACT, reads as the statement left it.
	ids := queryStrings(t, conn, "SELECT snapshot_id FROM `cow$snapshots` ORDER BY snapshot_id")
	for i, st := range steps {
		for _, id := range ids[2*i : 2*i+2] {
			if got := sqlLines(t, conn, "SELECT k, p, v FROM cow AS OF "+id[0]+" ORDER BY k"); got != st.want {
				t.Errorf("AS OF %s: rows\n%s\nwant\n%s", id[0], got, st.want)
			}
		}
	}
}

// TestCompactionStallBoundsSortedRuns: many single-row statements into one
// bucket never leave it with more sorted runs than
// num-sorted-run.stop-trigger when the statement returns (the write stall
// compacts first), and automatic compaction keeps the table exact.
func TestCompactionStallBoundsSortedRuns(t *testing.T) {
	ws := startWriteServer(t, t.TempDir())
	db := ws.open(t, "")
	mustExec(t, db, "CREATE TABLE st (k BIGINT PRIMARY KEY, v BIGINT) WITH ('bucket' = '1', "+
		"'num-sorted-run.compaction-trigger' = '3', 'num-sorted-run.stop-trigger' = '4')")
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer closeConn(conn)
	mustExec(t, conn, "USE `default`")
	maxRuns := 0
	for i := 0; i < 60; i++ {
		mustExec(t, conn, fmt.Sprintf("INSERT INTO st VALUES (%d, %d)", i%17, i))
		for _, b := range tableShape(t, conn, "st", "") {
			if b.runs() > 4 {
				t.Fatalf("after INSERT %d: %d sorted runs (levels %v), stop-trigger is 4", i, b.runs(), b.levels)
			}
			maxRuns = max(maxRuns, b.runs())
		}
	}
	var want []string
	for k := 0; k < 17; k++ {
		last := k
		for i := k; i < 60; i += 17 {
			last = i
		}
		want = append(want, fmt.Sprintf("%d|%d", k, last))
	}
	if got := sqlLines(t, conn, "SELECT k, v FROM st ORDER BY k"); got != strings.Join(want, "\n") {
		t.Fatalf("rows\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
	kinds := snapshotKinds(t, conn, "st")
	if !slices.Contains(kinds, "COMPACT") {
		t.Fatalf("no COMPACT snapshot after 60 commits: %v", kinds)
	}
	t.Logf("max sorted runs seen %d; %d snapshots, %d COMPACT", maxRuns, len(kinds), count(kinds, "COMPACT"))
}

func count(xs []string, x string) int {
	n := 0
	for _, y := range xs {
		if y == x {
			n++
		}
	}
	return n
}

// TestCompactionWriteOnly: a write-only table is never compacted by the
// server; the dedicated compaction (lsmwrite.Compact, as `lakesql compact`
// runs it) compacts it while the server keeps writing.
func TestCompactionWriteOnly(t *testing.T) {
	wh := t.TempDir()
	ws := startWriteServer(t, wh)
	db := ws.open(t, "default")
	mustExec(t, db, "CREATE TABLE wo (k BIGINT PRIMARY KEY, v STRING) WITH ('bucket' = '2', 'write-only' = 'true', "+
		"'num-sorted-run.compaction-trigger' = '2')")
	for i := 0; i < 12; i++ {
		mustExec(t, db, fmt.Sprintf("INSERT INTO wo VALUES (%d, 'v%d')", i%5, i))
	}
	if kinds := snapshotKinds(t, db, "wo"); slices.Contains(kinds, "COMPACT") {
		t.Fatalf("write-only table was compacted: %v", kinds)
	}
	out := compactTable(t, wh, "default", "wo", true)
	if out.Snapshot == nil || out.Snapshot.CommitKind != snapshot.CommitKindCompact {
		t.Fatalf("dedicated compaction committed %+v", out)
	}
	for _, b := range tableShape(t, db, "wo", "") {
		// num-levels defaults to the compaction trigger + 1: level 2 is the max.
		if b.runs() != 1 || b.levels[0] != 2 {
			t.Fatalf("after full compaction bucket %d has levels %v, want one run on level 2", b.bucket, b.levels)
		}
	}
	want := "0|v10\n1|v11\n2|v7\n3|v8\n4|v9"
	if got := sqlLines(t, db, "SELECT k, v FROM wo ORDER BY k"); got != want {
		t.Fatalf("rows\n%s\nwant\n%s", got, want)
	}
}

// compactTable runs the dedicated compaction on a table of a local
// warehouse.
func compactTable(t testing.TB, wh, db, table string, full bool) *lsmwrite.CompactOutcome {
	t.Helper()
	ctx := context.Background()
	st, err := storage.Open(ctx, filepath.Join(wh, db+".db", table))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	out, err := lsmwrite.Compact(ctx, snapshot.OpenTable(st, ""), lsmwrite.CompactRequest{Full: full})
	if err != nil {
		t.Fatalf("compact %s.%s: %v", db, table, err)
	}
	return out
}

// TestCompactionDesignFlow is the design document's flow as far as it goes
// without the lookup changelog producer: a deduplicate orders table,
// INSERT/UPDATE/DELETE/MERGE, CALL sys.compact, and time travel to every
// snapshot before and after it.
func TestCompactionDesignFlow(t *testing.T) {
	wh := t.TempDir()
	ws := startWriteServer(t, wh)
	db := ws.open(t, "")
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer closeConn(conn)
	mustExec(t, conn, "CREATE DATABASE shop", "USE shop",
		"CREATE TABLE orders (order_id BIGINT, user_id BIGINT, status STRING, updated_at TIMESTAMP(3), "+
			"PRIMARY KEY (order_id) NOT ENFORCED) WITH ('merge-engine' = 'deduplicate', 'write-only' = 'true')",
		"CREATE TABLE updates (order_id BIGINT, status STRING, PRIMARY KEY (order_id) NOT ENFORCED)",
		"INSERT INTO updates VALUES (2, 'shipped'), (4, 'new')")
	var states []string // rows after each statement
	sel := "SELECT order_id, user_id, status FROM orders ORDER BY order_id"
	for _, q := range []string{
		"INSERT INTO orders VALUES (1, 7, 'new', NOW())",
		"INSERT INTO orders VALUES (2, 8, 'new', NOW()), (3, 9, 'new', NOW())",
		"UPDATE orders SET status = 'paid' WHERE order_id = 1",
		"DELETE FROM orders WHERE order_id = 3",
		"MERGE INTO orders t USING updates s ON t.order_id = s.order_id WHEN MATCHED THEN UPDATE SET status = s.status " +
			"WHEN NOT MATCHED THEN INSERT VALUES (s.order_id, 10, s.status, NOW())",
	} {
		mustExec(t, conn, q)
		states = append(states, sqlLines(t, conn, sel))
	}
	want := "1|7|paid\n2|8|shipped\n4|10|new"
	if states[len(states)-1] != want {
		t.Fatalf("before compaction:\n%s\nwant\n%s", states[len(states)-1], want)
	}
	// CALL sys.compact, as the design document runs it (a full compaction).
	res := queryStrings(t, conn, "CALL paimon.sys.compact(table => 'orders')")
	if len(res) != 1 || res[0][0] != "1" || res[0][1] == "NULL" {
		t.Fatalf("CALL sys.compact: %v", res)
	}
	compactID := res[0][1]
	if got := sqlLines(t, conn, sel); got != want {
		t.Fatalf("after compaction:\n%s\nwant\n%s", got, want)
	}
	if got := sqlLines(t, conn, "SELECT level, record_count FROM `orders$files`"); got != "5|3" {
		t.Fatalf("$files after full compaction: %s, want one file on level 5 with the 3 live rows (the -D dropped)", got)
	}
	for i, s := range states {
		if got := sqlLines(t, conn, fmt.Sprintf("SELECT order_id, user_id, status FROM orders AS OF %d ORDER BY order_id", i+1)); got != s {
			t.Errorf("AS OF %d:\n%s\nwant\n%s", i+1, got, s)
		}
	}
	if got := sqlLines(t, conn, "SELECT order_id, user_id, status FROM orders AS OF "+compactID+" ORDER BY order_id"); got != want {
		t.Errorf("AS OF the COMPACT snapshot:\n%s\nwant\n%s", got, want)
	}
	// Writes go on after the compaction, on top of the compacted run.
	mustExec(t, conn, "UPDATE orders SET status = 'done' WHERE order_id = 2", "INSERT INTO orders VALUES (5, 11, 'new', NOW())")
	if got := sqlLines(t, conn, sel); got != "1|7|paid\n2|8|done\n4|10|new\n5|11|new" {
		t.Fatalf("after more writes:\n%s", got)
	}
}

// TestCompactionObservability: EXPLAIN of a scan shows how many sorted runs
// each bucket merges, $files shows every file's level, and lakesql inspect
// prints the sorted runs of each bucket; a full compaction brings them to
// one.
func TestCompactionObservability(t *testing.T) {
	wh := t.TempDir()
	ws := startWriteServer(t, wh)
	db := ws.open(t, "default")
	mustExec(t, db, "CREATE TABLE ob (k BIGINT PRIMARY KEY, v BIGINT) WITH ('bucket' = '2', 'write-only' = 'true')",
		"CREATE TABLE oa (k BIGINT, v BIGINT)",
		"CREATE TABLE op (k BIGINT PRIMARY KEY, v BIGINT) WITH ('bucket' = '1', 'write-only' = 'true', 'merge-engine' = 'partial-update')")
	for i := 0; i < 4; i++ {
		mustExec(t, db, fmt.Sprintf("INSERT INTO ob VALUES (%d, %d), (%d, %d)", 2*i, i, 2*i+1, i), fmt.Sprintf("INSERT INTO oa VALUES (%d, %d)", i, i),
			fmt.Sprintf("INSERT INTO op VALUES (%d, %d)", i%2, i))
	}
	explain := func(q string) string {
		t.Helper()
		return sqlLines(t, db, "EXPLAIN PLAN "+q)
	}
	// Keys 0..7 spread over both buckets; every INSERT adds a level-0 file
	// to each bucket it writes. A deduplicate table's runs are merged over
	// column batches, a partial-update table's row by row.
	shape := tableShape(t, db, "ob", "")
	maxRuns, total := 0, 0
	for _, b := range shape {
		maxRuns = max(maxRuns, b.runs())
		total += b.runs()
	}
	want := fmt.Sprintf("runs per bucket: max %d, avg %.1f (%d buckets merged by columns)", maxRuns, float64(total)/float64(len(shape)), len(shape))
	if p := explain("SELECT * FROM op"); !strings.Contains(p, "runs per bucket: max 4, avg 4.0 (1 buckets merged)") {
		t.Errorf("EXPLAIN PLAN SELECT * FROM op (partial-update, merged by rows):\n%s", p)
	}
	if p := explain("SELECT * FROM ob"); !strings.Contains(p, want) {
		t.Errorf("EXPLAIN PLAN SELECT * FROM ob:\n%s\nwant %q", p, want)
	}
	if p := explain("SELECT * FROM ob WHERE v > 1"); !strings.Contains(p, want) || !strings.Contains(p, "pruned: files") {
		t.Errorf("EXPLAIN PLAN with a filter:\n%s\nwant %q and the pruning note", p, want)
	}
	if p := explain("SELECT * FROM oa"); strings.Contains(p, "runs per bucket") {
		t.Errorf("an append table merges nothing, EXPLAIN says:\n%s", p)
	}
	var out bytes.Buffer
	if err := inspect.Run(context.Background(), &out, []string{filepath.Join(wh, "default.db", "ob")}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), fmt.Sprintf("sorted runs per bucket: max %d", maxRuns)) ||
		!strings.Contains(out.String(), fmt.Sprintf("%d files, %d sorted runs", len(shape[0].levels), shape[0].runs())) {
		t.Errorf("inspect does not show the sorted runs:\n%s", out.String())
	}
	compactTable(t, wh, "default", "ob", true)
	if p := explain("SELECT * FROM ob"); !strings.Contains(p, "runs per bucket: max 1, avg 1.0 (0 buckets merged, 2 read without merging)") {
		t.Errorf("after a full compaction:\n%s", p)
	}
	if got := sqlLines(t, db, "SELECT DISTINCT level FROM `ob$files`"); got != "5" {
		t.Errorf("$files levels after a full compaction: %s", got)
	}
}

// TestCompactionAppendTables: append tables join their small files
// automatically, bucketed (compaction.min.file-num consecutive files, as
// Java's bucket writers) and bucket-unaware (the compaction coordinator's
// bins), and keep every row.
func TestCompactionAppendTables(t *testing.T) {
	ws := startWriteServer(t, t.TempDir())
	db := ws.open(t, "default")
	mustExec(t, db, "CREATE TABLE ab (k BIGINT, v STRING) WITH ('bucket' = '1', 'bucket-key' = 'k', 'compaction.min.file-num' = '3', 'commit.force-compact' = 'true')",
		"CREATE TABLE au (k BIGINT, v STRING) PARTITIONED BY (v) WITH ('compaction.min.file-num' = '3', 'commit.force-compact' = 'true')")
	var want []string
	for i := 0; i < 7; i++ {
		mustExec(t, db, fmt.Sprintf("INSERT INTO ab VALUES (%d, 'x')", i), fmt.Sprintf("INSERT INTO au VALUES (%d, 'x')", i))
		want = append(want, fmt.Sprintf("%d|x", i))
	}
	for _, table := range []string{"ab", "au"} {
		if got := sqlLines(t, db, "SELECT k, v FROM "+table+" ORDER BY k"); got != strings.Join(want, "\n") {
			t.Errorf("%s rows:\n%s", table, got)
		}
		// commit.force-compact compacts before each statement returns: at
		// most min.file-num - 1 small files wait.
		files := queryStrings(t, db, "SELECT file_path, record_count FROM `"+table+"$files`")
		kinds := snapshotKinds(t, db, table)
		if len(files) >= 3 || count(kinds, "COMPACT") == 0 {
			t.Errorf("%s: %d files after 7 single-row inserts (%v), snapshots %v", table, len(files), files, kinds)
		}
	}
}

// TestCompactionDesignStatement is issue 11's own flow through the MySQL
// protocol: the design document's orders statement verbatim (deduplicate,
// changelog-producer = lookup, automatic compaction on), then INSERT,
// UPDATE, DELETE and MERGE, CALL paimon.sys.compact, $audit_log over each
// statement's snapshots (the lookup producer's +I/-U/+U/-D, as Java's
// LookupChangelogMergeFunctionWrapper emits them) and AS OF every
// statement's last snapshot.
func TestCompactionDesignStatement(t *testing.T) {
	wh := t.TempDir()
	ws := startWriteServer(t, wh)
	db := ws.open(t, "")
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer closeConn(conn)
	mustExec(t, conn, "CREATE DATABASE shop", "USE shop",
		`CREATE TABLE orders (order_id BIGINT, user_id BIGINT, status STRING, updated_at TIMESTAMP(3),
  PRIMARY KEY (order_id) NOT ENFORCED) WITH ('changelog-producer' = 'lookup', 'merge-engine' = 'deduplicate')`,
		"CREATE TABLE updates (order_id BIGINT, status STRING, PRIMARY KEY (order_id) NOT ENFORCED)",
		"INSERT INTO updates VALUES (2, 'shipped'), (4, 'new')")
	sel := "SELECT order_id, user_id, status FROM orders ORDER BY order_id"
	latest := func() int64 {
		t.Helper()
		r := queryStrings(t, conn, "SELECT COALESCE(MAX(snapshot_id), 0) FROM `orders$snapshots`")
		n, err := strconv.ParseInt(r[0][0], 10, 64)
		if err != nil {
			t.Fatalf("latest snapshot %q: %v", r, err)
		}
		return n
	}
	changes := func(from, to int64) string {
		t.Helper()
		rows := strings.Split(sqlLines(t, conn, fmt.Sprintf(
			"SELECT rowkind, order_id, user_id, status FROM `orders$audit_log` FOR VERSION BETWEEN %d AND %d", from, to)), "\n")
		slices.Sort(rows)
		return strings.Join(rows, " ")
	}
	steps := []struct {
		stmt, rows, changes string // rows after it; its changelog, sorted
	}{
		{"INSERT INTO orders VALUES (1, 7, 'new', NOW())", "1|7|new", "+I|1|7|new"},
		{"INSERT INTO orders VALUES (2, 8, 'new', NOW()), (3, 9, 'new', NOW())",
			"1|7|new\n2|8|new\n3|9|new", "+I|2|8|new +I|3|9|new"},
		{"UPDATE orders SET status = 'paid' WHERE order_id = 1",
			"1|7|paid\n2|8|new\n3|9|new", "+U|1|7|paid -U|1|7|new"},
		{"DELETE FROM orders WHERE order_id = 3", "1|7|paid\n2|8|new", "-D|3|9|new"},
		{"MERGE INTO orders t USING updates s ON t.order_id = s.order_id WHEN MATCHED THEN UPDATE SET status = s.status " +
			"WHEN NOT MATCHED THEN INSERT VALUES (s.order_id, 10, s.status, NOW())",
			"1|7|paid\n2|8|shipped\n4|10|new", "+I|4|10|new +U|2|8|shipped -U|2|8|new"},
	}
	prev := latest()
	var after []int64 // each statement's last snapshot
	for _, s := range steps {
		mustExec(t, conn, s.stmt)
		if got := sqlLines(t, conn, sel); got != s.rows {
			t.Fatalf("after %s:\n%s\nwant\n%s", s.stmt, got, s.rows)
		}
		// The lookup producer's changelog is complete when the statement
		// returns: its level-0 files were compacted up before the OK.
		if n := sqlLines(t, conn, "SELECT COUNT(*) FROM `orders$files` WHERE level = 0"); n != "0" {
			t.Fatalf("after %s: %s level-0 files remain", s.stmt, n)
		}
		cur := latest()
		if got := changes(prev, cur); got != s.changes {
			t.Errorf("$audit_log FOR VERSION BETWEEN %d AND %d (%s):\n got %s\nwant %s", prev, cur, s.stmt, got, s.changes)
		}
		after = append(after, cur)
		prev = cur
	}
	before := tableShape(t, conn, "orders", "")
	res := queryStrings(t, conn, "CALL paimon.sys.compact(table => 'orders')")
	if len(res) != 1 || res[0][0] != "1" {
		t.Fatalf("CALL paimon.sys.compact: %v", res)
	}
	final := steps[len(steps)-1].rows
	if got := sqlLines(t, conn, sel); got != final {
		t.Fatalf("after CALL sys.compact:\n%s\nwant\n%s", got, final)
	}
	// Every bucket is one run on the max level after it; it commits a
	// COMPACT snapshot unless the lookup compactions already left them so
	// (as Java's full compaction, which skips a bucket of one file on the
	// max level).
	done := true
	for _, b := range before {
		done = done && len(b.levels) == 1 && b.levels[0] == 5
	}
	if (res[0][1] == "NULL") != done {
		t.Errorf("CALL sys.compact answered snapshot %s with the buckets %v before it", res[0][1], before)
	}
	for _, b := range tableShape(t, conn, "orders", "") {
		if len(b.levels) != 1 || b.levels[0] != 5 {
			t.Errorf("bucket %d after the full compaction: levels %v, want one file on level 5", b.bucket, b.levels)
		}
	}
	// A full compaction of levels above 0 changes nothing: no changelog.
	if cur := latest(); res[0][1] != "NULL" {
		if got := changes(prev, cur); got != "" {
			t.Errorf("$audit_log of the compaction: %s, want nothing", got)
		}
	}
	// The whole range: the union of the statements' changes.
	var all []string
	for _, s := range steps {
		all = append(all, strings.Fields(s.changes)...)
	}
	slices.Sort(all)
	if got := changes(0, latest()); got != strings.Join(all, " ") {
		t.Errorf("$audit_log over every snapshot:\n got %s\nwant %s", got, strings.Join(all, " "))
	}
	for i, id := range after {
		if got := sqlLines(t, conn, fmt.Sprintf("SELECT order_id, user_id, status FROM orders AS OF %d ORDER BY order_id", id)); got != steps[i].rows {
			t.Errorf("AS OF %d (after %s):\n%s\nwant\n%s", id, steps[i].stmt, got, steps[i].rows)
		}
	}
	// $audit_log AS OF the latest snapshot: the table's rows with the kind
	// of their last change (+U for the updated ones, as Java keeps it).
	if got := sqlLines(t, conn, fmt.Sprintf("SELECT rowkind, order_id FROM `orders$audit_log` AS OF %d ORDER BY order_id", latest())); got != "+U|1\n+U|2\n+I|4" {
		t.Errorf("$audit_log AS OF the latest snapshot:\n%s", got)
	}
}
