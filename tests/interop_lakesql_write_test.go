package tests

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sqlWriter issues a seeded random history of SQL writes to one table
// through lakesql's MySQL protocol: INSERT, UPDATE, DELETE, MERGE INTO,
// transactions (COMMIT and ROLLBACK), LOAD DATA INFILE and ALTER TABLE ADD
// COLUMN, restricted to what the table's merge engine accepts.
type sqlWriter struct {
	t           *testing.T
	conn        *sql.Conn
	rnd         *rand.Rand
	table       string // db.table, quoted
	engine      string // "" for append tables
	partitioned bool
	seq         bool // a sequence.field column sq
	extra       []string
	dir         string // for LOAD DATA files
	stmts       int
	kinds       map[string]int
}

func (w *sqlWriter) exec(q string) {
	w.t.Helper()
	if _, err := w.conn.ExecContext(context.Background(), q); err != nil {
		w.t.Fatalf("lakesql: %s: %v", q, err)
	}
	w.stmts++
}

func (w *sqlWriter) cols() []string {
	c := []string{"k"}
	if w.partitioned {
		c = append(c, "p")
	}
	c = append(c, "v", "s", "d", "ts", "dt", "f", "b")
	if w.seq {
		c = append(c, "sq")
	}
	return append(c, w.extra...)
}

// lit returns a random SQL literal for column c (NULL sometimes).
func (w *sqlWriter) lit(c string) string {
	switch c {
	case "k":
		return fmt.Sprint(w.rnd.IntN(20))
	case "p":
		return "'" + []string{"a", "b", "c"}[w.rnd.IntN(3)] + "'"
	}
	if w.rnd.IntN(100) < 15 {
		return "NULL"
	}
	switch c {
	case "v", "sq":
		return fmt.Sprint(w.rnd.IntN(2000) - 1000)
	case "s":
		return fmt.Sprintf("'q%d%s'", w.rnd.IntN(100), []string{"", "", "é", "''x"}[w.rnd.IntN(4)])
	case "d":
		return fmt.Sprintf("%d.%02d", w.rnd.IntN(20000)-10000, w.rnd.IntN(100))
	case "ts":
		return fmt.Sprintf("'2026-0%d-1%d 0%d:1%d:2%d.%03d'", 1+w.rnd.IntN(9), w.rnd.IntN(10), w.rnd.IntN(10), w.rnd.IntN(10), w.rnd.IntN(10), w.rnd.IntN(1000))
	case "dt":
		return fmt.Sprintf("'2025-1%d-0%d'", w.rnd.IntN(3), 1+w.rnd.IntN(9))
	case "f":
		return fmt.Sprint(float64(w.rnd.IntN(4000)-2000) / 8)
	case "b":
		return []string{"TRUE", "FALSE"}[w.rnd.IntN(2)]
	}
	return fmt.Sprint(w.rnd.IntN(100)) // extra columns are INT
}

func (w *sqlWriter) values(n int) string {
	var rows []string
	for i := 0; i < n; i++ {
		var vals []string
		for _, c := range w.cols() {
			vals = append(vals, w.lit(c))
		}
		rows = append(rows, "("+strings.Join(vals, ", ")+")")
	}
	return fmt.Sprintf("INSERT INTO %s (%s) VALUES %s", w.table, strings.Join(w.cols(), ", "), strings.Join(rows, ", "))
}

