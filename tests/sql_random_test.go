package tests

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/memory"
	"github.com/dolthub/go-mysql-server/server"
	gmssql "github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/sqlengine"
)

// TestSQLRandomHistories runs seeded random DML histories through the MySQL
// protocol against lakesql and against rhModel, a small Go model of the
// same semantics: one map key → row per table, each written record applied
// in order through the table's merge engine (deduplicate: last write wins,
// delete included; partial-update with partial-update.remove-record-on-delete:
// non-null columns overwrite, -D removes the row; aggregation with sum on v,
// last_non_null_value elsewhere and aggregation.remove-record-on-delete).
// Statements produce the records lakesql documents: INSERT is a blind
// upsert (+I), INSERT IGNORE skips existing keys, ON DUPLICATE KEY UPDATE
// updates existing keys, REPLACE is a blind upsert too (+I: on
// partial-update and aggregation tables it merges, unlike MySQL's
// delete-and-insert), UPDATE is +U (with a -U of
// the old row first on aggregation tables), DELETE is -D.
//
// Every merge engine × bucket (1, 4, dynamic -1) × partitioned or not runs
// its own history. After every autocommit statement and every COMMIT or
// ROLLBACK, SELECT * must equal the model; inside a transaction every
// statement is followed by a SELECT that must equal the transaction's own
// view (read-your-writes). The snapshot id after every commit is recorded
// with the model's state, and at the end SELECT … AS OF every id must equal
// that state.
//
// The deduplicate runs are repeated in "oracle" mode: only statements whose
// meaning is MySQL's (plain INSERT of new keys only) and the same script also
// runs on GMS's in-memory backend; every step's affected-row count, error
// and table contents must agree.
//
// LAKESQL_SQL_RANDOM_SEED fixes the base seed; LAKESQL_SQL_RANDOM_STEPS sets
// the statements per history (default 40).
func TestSQLRandomHistories(t *testing.T) {
	seed := time.Now().UnixNano()
	if s := os.Getenv("LAKESQL_SQL_RANDOM_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseInt(s, 10, 64); err != nil {
			t.Fatalf("LAKESQL_SQL_RANDOM_SEED: %v", err)
		}
	}
	steps := 40
	if s := os.Getenv("LAKESQL_SQL_RANDOM_STEPS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			t.Fatalf("LAKESQL_SQL_RANDOM_STEPS=%q", s)
		}
		steps = n
	}
	t.Logf("base seed %d (rerun with LAKESQL_SQL_RANDOM_SEED=%d), %d statements per history", seed, seed, steps)

	oracle := startMemoryOracle(t)

	var configs []rhConfig
	for _, eng := range []string{"deduplicate", "partial-update", "aggregation"} {
		for _, b := range []string{"1", "4", "-1"} {
			for _, part := range []bool{false, true} {
				configs = append(configs, rhConfig{engine: eng, bucket: b, partitioned: part})
			}
		}
	}
	for _, b := range []string{"1", "4", "-1"} {
		for _, part := range []bool{false, true} {
			configs = append(configs, rhConfig{engine: "deduplicate", bucket: b, partitioned: part, oracle: true})
		}
	}
	// Merge-on-write: the same histories on tables with deletion vectors
	// (every statement's level-0 files are compacted up with lookup before
	// it returns, and reads skip level 0).
	configs = append(configs,
		rhConfig{engine: "deduplicate", bucket: "4", partitioned: true, dv: "32"},
		rhConfig{engine: "deduplicate", bucket: "-1", dv: "64"},
		rhConfig{engine: "partial-update", bucket: "1", partitioned: true, dv: "32"},
		rhConfig{engine: "aggregation", bucket: "4", dv: "64"},
		rhConfig{engine: "deduplicate", bucket: "1", dv: "32", oracle: true},
	)
	var total rhStats
	start := time.Now()
	for i, cfg := range configs {
		s := seed + int64(i)
		t.Run(cfg.name(), func(t *testing.T) {
			// One warehouse and server per history: the catalog walks the
			// whole warehouse on every statement, so a shared warehouse
			// makes later histories slower and slower.
			ws := startWriteServer(t, t.TempDir())
			db := ws.open(t, "")
			h := &rhHistory{
				t: t, cfg: cfg, seed: s, rnd: rand.New(rand.NewSource(s)),
				table: fmt.Sprintf("t%d", i), db: db, oracleDB: oracle,
			}
			h.run(steps)
			total.add(h.stats)
		})
	}
	el := time.Since(start)
	t.Logf("%d histories: %d statements (%d in transactions, %d commits, %d rollbacks), %d checking SELECTs, %d AS OF reads in %v: %.0f statements/s, %.0f queries/s overall",
		len(configs), total.stmts, total.txStmts, total.commits, total.rollbacks, total.selects, total.asOf, el.Round(time.Millisecond),
		float64(total.stmts)/el.Seconds(), float64(total.stmts+total.selects+total.asOf+total.commits+total.rollbacks)/el.Seconds())
}

