package tests

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot"
)

// clRow is one row of the changelog test table t (id BIGINT key, dt STRING
// partition, v INT, s STRING).
type clRow struct {
	id int64
	dt string
	v  int64
	s  *string
}

func (r clRow) text() string {
	s := "NULL"
	if r.s != nil {
		s = *r.s
	}
	return fmt.Sprintf("%d|%s|%d|%s", r.id, r.dt, r.v, s)
}

func (r clRow) sqlValues() string {
	s := "NULL"
	if r.s != nil {
		s = "'" + *r.s + "'"
	}
	return fmt.Sprintf("(%d, '%s', %d, %s)", r.id, r.dt, r.v, s)
}

type clKey struct {
	id int64
	dt string
}

// clRecord is one changelog record: a row kind and a row.
type clRecord struct {
	kind string
	row  clRow
}

func (c clRecord) text() string { return c.kind + "|" + c.row.text() }

// clModel is the model of a deduplicate table and of the changelog each
// changelog producer writes for it:
//   - input: every record the statements wrote (INSERT +I; UPDATE -U of the
//     old row then +U; DELETE -D of the old row), in statement order;
//   - none: the delta files, one record per key a commit touched (the last
//     one: the write buffer merges them);
//   - lookup, per commit, and full-compaction, per full compaction (every
//     full-compaction.delta-commits commits, default 1): for each key the
//     commits touched, the change from the state before them to the state
//     after them (+I, -D, or -U/+U, which changelog-producer.row-deduplicate
//     drops when the row is unchanged).
type clModel struct {
	rows map[clKey]clRow
	last map[clKey]string // kind of the last record of a key still in the files
}

func newCLModel() *clModel {
	return &clModel{rows: map[clKey]clRow{}, last: map[clKey]string{}}
}

func (m *clModel) clone() *clModel {
	c := newCLModel()
	for k, v := range m.rows {
		c.rows[k] = v
	}
	for k, v := range m.last {
		c.last[k] = v
	}
	return c
}

func (m *clModel) text() []string {
	var out []string
	for _, r := range m.rows {
		out = append(out, r.text())
	}
	slices.Sort(out)
	return out
}

// clHistory drives one table through the protocol and the model.
type clHistory struct {
	t        *testing.T
	db       *sql.Conn
	rnd      *rand.Rand
	producer string
	dedup    bool
	// deltaCommits is full-compaction.delta-commits of a full-compaction
	// producer (its changelog covers that many commits).
	deltaCommits int
	table        string
	model        *clModel
	// the records of the open transaction, and the model when it began
	pending []clRecord
	before  *clModel
	inTx    bool
	// per commit: the snapshot range it made and its expected changelog
	commits []clCommit
}

type clCommit struct {
	after, upto int64
	records     []clRecord // what the statements wrote
	before      *clModel
	model       *clModel
}

func (h *clHistory) exec(q string) sql.Result {
	h.t.Helper()
	res, err := h.db.ExecContext(context.Background(), q)
	if err != nil {
		h.t.Fatalf("%s: %v", q, err)
	}
	return res
}

func (h *clHistory) latest() int64 {
	h.t.Helper()
	s := queryStrings(h.t, h.db, fmt.Sprintf("SELECT COALESCE(MAX(snapshot_id), 0) FROM `%s$snapshots`", h.table))
	n, _ := strconv.ParseInt(s[0][0], 10, 64)
	return n
}

func (h *clHistory) randRow(id int64) clRow {
	r := clRow{id: id, dt: []string{"2026-01-01", "2026-01-02"}[id%2], v: h.rnd.Int63n(100)}
	if h.rnd.Intn(4) > 0 {
		s := fmt.Sprintf("s%d", h.rnd.Intn(5))
		r.s = &s
	}
	return r
}

func (h *clHistory) existing() []clRow {
	var out []clRow
	for _, r := range h.model.rows {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b clRow) int { return int(a.id - b.id) })
	return out
}