// statement returns one random statement the engine accepts.
func (w *sqlWriter) statement() (string, string) {
	r := w.rnd.IntN(100)
	switch {
	case w.engine == "append-dv" && r < 15:
		return "delete", fmt.Sprintf("DELETE FROM %s WHERE k = %d OR v < %d", w.table, w.rnd.IntN(20), w.rnd.IntN(400)-1000)
	case w.engine == "append-dv" && r < 35:
		return "update", fmt.Sprintf("UPDATE %s SET v = %s, s = %s WHERE k BETWEEN %d AND %d", w.table, w.lit("v"), w.lit("s"), w.rnd.IntN(20), w.rnd.IntN(20))
	case w.engine == "deduplicate" && r < 15:
		return "delete", fmt.Sprintf("DELETE FROM %s WHERE k = %d OR v < %d", w.table, w.rnd.IntN(20), w.rnd.IntN(400)-1000)
	case (w.engine == "deduplicate" || w.engine == "partial-update") && r < 35:
		set := fmt.Sprintf("v = %s, s = %s", w.lit("v"), w.lit("s"))
		if w.seq {
			set += ", sq = " + w.lit("sq")
		}
		return "update", fmt.Sprintf("UPDATE %s SET %s WHERE k BETWEEN %d AND %d", w.table, set, w.rnd.IntN(20), w.rnd.IntN(20))
	case (w.engine == "deduplicate" || w.engine == "partial-update") && r < 50:
		on := "t.k = s.k"
		src := fmt.Sprintf("SELECT %d AS k, %s AS v", w.rnd.IntN(20), w.lit("v"))
		ins := "(k, v) VALUES (s.k, s.v)"
		if w.partitioned {
			on += " AND t.p = s.p"
			src = fmt.Sprintf("SELECT %d AS k, %s AS p, %s AS v", w.rnd.IntN(20), w.lit("p"), w.lit("v"))
			ins = "(k, p, v) VALUES (s.k, s.p, s.v)"
		}
		return "merge", fmt.Sprintf("MERGE INTO %s t USING (%s) s ON %s WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT %s",
			w.table, src, on, ins)
	case r < 60:
		return "load", w.loadData()
	}
	return "insert", w.values(1 + w.rnd.IntN(5))
}

// loadData writes a CSV of random rows and returns its LOAD DATA INFILE.
func (w *sqlWriter) loadData() string {
	p := filepath.Join(w.dir, fmt.Sprintf("load-%d.csv", w.stmts))
	var b strings.Builder
	for i := 0; i < 1+w.rnd.IntN(8); i++ {
		b.WriteString(fmt.Sprint(w.rnd.IntN(20)))
		if w.partitioned {
			b.WriteString("," + []string{"a", "b", "c"}[w.rnd.IntN(3)])
		}
		fmt.Fprintf(&b, ",%d,l%d\n", w.rnd.IntN(2000)-1000, w.rnd.IntN(50))
	}
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		w.t.Fatal(err)
	}
	cols := "k, v, s"
	if w.partitioned {
		cols = "k, p, v, s"
	}
	return fmt.Sprintf(`LOAD DATA INFILE '%s' INTO TABLE %s FIELDS TERMINATED BY ',' LINES TERMINATED BY '\n' (%s)`, p, w.table, cols)
}

// run issues n statements (autocommit, or a transaction now and then) and
// one ALTER TABLE ADD COLUMN halfway when alter is set.
func (w *sqlWriter) run(n int, alter bool) {
	w.t.Helper()
	for i := 0; i < n; i++ {
		if alter && i == n/2 {
			col := fmt.Sprintf("x%d", len(w.extra))
			w.exec(fmt.Sprintf("ALTER TABLE %s ADD COLUMN %s INT", w.table, col))
			w.extra = append(w.extra, col)
			w.kinds["alter"]++
			continue
		}
		if w.rnd.IntN(100) < 15 {
			w.exec("BEGIN")
			for j := 0; j < 2+w.rnd.IntN(2); j++ {
				kind, q := w.statement()
				w.exec(q)
				w.kinds[kind]++
			}
			if w.rnd.IntN(4) == 0 {
				w.exec("ROLLBACK")
				w.kinds["rollback"]++
			} else {
				w.exec("COMMIT")
				w.kinds["commit"]++
			}
			continue
		}
		kind, q := w.statement()
		w.exec(q)
		w.kinds[kind]++
	}
}