// rhConfig is one table configuration of a random history.
type rhConfig struct {
	engine      string
	bucket      string
	partitioned bool
	oracle      bool   // deduplicate only: MySQL-meaning statements, also run on GMS memory
	dv          string // "32" or "64": deletion vectors (merge-on-write) with that bitmap
	// compaction, when set, is the compaction configuration of the
	// metamorphic test (compaction_metamorphic_test.go): more table
	// options, explicit compactions between statements and invariants
	// checked after each statement.
	compaction *cmMode
}

func (c rhConfig) name() string {
	n := fmt.Sprintf("%s/bucket=%s", c.engine, c.bucket)
	if c.partitioned {
		n += "/partitioned"
	}
	if c.dv != "" {
		n += "/dv" + c.dv
	}
	if c.oracle {
		n += "/oracle"
	}
	if c.compaction != nil {
		n += "/" + c.compaction.name
	}
	return n
}

// ddl is the Flink CREATE TABLE of the history's table.
func (c rhConfig) ddl(table string) string {
	opts := []string{fmt.Sprintf("'bucket' = '%s'", c.bucket), fmt.Sprintf("'merge-engine' = '%s'", c.engine)}
	switch c.engine {
	case "partial-update":
		opts = append(opts, "'partial-update.remove-record-on-delete' = 'true'")
	case "aggregation":
		opts = append(opts, "'fields.v.aggregate-function' = 'sum'",
			"'fields.default-aggregate-function' = 'last_non_null_value'",
			"'aggregation.remove-record-on-delete' = 'true'")
	}
	if c.dv != "" {
		opts = append(opts, "'deletion-vectors.enabled' = 'true'", fmt.Sprintf("'deletion-vectors.bitmap64' = '%t'", c.dv == "64"))
	}
	if c.compaction != nil {
		for _, kv := range c.compaction.options {
			k, v, _ := strings.Cut(kv, "=")
			opts = append(opts, fmt.Sprintf("'%s' = '%s'", k, v))
		}
	}
	pk, part := "k", ""
	if c.partitioned {
		pk, part = "p, k", " PARTITIONED BY (p)"
	}
	return fmt.Sprintf("CREATE TABLE %s (k BIGINT, p INT, v BIGINT, w STRING, PRIMARY KEY (%s) NOT ENFORCED)%s WITH (%s)",
		table, pk, part, strings.Join(opts, ", "))
}

// memoryDDL is the MySQL CREATE TABLE of the oracle's table.
func (c rhConfig) memoryDDL(table string) string {
	pk := "k"
	if c.partitioned {
		pk = "p, k"
	}
	return fmt.Sprintf("CREATE TABLE %s (k BIGINT NOT NULL, p INT NOT NULL, v BIGINT, w VARCHAR(32), PRIMARY KEY (%s))", table, pk)
}

func (c rhConfig) orderBy() string {
	if c.partitioned {
		return "p, k"
	}
	return "k"
}

type rhStats struct {
	stmts, txStmts, commits, rollbacks, selects, asOf int
}

func (s *rhStats) add(o rhStats) {
	s.stmts += o.stmts
	s.txStmts += o.txStmts
	s.commits += o.commits
	s.rollbacks += o.rollbacks
	s.selects += o.selects
	s.asOf += o.asOf
}

// rhKey is a row's primary key (p is 0 when the table is unpartitioned).
type rhKey struct{ p, k int64 }

// rhRow is one row: v is int64 or nil, w is string or nil.
type rhRow struct {
	k, p int64
	v, w any
}

func (r rhRow) String() string {
	return fmt.Sprintf("%d|%d|%s|%s", r.k, r.p, rhText(r.v), rhText(r.w))
}

func rhText(v any) string {
	if v == nil {
		return "NULL"
	}
	return fmt.Sprint(v)
}

func rhLit(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return "'" + strings.ReplaceAll(x, "'", "''") + "'"
	}
	return fmt.Sprint(v)
}

// rhModel is the expected content of one table.
type rhModel struct {
	cfg  rhConfig
	rows map[rhKey]rhRow
}

func newRHModel(cfg rhConfig) *rhModel {
	return &rhModel{cfg: cfg, rows: map[rhKey]rhRow{}}
}

func (m *rhModel) clone() *rhModel {
	c := newRHModel(m.cfg)
	for k, r := range m.rows {
		c.rows[k] = r
	}
	return c
}