// step runs one random statement (or transaction boundary).
func (h *clHistory) step() {
	var recs []clRecord
	var after int64
	if !h.inTx {
		after = h.latest()
	}
	switch op := h.rnd.Intn(10); {
	case op < 4: // INSERT of new or existing keys: a blind upsert
		n := 1 + h.rnd.Intn(3)
		seen := map[int64]bool{}
		var vals []string
		for i := 0; i < n; i++ {
			id := int64(h.rnd.Intn(12))
			if seen[id] {
				continue
			}
			seen[id] = true
			r := h.randRow(id)
			vals = append(vals, r.sqlValues())
			recs = append(recs, clRecord{"+I", r})
		}
		h.exec(fmt.Sprintf("INSERT INTO %s VALUES %s", h.table, strings.Join(vals, ", ")))
	case op < 7: // UPDATE of some existing keys
		ex := h.existing()
		lo := int64(h.rnd.Intn(12))
		hi := lo + int64(h.rnd.Intn(4))
		delta := 1 + h.rnd.Int63n(5)
		noop := h.rnd.Intn(5) == 0 // SET v = v: MySQL changes nothing
		set := fmt.Sprintf("v = v + %d", delta)
		if noop {
			set = "v = v"
		}
		h.exec(fmt.Sprintf("UPDATE %s SET %s WHERE id BETWEEN %d AND %d", h.table, set, lo, hi))
		for _, r := range ex {
			if r.id < lo || r.id > hi || noop {
				continue
			}
			n := r
			n.v += delta
			if h.writesUpdateBefore() {
				recs = append(recs, clRecord{"-U", r})
			}
			recs = append(recs, clRecord{"+U", n})
		}
	case op < 9: // DELETE
		ex := h.existing()
		id := int64(h.rnd.Intn(12))
		h.exec(fmt.Sprintf("DELETE FROM %s WHERE id = %d", h.table, id))
		for _, r := range ex {
			if r.id == id {
				recs = append(recs, clRecord{"-D", r})
			}
		}
	default: // a transaction boundary
		if h.inTx {
			h.exec("COMMIT")
			h.inTx = false
			h.finishCommit()
		} else {
			h.exec("BEGIN")
			h.inTx = true
			h.before = h.model.clone()
			h.pending = nil
			h.commits = append(h.commits, clCommit{after: h.latest()})
		}
		return
	}
	if !h.inTx {
		h.before = h.model.clone()
		h.pending = nil
		h.commits = append(h.commits, clCommit{after: after})
	}
	for _, c := range recs {
		k := clKey{c.row.id, c.row.dt}
		switch c.kind {
		case "+I", "+U":
			h.model.rows[k] = c.row
		default:
			delete(h.model.rows, k)
		}
		h.model.last[k] = c.kind
	}
	h.pending = append(h.pending, recs...)
	if !h.inTx {
		h.finishCommit()
	}
}

func (h *clHistory) writesUpdateBefore() bool { return h.producer == "input" }

// finishCommit records the snapshot range of the commit just made.
func (h *clHistory) finishCommit() {
	c := &h.commits[len(h.commits)-1]
	c.upto = h.latest()
	c.records = h.pending
	c.before = h.before
	c.model = h.model.clone()
	h.pending = nil
}