// lakesqlTables are the tables lakesql creates and writes: every merge
// engine lakesql writes, fixed and dynamic buckets, partitions,
// sequence.field, and append tables.
var lakesqlTables = []struct {
	name, engine, with string
	partitioned, seq   bool
}{
	{"dedup_b2_part", "deduplicate", "'bucket' = '2'", true, false},
	{"dedup_b1", "deduplicate", "'bucket' = '1'", false, false},
	{"dedup_dyn", "deduplicate", "'bucket' = '-1'", false, false},
	{"dedup_seq", "deduplicate", "'bucket' = '3', 'sequence.field' = 'sq'", false, true},
	{"dedup_input", "deduplicate", "'bucket' = '2', 'changelog-producer' = 'input'", true, false},
	{"dedup_lookup", "deduplicate", "'bucket' = '2', 'changelog-producer' = 'lookup'", true, false},
	{"partial_lookup", "partial-update", "'bucket' = '-1', 'merge-engine' = 'partial-update', 'changelog-producer' = 'lookup'", false, false},
	{"dedup_fullcl", "deduplicate", "'bucket' = '2', 'changelog-producer' = 'full-compaction'", false, false},
	{"partial_fullcl", "partial-update", "'bucket' = '1', 'merge-engine' = 'partial-update', 'changelog-producer' = 'full-compaction', 'full-compaction.delta-commits' = '2'", true, false},
	{"partial", "partial-update", "'bucket' = '2', 'merge-engine' = 'partial-update'", false, false},
	{"agg", "aggregation", "'bucket' = '2', 'merge-engine' = 'aggregation', 'fields.v.aggregate-function' = 'sum', 'fields.d.aggregate-function' = 'max', 'fields.s.aggregate-function' = 'listagg'", true, false},
	{"append", "", "'bucket' = '-1'", true, false},
	{"append_b2", "", "'bucket' = '2', 'bucket-key' = 'k'", false, false},
	// Merge-on-write and first-row: every statement's level-0 files are
	// compacted up with lookup, and Java reads only levels >= 1 with the
	// deletion vectors lakesql wrote.
	{"mow32_part", "deduplicate", "'bucket' = '2', 'deletion-vectors.enabled' = 'true'", true, false},
	{"mow64_dyn", "deduplicate", "'bucket' = '-1', 'deletion-vectors.enabled' = 'true', 'deletion-vectors.bitmap64' = 'true'", false, false},
	{"mow_seq", "deduplicate", "'bucket' = '2', 'deletion-vectors.enabled' = 'true', 'sequence.field' = 'sq'", false, true},
	{"mow_partial", "partial-update", "'bucket' = '1', 'merge-engine' = 'partial-update', 'deletion-vectors.enabled' = 'true'", true, false},
	{"mow_agg", "aggregation", "'bucket' = '2', 'merge-engine' = 'aggregation', 'fields.v.aggregate-function' = 'sum', 'deletion-vectors.enabled' = 'true', 'target-file-size' = '4 kb'", false, false},
	{"first_row", "first-row", "'bucket' = '2', 'merge-engine' = 'first-row'", true, false},
	{"first_row_dyn", "first-row", "'bucket' = '-1', 'merge-engine' = 'first-row'", false, false},
	// Append tables with deletion vectors: UPDATE and DELETE mark rows.
	{"append_dv", "append-dv", "'bucket' = '-1', 'deletion-vectors.enabled' = 'true', 'deletion-vector.index-file.target-size' = '64 b'", true, false},
	{"append_dv_b2", "append-dv", "'bucket' = '2', 'bucket-key' = 'k', 'deletion-vectors.enabled' = 'true', 'deletion-vectors.bitmap64' = 'true'", false, false},
	// Compaction: aggressive automatic compaction (with tiny files, so
	// whole files move up a level), copy-on-write, and small-file
	// compaction of append tables.
	{"dedup_compact", "deduplicate", "'bucket' = '2', 'num-sorted-run.compaction-trigger' = '2', 'target-file-size' = '1 kb'", true, false},
	{"agg_cow", "aggregation", "'bucket' = '1', 'merge-engine' = 'aggregation', 'fields.v.aggregate-function' = 'sum', 'full-compaction.delta-commits' = '1'", false, false},
	{"partial_compact", "partial-update", "'bucket' = '-1', 'merge-engine' = 'partial-update', 'num-sorted-run.compaction-trigger' = '3'", false, false},
	{"append_compact", "", "'bucket' = '2', 'bucket-key' = 'k', 'compaction.min.file-num' = '3'", false, false},
	{"append_unaware_compact", "", "'bucket' = '-1', 'compaction.min.file-num' = '3'", true, false},
}