func (m *rhModel) key(r rhRow) rhKey {
	if m.cfg.partitioned {
		return rhKey{r.p, r.k}
	}
	return rhKey{0, r.k}
}

// text renders the rows in ORDER BY order, one "k|p|v|w" per row.
func (m *rhModel) text() []string {
	rows := make([]rhRow, 0, len(m.rows))
	for _, r := range m.rows {
		rows = append(rows, r)
	}
	slices.SortFunc(rows, func(a, b rhRow) int {
		if m.cfg.partitioned && a.p != b.p {
			return int(a.p - b.p)
		}
		return int(a.k - b.k)
	})
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.String()
	}
	return out
}

type rhKind uint8

const (
	rhAdd     rhKind = iota // +I, +U
	rhRetract               // -U
	rhDelete                // -D
)

// apply folds one record into the model through the merge engine.
func (m *rhModel) apply(kind rhKind, r rhRow) error {
	key := m.key(r)
	old, ok := m.rows[key]
	if kind == rhDelete {
		delete(m.rows, key)
		return nil
	}
	switch m.cfg.engine {
	case "deduplicate":
		if kind == rhRetract {
			delete(m.rows, key)
		} else {
			m.rows[key] = r
		}
	case "partial-update":
		if kind == rhRetract {
			return fmt.Errorf("model: partial-update cannot take -U")
		}
		if !ok {
			m.rows[key] = r
			return nil
		}
		if !m.cfg.partitioned {
			old.p = r.p // p is never NULL
		}
		if r.v != nil {
			old.v = r.v
		}
		if r.w != nil {
			old.w = r.w
		}
		m.rows[key] = old
	case "aggregation":
		if kind == rhRetract {
			if !ok {
				return fmt.Errorf("model: -U of absent key %v", key)
			}
			// sum: acc - in (NULL in keeps acc, NULL acc negates);
			// last_non_null_value: a non-null retraction clears.
			switch {
			case r.v == nil:
			case old.v == nil:
				old.v = -r.v.(int64)
			default:
				old.v = old.v.(int64) - r.v.(int64)
			}
			if r.w != nil {
				old.w = nil
			}
			m.rows[key] = old
			return nil
		}
		if !ok {
			m.rows[key] = r
			return nil
		}
		if !m.cfg.partitioned {
			old.p = r.p
		}
		switch {
		case r.v == nil:
		case old.v == nil:
			old.v = r.v
		default:
			old.v = old.v.(int64) + r.v.(int64)
		}
		if r.w != nil {
			old.w = r.w
		}
		m.rows[key] = old
	}
	return nil
}

// update applies an UPDATE of old to new the way the editor writes it.
func (m *rhModel) update(old, new rhRow) error {
	if m.cfg.engine == "aggregation" {
		if err := m.apply(rhRetract, old); err != nil {
			return err
		}
	}
	return m.apply(rhAdd, new)
}

// rhPred is a WHERE clause and its meaning.
type rhPred struct {
	sql  string
	eval func(r rhRow) bool
}

type rhHistory struct {
	t        *testing.T
	cfg      rhConfig
	seed     int64
	rnd      *rand.Rand
	table    string
	db       *sql.DB
	conn     *sql.Conn
	oracleDB *sql.DB
	oconn    *sql.Conn

	committed *rhModel
	work      *rhModel // the running transaction's view, or nil
	log       []string // statements run so far
	snaps     []rhSnap
	stats     rhStats
	// replaceRows is the row count of the running REPLACE (see exec).
	replaceRows int
	// wh is the warehouse folder (explicit compactions of the metamorphic
	// test run on it).
	wh string
	// tags are the tags the metamorphic test created, with the snapshot
	// each tags.
	tags map[string]rhSnap
}

type rhSnap struct {
	id    int64
	rows  []string
	model *rhModel // the model of rows (nil: the empty table)
	kind  string   // commit kind
	skip  bool     // its content is not known (see recordSnapshot)
	// settled: the last snapshot when a statement returned (the
	// compaction mode's invariants held at it).
	settled bool
}

func (h *rhHistory) fatalf(format string, args ...any) {
	h.t.Helper()
	tail := h.log
	if len(tail) > 25 {
		tail = tail[len(tail)-25:]
	}
	h.t.Fatalf("%s\nseed %d (history %s, table %s; rerun with LAKESQL_SQL_RANDOM_SEED=<base seed logged above>)\nlast statements:\n  %s",
		fmt.Sprintf(format, args...), h.seed, h.cfg.name(), h.table, strings.Join(tail, "\n  "))
}