// expected is the changelog the producer writes for commit c.
func (h *clHistory) expected(c clCommit) []string {
	var out []string
	switch h.producer {
	case "input":
		for _, r := range c.records {
			out = append(out, r.text())
		}
	case "none":
		last := map[clKey]clRecord{}
		for _, r := range c.records {
			last[clKey{r.row.id, r.row.dt}] = r
		}
		for _, r := range last {
			out = append(out, r.text())
		}
	default: // lookup, full-compaction: the state diff of the keys written
		touched := map[clKey]bool{}
		for _, r := range c.records {
			touched[clKey{r.row.id, r.row.dt}] = true
		}
		for k := range touched {
			b, hadB := c.before.rows[k]
			a, hasA := c.model.rows[k]
			switch {
			case !hadB && hasA:
				out = append(out, clRecord{"+I", a}.text())
			case hadB && !hasA:
				out = append(out, clRecord{"-D", b}.text())
			case hadB && hasA:
				if !h.dedup || a.text() != b.text() {
					out = append(out, clRecord{"-U", b}.text(), clRecord{"+U", a}.text())
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

func (h *clHistory) auditRange(table string, after, upto int64) []string {
	h.t.Helper()
	rows := queryStrings(h.t, h.db, fmt.Sprintf("SELECT * FROM `%s` FOR VERSION BETWEEN %d AND %d", table, after, upto))
	var out []string
	for _, r := range rows {
		out = append(out, strings.Join(r, "|"))
	}
	slices.Sort(out)
	return out
}

// check compares every commit's changelog, the whole range, $binlog and the
// batch $audit_log with the model.
func (h *clHistory) check() {
	t := h.t
	var all []string
	// The commits whose changelog one compaction writes: one commit, or
	// with changelog-producer = full-compaction the commits up to each
	// full compaction (every full-compaction.delta-commits commits; the
	// last ones may wait for theirs, with no changelog yet).
	var groups []clCommit
	var open *clCommit
	n := 0
	for _, c := range h.commits {
		if c.upto == c.after {
			if len(c.records) > 0 && h.producer != "none" {
				// A statement that changed rows always commits.
				t.Errorf("%s: a commit with %d records made no snapshot", h.producer, len(c.records))
			}
			continue
		}
		if open == nil {
			g := c
			g.records = slices.Clone(c.records)
			open, n = &g, 0
		} else {
			open.upto, open.model = c.upto, c.model
			open.records = append(open.records, c.records...)
		}
		if n++; n >= max(h.deltaCommits, 1) {
			groups = append(groups, *open)
			open = nil
		}
	}
	if open != nil {
		// Not fully compacted yet: no changelog.
		if got := h.auditRange(h.table+"$audit_log", open.after, open.upto); len(got) != 0 {
			t.Errorf("%s: $audit_log FOR VERSION BETWEEN %d AND %d before the next full compaction: %q, want nothing", h.producer, open.after, open.upto, got)
		}
	}
	for _, c := range groups {
		want := h.expected(c)
		all = append(all, want...)
		got := h.auditRange(h.table+"$audit_log", c.after, c.upto)
		if d := ioDiffRows(want, got); d != "" {
			t.Errorf("%s: $audit_log FOR VERSION BETWEEN %d AND %d differs from the model:\n%s", h.producer, c.after, c.upto, d)
		}
	}
	slices.Sort(all)
	last := h.latest()
	got := h.auditRange(h.table+"$audit_log", 0, last)
	if d := ioDiffRows(all, got); d != "" {
		t.Errorf("%s: $audit_log FOR VERSION BETWEEN 0 AND %d differs from the model:\n%s", h.producer, last, d)
	}
	// $binlog packs each -U with the +U after it.
	bin := queryStrings(t, h.db, fmt.Sprintf("SELECT rowkind, id, v FROM `%s$binlog` FOR VERSION BETWEEN 0 AND %d", h.table, last))
	nU := 0
	for _, r := range got {
		if strings.HasPrefix(r, "-U|") {
			nU++
		}
	}
	if len(bin) != len(got)-nU {
		t.Errorf("%s: $binlog has %d rows, want %d ($audit_log rows minus -U rows)", h.producer, len(bin), len(got)-nU)
	}
	for _, r := range bin {
		if r[0] == "+U" && h.producer == "input" && !strings.Contains(r[1], ",") {
			t.Errorf("%s: $binlog +U row %v is not packed with its -U", h.producer, r)
		}
	}
	// The batch $audit_log: its +I/+U rows are the table's rows, and each
	// retraction names a key the table does not hold.
	rows := queryStrings(t, h.db, fmt.Sprintf("SELECT * FROM `%s$audit_log`", h.table))
	var adds []string
	for _, r := range rows {
		line := strings.Join(r[1:], "|")
		switch r[0] {
		case "+I", "+U":
			adds = append(adds, line)
		default:
			id, _ := strconv.ParseInt(r[1], 10, 64)
			if _, ok := h.model.rows[clKey{id, r[2]}]; ok {
				t.Errorf("%s: batch $audit_log has %s for key %s, which the table holds", h.producer, r[0], r[1])
			}
		}
	}
	slices.Sort(adds)
	if d := ioDiffRows(h.model.text(), adds); d != "" {
		t.Errorf("%s: batch $audit_log +I/+U rows differ from the table:\n%s", h.producer, d)
	}
}

// TestServerChangelogProducers runs a seeded random history (INSERT, UPDATE,
// DELETE, transactions) on a deduplicate table for each changelog producer
// lakesql writes, and checks through the MySQL protocol that
// `$audit_log FOR VERSION BETWEEN` each commit's snapshots equals the
// model's changelog of that commit (see clModel), that the whole range
// equals their union, that $binlog packs the -U/+U pairs, and that the batch
// $audit_log agrees with the table. LAKESQL_CHANGELOG_SEED fixes the seed;
// LAKESQL_CHANGELOG_STEPS the statements per history (default 40).
func TestServerChangelogProducers(t *testing.T) {
	seed := time.Now().UnixNano()
	if s := os.Getenv("LAKESQL_CHANGELOG_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	steps := 40
	if s := os.Getenv("LAKESQL_CHANGELOG_STEPS"); s != "" {
		steps, _ = strconv.Atoi(s)
	}
	wh := t.TempDir()
	ws := startWriteServer(t, wh)
	pool := ws.open(t, "")
	ctx := context.Background()
	if _, err := pool.ExecContext(ctx, "CREATE DATABASE cl"); err != nil {
		t.Fatal(err)
	}
	configs := []struct {
		producer string
		opts     string
	}{
		{"none", "'bucket' = '2'"},
		{"input", "'bucket' = '2'"},
		{"input", "'bucket' = '-1'"},
		{"lookup", "'bucket' = '2'"},
		{"lookup", "'bucket' = '-1', 'changelog-producer.row-deduplicate' = 'true'"},
		{"lookup", "'bucket' = '2', 'deletion-vectors.enabled' = 'true'"},
		{"full-compaction", "'bucket' = '2'"},
		{"full-compaction", "'bucket' = '-1', 'full-compaction.delta-commits' = '3', 'compaction.max-size-amplification-percent' = '100000'"},
		{"full-compaction", "'bucket' = '1', 'changelog-producer.row-deduplicate' = 'true'"},
	}
	for i, cfg := range configs {
		t.Run(fmt.Sprintf("%s-%d", cfg.producer, i), func(t *testing.T) {
			s := seed + int64(i)
			t.Logf("seed %d (LAKESQL_CHANGELOG_SEED=%d)", s, seed)
			conn, err := pool.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			h := &clHistory{t: t, db: conn, rnd: rand.New(rand.NewSource(s)), producer: cfg.producer,
				table: fmt.Sprintf("t%d", i), model: newCLModel(), dedup: strings.Contains(cfg.opts, "row-deduplicate"), deltaCommits: 1}
			if strings.Contains(cfg.opts, "'full-compaction.delta-commits' = '3'") {
				h.deltaCommits = 3
			}
			h.exec("USE cl")
			h.exec(fmt.Sprintf("CREATE TABLE %s (id BIGINT, dt STRING, v INT, s STRING, PRIMARY KEY (id, dt) NOT ENFORCED) "+
				"PARTITIONED BY (dt) WITH ('changelog-producer' = '%s', %s)", h.table, cfg.producer, cfg.opts))
			for n := 0; n < steps; n++ {
				h.step()
			}
			if h.inTx {
				h.exec("COMMIT")
				h.inTx = false
				h.finishCommit()
			}
			got := queryStrings(t, conn, "SELECT * FROM "+h.table)
			var rows []string
			for _, r := range got {
				rows = append(rows, strings.Join(r, "|"))
			}
			slices.Sort(rows)
			if d := ioDiffRows(h.model.text(), rows); d != "" {
				t.Fatalf("the table differs from the model:\n%s", d)
			}
			h.check()
		})
	}
}

// TestServerAuditLogRanges: the range spellings of $audit_log through the
// MySQL protocol — snapshot ids, timestamps, two tags (a diff, as Java
// compares two tags), incremental-between-scan-mode — and their errors,
// after which the connection still answers.
func TestServerAuditLogRanges(t *testing.T) {
	wh := t.TempDir()
	ws := startWriteServer(t, wh)
	pool := ws.open(t, "")
	ctx := context.Background()
	conn, err := pool.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	exec := func(q string) {
		t.Helper()
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	rowsOf := func(q string) []string {
		t.Helper()
		var out []string
		for _, r := range queryStrings(t, conn, q) {
			out = append(out, strings.Join(r, "|"))
		}
		slices.Sort(out)
		return out
	}
	exec("CREATE DATABASE r")
	exec("USE r")
	exec("CREATE TABLE t (id BIGINT PRIMARY KEY, v INT) WITH ('bucket' = '2')")
	exec("INSERT INTO t VALUES (1, 10), (2, 20), (3, 30)") // 1
	time.Sleep(5 * time.Millisecond)
	exec("UPDATE t SET v = 11 WHERE id = 1") // 2
	time.Sleep(5 * time.Millisecond)
	exec("DELETE FROM t WHERE id = 2")   // 3
	exec("INSERT INTO t VALUES (4, 40)") // 4
	snaps := queryStrings(t, conn, "SELECT snapshot_id, commit_time FROM `t$snapshots` ORDER BY snapshot_id")
	if len(snaps) != 4 {
		t.Fatalf("want 4 snapshots, got %v", snaps)
	}

	// Snapshot ids (delta: changelog-producer none): changes after 1 up to 3.
	want := []string{"+U|1|11", "-D|2|20"}
	if got := rowsOf("SELECT * FROM `t$audit_log` FOR VERSION BETWEEN 1 AND 3"); !slices.Equal(got, want) {
		t.Errorf("FOR VERSION BETWEEN 1 AND 3: got %q, want %q", got, want)
	}
	if got := rowsOf("SELECT * FROM `t$audit_log` FOR VERSION BETWEEN 2 AND 2"); len(got) != 0 {
		t.Errorf("FOR VERSION BETWEEN 2 AND 2: got %q, want nothing", got)
	}
	// Timestamps: the snapshots at or before each time, so from just after
	// snapshot 1's commit to snapshot 3's: snapshots 2 and 3.
	q := fmt.Sprintf("SELECT * FROM `t$audit_log` FOR TIMESTAMP BETWEEN '%s' AND '%s'", snaps[0][1], snaps[2][1])
	if got := rowsOf(q); !slices.Equal(got, want) {
		t.Errorf("%s: got %q, want %q", q, got, want)
	}
	// AS OF on $audit_log: that snapshot's merged records.
	if got, w := rowsOf("SELECT * FROM `t$audit_log` AS OF 2"), []string{"+I|2|20", "+I|3|30", "+U|1|11"}; !slices.Equal(got, w) {
		t.Errorf("$audit_log AS OF 2: got %q, want %q", got, w)
	}
	// $binlog without a range: one-element arrays.
	if got, w := rowsOf("SELECT * FROM `t$binlog` AS OF 1"), []string{"+I|[1]|[10]", "+I|[2]|[20]", "+I|[3]|[30]"}; !slices.Equal(got, w) {
		t.Errorf("$binlog AS OF 1: got %q, want %q", got, w)
	}

	// Two tags: a diff of the tagged snapshots.
	st, err := storage.Open(ctx, filepath.Join(wh, "r.db", "t"))
	if err != nil {
		t.Fatal(err)
	}
	tags := snapshot.NewTagManager(st, "")
	for _, tag := range []struct {
		name string
		id   snapshot.SnapshotID
	}{{"t1", 1}, {"t4", 4}} {
		s, err := snapshot.NewSnapshotManager(st, "").Snapshot(ctx, tag.id)
		if err != nil {
			t.Fatal(err)
		}
		if err := tags.Create(ctx, tag.name, s, nil, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	want = []string{"+I|4|40", "+U|1|11", "-D|2|20"}
	if got := rowsOf("SELECT * FROM `t$audit_log` FOR VERSION BETWEEN 't1' AND 't4'"); !slices.Equal(got, want) {
		t.Errorf("FOR VERSION BETWEEN 't1' AND 't4': got %q, want %q", got, want)
	}
	exec("ALTER TABLE t SET ('incremental-between-scan-mode' = 'diff')") // 5 is a schema change only
	if got := rowsOf("SELECT * FROM `t$audit_log` FOR VERSION BETWEEN 1 AND 4"); !slices.Equal(got, want) {
		t.Errorf("diff mode, FOR VERSION BETWEEN 1 AND 4: got %q, want %q", got, want)
	}

	for _, c := range []struct {
		q    string
		code uint16
	}{
		{"SELECT * FROM `t$audit_log` FOR VERSION BETWEEN 3 AND 1", 1210},
		{"SELECT * FROM `t$audit_log` FOR VERSION BETWEEN 0 AND 99", 1210},
		{"SELECT * FROM `t$audit_log` FOR VERSION BETWEEN 1 AND 't4'", 1210},
		{"SELECT * FROM `t$audit_log` FOR TIMESTAMP BETWEEN 'yesterday' AND 'today'", 1210},
		{"SELECT * FROM t FOR VERSION BETWEEN 1 AND 3", 1235},
		{"SELECT * FROM `t$files` FOR VERSION BETWEEN 1 AND 3", 1235},
		{"SELECT * FROM `t$audit_log` FOR VERSION FROM 1 TO 3", 1235},
		{"SELECT * FROM `t$audit_log` FOR VERSION BETWEEN 'nope' AND 't4'", 0},
	} {
		_, _, err := queryRows(ctx, conn, c.q)
		switch {
		case err == nil:
			t.Errorf("%s: want an error", c.q)
		case c.code != 0 && mysqlErrNo(err) != c.code:
			t.Errorf("%s: error %v, want MySQL error %d", c.q, err, c.code)
		case mysqlErrNo(err) == 0:
			t.Errorf("%s: error %v is not a MySQL error", c.q, err)
		default:
			t.Logf("%s: %v", c.q, err)
		}
		if got := queryStrings(t, conn, "SELECT COUNT(*) FROM t"); got[0][0] != "3" {
			t.Fatalf("after %s: COUNT(*) = %v", c.q, got)
		}
	}
	// A prepared statement with placeholders in the range.
	if _, err := conn.PrepareContext(ctx, "SELECT * FROM `t$audit_log` FOR VERSION BETWEEN ? AND ?"); err == nil || mysqlErrNo(err) != 1235 {
		t.Errorf("prepared FOR VERSION BETWEEN ? AND ?: %v, want error 1235", err)
	}
}