func createLakesqlTable(t *testing.T, conn *sql.Conn, db string, i int) *sqlWriter {
	c := lakesqlTables[i]
	cols := "k INT NOT NULL, "
	if c.partitioned {
		cols += "p STRING NOT NULL, "
	}
	cols += "v BIGINT, s STRING, d DECIMAL(10,2), ts TIMESTAMP(3), dt DATE, f DOUBLE, b BOOLEAN"
	if c.seq {
		cols += ", sq BIGINT"
	}
	if c.engine != "" && c.engine != "append-dv" {
		if c.partitioned {
			cols += ", PRIMARY KEY (k, p) NOT ENFORCED"
		} else {
			cols += ", PRIMARY KEY (k) NOT ENFORCED"
		}
	}
	part := ""
	if c.partitioned {
		part = " PARTITIONED BY (p)"
	}
	w := &sqlWriter{t: t, conn: conn, rnd: rand.New(rand.NewPCG(uint64(i), 7)), table: db + "." + c.name,
		engine: c.engine, partitioned: c.partitioned, seq: c.seq, dir: serverFilesDir(t), kinds: map[string]int{}}
	w.exec(fmt.Sprintf("CREATE TABLE %s (%s)%s WITH (%s)", w.table, cols, part, c.with))
	return w
}

// TestInteropLakesqlWritesJavaReads: lakesql writes a random SQL history per
// table (every statement kind it supports, ALTER TABLE ADD COLUMN halfway),
// with its automatic compaction on and the dedicated compaction (minor, then
// full) run twice along the way; Java Paimon then reads every snapshot,
// APPEND and COMPACT, with its own ReadBuilder (one JVM), and each must
// equal lakesql's read of that snapshot through SQL and lsmread, with the
// same planned files; and Java's $audit_log of each snapshot's changes
// (incremental-between: the changelog files lakesql wrote for the input,
// lookup and full-compaction producers, the delta otherwise) must equal
// lakesql's `t$audit_log` FOR VERSION BETWEEN.
func TestInteropLakesqlWritesJavaReads(t *testing.T) {
	requireHarness(t)
	wh := t.TempDir()
	ws := startWriteServer(t, wh)
	db := ws.open(t, "")
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer closeConn(conn)
	if _, err := conn.ExecContext(ctx, "CREATE DATABASE lw"); err != nil {
		t.Fatal(err)
	}
	var script []string
	kinds := map[string]int{}
	compacts := map[string]int{}
	for i, c := range lakesqlTables {
		w := createLakesqlTable(t, conn, "lw", i)
		w.run(8, false)
		compactTable(t, wh, "lw", c.name, false)
		w.run(8, true)
		compactTable(t, wh, "lw", c.name, true)
		w.run(8, false)
		for k, n := range w.kinds {
			kinds[k] += n
		}
		compacts[c.name] = count(snapshotKinds(t, conn, "lw."+c.name), "COMPACT")
		script = append(script, fmt.Sprintf("read --warehouse %s --table lw.%s --all-snapshots", wh, c.name),
			fmt.Sprintf("read --warehouse %s --table lw.%s --changes", wh, c.name))
	}
	t.Logf("lakesql statements by kind: %v; COMPACT snapshots by table: %v", kinds, compacts)
	for _, c := range lakesqlTables {
		if compacts[c.name] == 0 && c.engine != "" {
			t.Errorf("%s: no COMPACT snapshot", c.name)
		}
	}
	lines := runHarness(t, script)
	var st interopStats
	for _, c := range lakesqlTables {
		t.Run(c.name, func(t *testing.T) {
			compareReads(t, db, wh, reads(lines, "lw."+c.name), &st)
			var changes []javaRead
			for _, l := range lines {
				if l.Op == "changes" && l.Table == "lw."+c.name {
					changes = append(changes, l)
				}
			}
			compareChanges(t, db, changes, &st)
		})
	}
	t.Logf("lakesql → Java: %d tables, %d snapshots compared, %d $audit_log ranges (%d rows) compared, %d mismatched",
		st.tables, st.snapshots, st.ranges, st.changes, st.mismatches)
}