func (h *rhHistory) run(steps int) {
	ctx := context.Background()
	var err error
	if h.conn, err = h.db.Conn(ctx); err != nil {
		h.t.Fatal(err)
	}
	defer closeConn(h.conn)
	if _, err := h.conn.ExecContext(ctx, h.cfg.ddl(h.table)); err != nil {
		h.t.Fatalf("%s: %v", h.cfg.ddl(h.table), err)
	}
	if h.cfg.oracle {
		if h.oconn, err = h.oracleDB.Conn(ctx); err != nil {
			h.t.Fatal(err)
		}
		defer closeConn(h.oconn)
		if _, err := h.oconn.ExecContext(ctx, h.cfg.memoryDDL(h.table)); err != nil {
			h.t.Fatalf("oracle: %v", err)
		}
	}
	h.committed = newRHModel(h.cfg)
	for n := 0; n < steps; {
		if h.cfg.compaction != nil && h.rnd.Intn(100) < 12 {
			h.explicitCompaction() // compaction_metamorphic_test.go
			continue
		}
		if h.cfg.compaction != nil && h.rnd.Intn(100) < 8 {
			h.maintenance() // compaction_metamorphic_test.go
			continue
		}
		if h.rnd.Intn(100) < 15 {
			n += h.transaction()
			continue
		}
		h.statement(h.committed)
		h.stats.stmts++
		n++
		h.check(h.committed, "after autocommit statement")
		h.recordSnapshot()
		h.checkInvariants()
	}
	h.checkAsOf()
	h.checkTags()      // compaction_metamorphic_test.go
	h.checkChangelog() // compaction_metamorphic_test.go
}

// transaction runs BEGIN, 2–4 statements, then COMMIT or ROLLBACK.
func (h *rhHistory) transaction() int {
	h.exec("BEGIN")
	h.work = h.committed.clone()
	n := 2 + h.rnd.Intn(3)
	for i := 0; i < n; i++ {
		h.statement(h.work)
		h.stats.stmts++
		h.stats.txStmts++
		h.check(h.work, "inside the transaction (read-your-writes)")
	}
	before := h.latestSnapshot()
	if h.rnd.Intn(100) < 70 {
		h.exec("COMMIT")
		h.stats.commits++
		h.committed = h.work
		h.work = nil
		h.check(h.committed, "after COMMIT")
		h.recordSnapshot()
		h.checkInvariants()
	} else {
		h.exec("ROLLBACK")
		h.stats.rollbacks++
		h.work = nil
		h.check(h.committed, "after ROLLBACK")
		for _, s := range h.snapshotsAfter(before) {
			if s.kind != "COMPACT" {
				h.fatalf("ROLLBACK committed snapshot %d (%s; latest was %d)", s.id, s.kind, before)
			}
		}
	}
	return n
}

// exec runs q on lakesql (and the oracle) and compares affected rows.
func (h *rhHistory) exec(q string) {
	h.t.Helper()
	h.log = append(h.log, q)
	ctx := context.Background()
	res, err := h.conn.ExecContext(ctx, q)
	if err != nil {
		h.fatalf("%s: %v", q, err)
	}
	if h.oconn == nil {
		return
	}
	ores, oerr := h.oconn.ExecContext(ctx, q)
	if oerr != nil {
		h.fatalf("oracle: %s: %v (lakesql succeeded)", q, oerr)
	}
	n, _ := res.RowsAffected()
	on, _ := ores.RowsAffected()
	if h.replaceRows > 0 {
		if n != int64(h.replaceRows) || on < n || on > 2*n {
			h.fatalf("%s: lakesql reports %d affected rows, GMS memory %d; want %d and %d..%d", q, n, on, h.replaceRows, n, 2*n)
		}
		return
	}
	if n != on {
		h.fatalf("%s: lakesql reports %d affected rows, GMS memory %d", q, n, on)
	}
}

func (h *rhHistory) selectAll(c *sql.Conn, suffix string) []string {
	h.t.Helper()
	q := fmt.Sprintf("SELECT k, p, v, w FROM %s%s ORDER BY %s", h.table, suffix, h.cfg.orderBy())
	rows := queryStrings(h.t, c, q)
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strings.Join(r, "|")
	}
	return out
}

func (h *rhHistory) check(m *rhModel, when string) {
	h.t.Helper()
	h.stats.selects++
	got := h.selectAll(h.conn, "")
	want := m.text()
	if !slices.Equal(got, want) {
		h.fatalf("%s: SELECT * differs from the model\n got %q\nwant %q", when, got, want)
	}
	if h.oconn != nil {
		if o := h.selectAll(h.oconn, ""); !slices.Equal(got, o) {
			h.fatalf("%s: SELECT * differs from GMS memory\n     got %q\n  memory %q", when, got, o)
		}
	}
}

func (h *rhHistory) latestSnapshot() int64 {
	h.t.Helper()
	rows := queryStrings(h.t, h.conn, fmt.Sprintf("SELECT MAX(snapshot_id) FROM `%s$snapshots`", h.table))
	if len(rows) != 1 || rows[0][0] == "NULL" {
		return 0
	}
	id, err := strconv.ParseInt(rows[0][0], 10, 64)
	if err != nil {
		h.fatalf("snapshot id %q: %v", rows[0][0], err)
	}
	return id
}

// recordSnapshot notes the committed state under the snapshots committed
// since the last call: at most one of them may add records (the
// statement's or transaction's commit; a commit that changed the table must
// have made one), the others are COMPACT snapshots of automatic compaction,
// which must read as the state before or after that commit.
func (h *rhHistory) recordSnapshot() {
	h.t.Helper()
	rows := h.committed.text()
	var last rhSnap
	if len(h.snaps) > 0 {
		last = h.snaps[len(h.snaps)-1]
	}
	state, model := last.rows, last.model
	writes := 0
	news := h.snapshotsAfter(last.id)
	pending := false // merge-on-write: the commit's rows are not visible yet
	for i, s := range news {
		snap := rhSnap{id: s.id, rows: state, model: model, kind: s.kind}
		switch {
		case s.kind != "COMPACT":
			writes++
			if h.cfg.dv == "" {
				state, model = rows, h.committed.clone()
			} else {
				// The APPEND snapshot holds level-0 files, which reads of
				// merge-on-write tables skip: it reads as the table
				// before it; a COMPACT snapshot after it holds the rows.
				pending = true
			}
			snap.rows, snap.model = state, model
		case pending && i == len(news)-1:
			state, model, pending = rows, h.committed.clone(), false
			snap.rows, snap.model = state, model
		case pending:
			// A compaction between the commit and its level-0
			// compaction may or may not show the commit's rows.
			snap.skip = true
		}
		snap.settled = i == len(news)-1
		h.snaps = append(h.snaps, snap)
	}
	switch {
	case writes > 1:
		h.fatalf("%d snapshots adding records after snapshot %d: one commit made several snapshots, or someone else wrote", writes, last.id)
	case writes == 0 && !slices.Equal(rows, last.rows):
		h.fatalf("the table changed but no snapshot was committed (latest %d)\nsnapshots %q", last.id, queryStrings(h.t, h.conn, fmt.Sprintf("SELECT snapshot_id, commit_kind, commit_user FROM `%s$snapshots`", h.table)))
	case pending:
		h.fatalf("merge-on-write: snapshot %d (APPEND) was not followed by the COMPACT snapshot of its level-0 files", news[len(news)-1].id)
	}
}

type rhSnapInfo struct {
	id   int64
	kind string
}

// snapshotsAfter lists the snapshots after id, in order.
func (h *rhHistory) snapshotsAfter(id int64) []rhSnapInfo {
	h.t.Helper()
	rows := queryStrings(h.t, h.conn, fmt.Sprintf("SELECT snapshot_id, commit_kind FROM `%s$snapshots` WHERE snapshot_id > %d ORDER BY snapshot_id", h.table, id))
	out := make([]rhSnapInfo, len(rows))
	for i, r := range rows {
		n, err := strconv.ParseInt(r[0], 10, 64)
		if err != nil {
			h.fatalf("snapshot id %q: %v", r[0], err)
		}
		out[i] = rhSnapInfo{n, r[1]}
	}
	return out
}

func (h *rhHistory) checkAsOf() {
	h.t.Helper()
	for _, s := range h.snaps {
		if s.skip {
			continue
		}
		h.stats.asOf++
		got := h.selectAll(h.conn, fmt.Sprintf(" AS OF %d", s.id))
		if !slices.Equal(got, s.rows) {
			h.fatalf("AS OF %d (%s) differs from the model's state at that commit\n got %q\nwant %q", s.id, s.kind, got, s.rows)
		}
	}
}

// Random values: keys 0..9, partitions 1..3, small v, a few w.
var rhWords = []string{"a", "b", "c", "it's", "zz", ""}

func (h *rhHistory) randRow(k int64) rhRow {
	r := rhRow{k: k, p: 1 + h.rnd.Int63n(3)}
	if h.rnd.Intn(5) > 0 {
		r.v = h.rnd.Int63n(30) - 5
	}
	if h.rnd.Intn(5) > 0 {
		r.w = rhWords[h.rnd.Intn(len(rhWords))]
	}
	return r
}

func (h *rhHistory) randKey() int64 { return h.rnd.Int63n(10) }

func rowsSQL(rows []rhRow) string {
	parts := make([]string, len(rows))
	for i, r := range rows {
		parts[i] = fmt.Sprintf("(%d, %d, %s, %s)", r.k, r.p, rhLit(r.v), rhLit(r.w))
	}
	return strings.Join(parts, ", ")
}

// pickExisting returns a visible row, biased to existing keys so writes
// collide.
func (h *rhHistory) pickRow(m *rhModel) rhRow {
	if len(m.rows) > 0 && h.rnd.Intn(3) > 0 {
		keys := make([]rhKey, 0, len(m.rows))
		for k := range m.rows {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b rhKey) int {
			if a.p != b.p {
				return int(a.p - b.p)
			}
			return int(a.k - b.k)
		})
		old := m.rows[keys[h.rnd.Intn(len(keys))]]
		r := h.randRow(old.k)
		if h.cfg.partitioned {
			r.p = old.p
		}
		return r
	}
	return h.randRow(h.randKey())
}

func (h *rhHistory) randPred() rhPred {
	a, b := h.randKey(), h.randKey()
	if a > b {
		a, b = b, a
	}
	x := h.rnd.Int63n(25) - 5
	p := 1 + h.rnd.Int63n(3)
	w := rhWords[h.rnd.Intn(len(rhWords))]
	switch h.rnd.Intn(9) {
	case 0:
		return rhPred{fmt.Sprintf("k = %d", a), func(r rhRow) bool { return r.k == a }}
	case 1:
		return rhPred{fmt.Sprintf("k BETWEEN %d AND %d", a, b), func(r rhRow) bool { return r.k >= a && r.k <= b }}
	case 2:
		return rhPred{fmt.Sprintf("k >= %d", a), func(r rhRow) bool { return r.k >= a }}
	case 3:
		return rhPred{fmt.Sprintf("k < %d", b), func(r rhRow) bool { return r.k < b }}
	case 4:
		return rhPred{fmt.Sprintf("p = %d", p), func(r rhRow) bool { return r.p == p }}
	case 5:
		return rhPred{"v IS NULL", func(r rhRow) bool { return r.v == nil }}
	case 6:
		return rhPred{fmt.Sprintf("v > %d", x), func(r rhRow) bool { return r.v != nil && r.v.(int64) > x }}
	case 7:
		return rhPred{"w = " + rhLit(w), func(r rhRow) bool { return r.w != nil && r.w.(string) == w }}
	default:
		return rhPred{fmt.Sprintf("k = %d AND p = %d", a, p), func(r rhRow) bool { return r.k == a && r.p == p }}
	}
}

// rhSet is an UPDATE's SET clause and its meaning.
type rhSet struct {
	sql  string
	eval func(r rhRow) rhRow
}

func (h *rhHistory) randSet() rhSet {
	n := h.rnd.Int63n(7) - 2
	w := rhWords[h.rnd.Intn(len(rhWords))]
	p := 1 + h.rnd.Int63n(3)
	choices := 6
	if !h.cfg.partitioned {
		choices = 7 // p is a value column
	}
	switch h.rnd.Intn(choices) {
	case 0:
		return rhSet{sql: fmt.Sprintf("v = v + %d", n), eval: func(r rhRow) rhRow {
			if r.v != nil {
				r.v = r.v.(int64) + n
			}
			return r
		}}
	case 1:
		return rhSet{sql: fmt.Sprintf("v = %d", n), eval: func(r rhRow) rhRow { r.v = n; return r }}
	case 2:
		return rhSet{sql: "v = NULL", eval: func(r rhRow) rhRow { r.v = nil; return r }}
	case 3:
		return rhSet{sql: "w = " + rhLit(w), eval: func(r rhRow) rhRow { r.w = w; return r }}
	case 4:
		return rhSet{sql: "w = NULL", eval: func(r rhRow) rhRow { r.w = nil; return r }}
	case 5:
		return rhSet{sql: fmt.Sprintf("v = v + 1, w = %s", rhLit(w)), eval: func(r rhRow) rhRow {
			if r.v != nil {
				r.v = r.v.(int64) + 1
			}
			r.w = w
			return r
		}}
	default:
		return rhSet{sql: fmt.Sprintf("p = %d", p), eval: func(r rhRow) rhRow { r.p = p; return r }}
	}
}

// matching returns the visible rows matching pred, in key order.
func (m *rhModel) matching(pred rhPred) []rhRow {
	var out []rhRow
	for _, r := range m.rows {
		if pred.eval(r) {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b rhRow) int {
		if a.p != b.p {
			return int(a.p - b.p)
		}
		return int(a.k - b.k)
	})
	return out
}

// statement generates one DML statement, runs it and applies it to m.
func (h *rhHistory) statement(m *rhModel) {
	for !h.tryStatement(m) {
	}
}

// tryStatement returns false when the statement drawn does not fit (oracle
// mode: a plain INSERT of an existing key).
func (h *rhHistory) tryStatement(m *rhModel) bool {
	nrows := 1 + h.rnd.Intn(4)
	rows := make([]rhRow, 0, nrows)
	for i := 0; i < nrows; i++ {
		rows = append(rows, h.pickRow(m))
	}
	cols := fmt.Sprintf("INSERT INTO %s (k, p, v, w) VALUES ", h.table)
	mustApply := func(err error) {
		if err != nil {
			h.fatalf("%v", err)
		}
	}
	op := h.rnd.Intn(100)
	if h.cfg.engine == "aggregation" && h.cfg.compaction != nil {
		// Aggregation with retractions (-U/-D of UPDATE, DELETE, ON
		// DUPLICATE KEY UPDATE) is not associative: a compaction that
		// merges a retraction with newer records but without the older
		// run it retracts writes one +I (Java's AggregateMergeFunction
		// does the same), and last_non_null_value, sum over NULLs and
		// remove-record-on-delete then read differently from one merge of
		// everything. Histories with compaction aggregate additions only
		// (blind upserts, INSERT IGNORE, REPLACE); TestSQLRandomHistories
		// covers retractions without compaction.
		op = []int{0, 35, 55}[h.rnd.Intn(3)]
	}
	switch {
	case op < 30: // blind upsert
		if h.cfg.oracle {
			// MySQL meaning: new, distinct keys only.
			seen := map[rhKey]bool{}
			for _, r := range rows {
				if _, ok := m.rows[m.key(r)]; ok || seen[m.key(r)] {
					return false
				}
				seen[m.key(r)] = true
			}
		}
		h.exec(cols + rowsSQL(rows))
		for _, r := range rows {
			mustApply(m.apply(rhAdd, r))
		}
	case op < 42:
		h.exec(strings.Replace(cols, "INSERT", "INSERT IGNORE", 1) + rowsSQL(rows))
		for _, r := range rows {
			if _, ok := m.rows[m.key(r)]; !ok {
				mustApply(m.apply(rhAdd, r))
			}
		}
	case op < 54:
		h.exec(cols + rowsSQL(rows) + " ON DUPLICATE KEY UPDATE v = v + 1")
		for _, r := range rows {
			if old, ok := m.rows[m.key(r)]; ok {
				nw := old
				if nw.v != nil {
					nw.v = nw.v.(int64) + 1
				}
				mustApply(m.update(old, nw))
			} else {
				mustApply(m.apply(rhAdd, r))
			}
		}
	case op < 62:
		// REPLACE is a blind upsert: no key lookup, so lakesql counts one
		// affected row per row where MySQL counts two for a replaced row.
		h.replaceRows = len(rows)
		h.exec(strings.Replace(cols, "INSERT", "REPLACE", 1) + rowsSQL(rows))
		h.replaceRows = 0
		for _, r := range rows {
			mustApply(m.apply(rhAdd, r))
		}
	case op < 85:
		pred, set := h.randPred(), h.randSet()
		match := m.matching(pred)
		h.exec(fmt.Sprintf("UPDATE %s SET %s WHERE %s", h.table, set.sql, pred.sql))
		for _, r := range match {
			mustApply(m.update(r, set.eval(r)))
		}
	default:
		pred := h.randPred()
		match := m.matching(pred)
		h.exec(fmt.Sprintf("DELETE FROM %s WHERE %s", h.table, pred.sql))
		for _, r := range match {
			mustApply(m.apply(rhDelete, r))
		}
	}
	return true
}

// closeConn returns c to its pool outside any transaction (a failed
// history may stop inside one).
func closeConn(c *sql.Conn) {
	c.ExecContext(context.Background(), "ROLLBACK")
	c.Close()
}

// writeServer is a writable lakesql server over a warehouse folder.
type writeServer struct {
	srv  *sqlengine.Server
	addr string
	done chan error
}

func startWriteServer(t testing.TB, wh string) *writeServer {
	t.Helper()
	srv, err := sqlengine.New(context.Background(), sqlengine.Config{Warehouse: wh, Host: "127.0.0.1", Port: 0,
		Security: sqlengine.SecurityConfig{SecureFilePriv: serverFilesRoot(t)}})
	if err != nil {
		t.Fatal(err)
	}
	ws := &writeServer{srv: srv, addr: srv.Addr(), done: make(chan error, 1)}
	go func() { ws.done <- srv.Start() }()
	t.Cleanup(ws.stop)
	return ws
}

// serverFilesRoot is the --secure-file-priv of the write servers: one folder
// for the test process, outside every warehouse; serverFilesDir gives a test
// its own folder inside it for server-side LOAD DATA INFILE.
var serverFiles struct {
	once sync.Once
	path string
	err  error
}

func serverFilesRoot(t testing.TB) string {
	t.Helper()
	serverFiles.once.Do(func() { serverFiles.path, serverFiles.err = os.MkdirTemp("", "lakesql-server-files-") })
	if serverFiles.err != nil {
		t.Fatal(serverFiles.err)
	}
	return serverFiles.path
}

func serverFilesDir(t testing.TB) string {
	t.Helper()
	d, err := os.MkdirTemp(serverFilesRoot(t), "t-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

func (ws *writeServer) stop() {
	if ws.srv == nil {
		return
	}
	ws.srv.Close()
	select {
	case <-ws.done:
	case <-time.After(5 * time.Second):
	}
	ws.srv = nil
}

// open returns a pool to database db, ready for queries.
func (ws *writeServer) open(t testing.TB, db string) *sql.DB {
	t.Helper()
	return openMySQL(t, ws.addr, db)
}

func openMySQL(t testing.TB, addr, db string) *sql.DB {
	t.Helper()
	d, err := sql.Open("mysql", fmt.Sprintf("root@tcp(%s)/%s?interpolateParams=true", addr, db))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	deadline := time.Now().Add(10 * time.Second)
	for d.Ping() != nil {
		if time.Now().After(deadline) {
			t.Fatalf("server at %s not ready", addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return d
}

// startMemoryOracle serves GMS's in-memory backend (database o) in process
// and returns a pool to it.
func startMemoryOracle(t testing.TB) *sql.DB {
	t.Helper()
	pro := memory.NewDBProvider(memory.NewDatabase("o"))
	engine := sqle.NewDefault(pro)
	srv, err := server.NewServer(server.Config{Protocol: "tcp", Address: "127.0.0.1:0"}, engine, gmssql.NewContext, memory.NewSessionBuilder(pro), nil)
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
		}
	})
	return openMySQL(t, srv.Listener.Addr().String(), "o")
}

// TestSQLWritesMergeAcrossRetract: a retraction (-D of DELETE, -U of an
// aggregation UPDATE) and a later write of the same key in one commit must
// leave what the statements say (and what the transaction itself read
// before COMMIT), not the merge of the new record with the row from before
// the commit (merged in the write buffer, the retraction used to vanish).
func TestSQLWritesMergeAcrossRetract(t *testing.T) {
	ws := startWriteServer(t, t.TempDir())
	db := ws.open(t, "")
	ctx := context.Background()
	cases := []struct {
		name, engine string
		stmts        []string // run in one transaction after the base row (1, 1, 10, 'x')
		want         string
	}{
		{"aggregation/update-w-null", "aggregation", []string{"UPDATE %s SET w = NULL WHERE k = 1"}, "1|1|10|NULL"},
		{"aggregation/delete-insert", "aggregation", []string{"DELETE FROM %s WHERE k = 1", "INSERT INTO %s VALUES (1, 1, 5, 'y')"}, "1|1|5|y"},
		{"partial-update/delete-insert", "partial-update", []string{"DELETE FROM %s WHERE k = 1", "INSERT INTO %s VALUES (1, 1, 5, NULL)"}, "1|1|5|NULL"},
		{"deduplicate/delete-insert", "deduplicate", []string{"DELETE FROM %s WHERE k = 1", "INSERT INTO %s VALUES (1, 1, 5, NULL)"}, "1|1|5|NULL"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			table := fmt.Sprintf("mr%d", i)
			conn, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer closeConn(conn)
			cfg := rhConfig{engine: c.engine, bucket: "1"}
			for _, q := range []string{cfg.ddl(table), fmt.Sprintf("INSERT INTO %s VALUES (1, 1, 10, 'x')", table), "BEGIN"} {
				if _, err := conn.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			var stmts []string
			for _, q := range c.stmts {
				q = strings.ReplaceAll(q, "%s", table)
				stmts = append(stmts, q)
				if _, err := conn.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			sel := fmt.Sprintf("SELECT k, p, v, w FROM %s", table)
			inTx := strings.Join(queryStrings(t, conn, sel)[0], "|")
			if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
				t.Fatal(err)
			}
			after := queryStrings(t, conn, sel)
			got := "(no row)"
			if len(after) == 1 {
				got = strings.Join(after[0], "|")
			}
			if inTx != c.want || got != c.want {
				t.Errorf("base (1,1,10,'x'); BEGIN; %s; COMMIT: inside the transaction %s, after COMMIT %s; want %s",
					strings.Join(stmts, "; "), inTx, got, c.want)
			}
		})
	}
}
