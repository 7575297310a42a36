package tests

import (
	"context"
	"flag"
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
	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/snapshot"
)

var longTests = flag.Bool("long", false, "run the long versions of the randomized tests (also LAKESQL_LONG=1)")

func long() bool { return *longTests || os.Getenv("LAKESQL_LONG") == "1" }

// cmMode is one compaction configuration of the metamorphic test: table
// options and the invariants they promise after every statement.
type cmMode struct {
	name    string
	options []string // key=value
	// cow: every bucket is one sorted run on maxLevel after each statement.
	cow      bool
	maxLevel int
	// stopTrigger > 0: no bucket has more sorted runs after a statement
	// (the write stall).
	stopTrigger int
	// writeOnly: the server never compacts; only the test's explicit
	// compactions commit COMPACT snapshots.
	writeOnly bool
	// explicit counts the COMPACT snapshots the test's explicit
	// compactions committed.
	explicit int
	// dv: merge-on-write with deletion vectors of that width ("32",
	// "64"): no level-0 file is left after a statement.
	dv string
	// changelog: the table has a lookup or full-compaction changelog
	// producer; replaying its $audit_log must rebuild the table.
	changelog bool
	// inputChangelog: the input producer, whose changelog is the records
	// written: replaying it rebuilds deduplicate tables only (partial
	// updates and aggregations log their inputs, as in Java).
	inputChangelog bool
}

func (m cmMode) with(name string, options ...string) *cmMode {
	if name != "" {
		m.name += "+" + name
	}
	m.options = append(append([]string(nil), m.options...), options...)
	return &m
}

// The modes: merge-on-read with automatic compaction (aggressive and
// default triggers), without it (write-only, compacted only by the test's
// explicit compactions), copy-on-write, full compaction every third
// commit, the lookup and full-compaction changelog producers (the latter
// with its default of a full compaction after every commit), and
// merge-on-write (deletion vectors, 32 and 64-bit, with aggressive and
// default automatic compaction), and the input changelog producer.
var cmModes = []cmMode{
	{name: "mor-auto", options: []string{"num-sorted-run.compaction-trigger=2", "num-sorted-run.stop-trigger=3"}, maxLevel: 2, stopTrigger: 3},
	{name: "mor-default", maxLevel: 5, stopTrigger: 8},
	{name: "mor-off", options: []string{"write-only=true"}, maxLevel: 5, writeOnly: true},
	{name: "cow", options: []string{"full-compaction.delta-commits=1"}, cow: true, maxLevel: 5},
	{name: "full-every-3", options: []string{"full-compaction.delta-commits=3", "num-sorted-run.compaction-trigger=3"}, maxLevel: 3, stopTrigger: 6},
	{name: "changelog-lookup", options: []string{"changelog-producer=lookup"}, maxLevel: 5, stopTrigger: 8, changelog: true},
	{name: "changelog-full", options: []string{"changelog-producer=full-compaction"}, cow: true, maxLevel: 5, changelog: true},
	{name: "mow32-auto", options: []string{"num-sorted-run.compaction-trigger=2", "num-sorted-run.stop-trigger=3"}, maxLevel: 5, stopTrigger: 3, dv: "32"},
	{name: "mow64", maxLevel: 5, stopTrigger: 8, dv: "64"},
	{name: "changelog-input", options: []string{"changelog-producer=input", "num-sorted-run.compaction-trigger=3"}, maxLevel: 5, stopTrigger: 6, changelog: true, inputChangelog: true},
}

// tiny is a target-file-size below the size of every file: no file is
// "small", so compaction moves whole files up a level instead of rewriting
// them wherever their keys overlap nothing (the upgrade path).
const tiny = "target-file-size=1 kb"

// TestCompactionMetamorphic runs one seeded random history per merge engine
// (upserts, INSERT IGNORE, ON DUPLICATE KEY UPDATE, REPLACE, UPDATE,
// DELETE, transactions with COMMIT and ROLLBACK, partial updates,
// aggregations with retractions; explicit full and minor compactions by the
// dedicated compaction between statements) under every compaction mode,
// with 1 and 4 buckets and dynamic buckets, partitioned or not, and a tiny
// target-file-size. After every statement the table must equal the
// in-memory model (rhModel) and keep its mode's promise (copy-on-write: one
// run per bucket on the max level; automatic compaction: at most
// stop-trigger runs; write-only: no COMPACT snapshot but the explicit
// ones); at the end every snapshot, APPEND or COMPACT, must read AS OF as
// the model did at that commit.
//
// The short version (CI) runs a cross-section of the configurations with
// 40 statements; -long (or LAKESQL_LONG=1) runs every combination with 150.
// The base seed is logged; LAKESQL_SQL_RANDOM_SEED reruns it.
func TestCompactionMetamorphic(t *testing.T) {
	seed := time.Now().UnixNano()
	if s := os.Getenv("LAKESQL_SQL_RANDOM_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseInt(s, 10, 64); err != nil {
			t.Fatalf("LAKESQL_SQL_RANDOM_SEED: %v", err)
		}
	}
	steps := 40
	if long() {
		steps = 150
	}
	if s := os.Getenv("LAKESQL_SQL_RANDOM_STEPS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			t.Fatalf("LAKESQL_SQL_RANDOM_STEPS=%q", s)
		}
		steps = n
	}
	t.Logf("base seed %d (rerun with LAKESQL_SQL_RANDOM_SEED=%d), %d statements per history", seed, seed, steps)

	type cmCase struct {
		bucket      string
		partitioned bool
		mode        *cmMode
	}
	var cases []cmCase
	if long() {
		for i := range cmModes {
			for _, b := range []string{"1", "4", "-1"} {
				for _, part := range []bool{false, true} {
					for _, small := range []bool{false, true} {
						m := &cmModes[i]
						if small {
							m = m.with("tiny", tiny)
						} else {
							m = m.with("")
						}
						cases = append(cases, cmCase{b, part, m})
					}
				}
			}
		}
	} else {
		cases = []cmCase{
			{"4", false, cmModes[0].with("tiny", tiny)},
			{"1", true, cmModes[1].with("")},
			{"1", true, cmModes[2].with("")},
			{"-1", false, cmModes[3].with("")},
			{"4", true, cmModes[4].with("tiny", tiny)},
			{"-1", true, cmModes[0].with("")},
			{"4", true, cmModes[5].with("")},
			{"-1", false, cmModes[6].with("tiny", tiny)},
			{"4", true, cmModes[7].with("tiny", tiny)},
			{"-1", false, cmModes[8].with("")},
			{"1", false, cmModes[8].with("tiny", tiny)},
			{"4", true, cmModes[9].with("")},
		}
	}
	var total rhStats
	start := time.Now()
	for e, eng := range []string{"deduplicate", "partial-update", "aggregation"} {
		s := seed + int64(e) // one history per engine, the same under every configuration
		for i, c := range cases {
			cfg := rhConfig{engine: eng, bucket: c.bucket, partitioned: c.partitioned, compaction: c.mode}
			mode := *c.mode
			cfg.compaction = &mode
			cfg.dv = mode.dv
			t.Run(cfg.name(), func(t *testing.T) {
				wh := t.TempDir()
				ws := startWriteServer(t, wh)
				db := ws.open(t, "")
				h := &rhHistory{
					t: t, cfg: cfg, seed: s, rnd: rand.New(rand.NewSource(s)),
					table: fmt.Sprintf("m%d", i), db: db, wh: wh,
				}
				h.run(steps)
				total.add(h.stats)
			})
		}
	}
	t.Logf("%d histories: %d statements, %d checking SELECTs, %d AS OF reads in %v",
		3*len(cases), total.stmts, total.selects, total.asOf, time.Since(start).Round(time.Millisecond))
}

// checkChangelog replays the table's changelog, snapshot range by snapshot
// range ($audit_log FOR VERSION BETWEEN: +I/+U put the row, -U/-D remove
// it), and compares the result with the model's state at every snapshot
// that a write follows (each commit's changelog is complete by then: the
// lookup producer compacts level 0 and the full-compaction producer fully
// compacts before the statement returns) and at the last snapshot.
func (h *rhHistory) checkChangelog() {
	h.t.Helper()
	m := h.cfg.compaction
	if m == nil || !m.changelog || m.inputChangelog && h.cfg.engine != "deduplicate" {
		return
	}
	state := map[string]string{}
	var prev int64
	for i, s := range h.snaps {
		rows := queryStrings(h.t, h.conn, fmt.Sprintf("SELECT rowkind, k, p, v, w FROM `%s$audit_log` FOR VERSION BETWEEN %d AND %d", h.table, prev, s.id))
		for _, r := range rows {
			key := r[1]
			if h.cfg.partitioned {
				key = r[2] + "/" + r[1]
			}
			switch r[0] {
			case "+I", "+U":
				state[key] = strings.Join(r[1:], "|")
			case "-U", "-D":
				delete(state, key)
			}
		}
		prev = s.id
		if s.skip || i+1 < len(h.snaps) && h.snaps[i+1].kind == "COMPACT" {
			continue
		}
		got := make([]string, 0, len(state))
		for _, v := range state {
			got = append(got, v)
		}
		want := slices.Clone(s.rows)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			h.fatalf("the changelog replayed up to snapshot %d (%s) differs from the model's state\n got %q\nwant %q", s.id, s.kind, got, want)
		}
	}
}

// explicitCompaction runs the dedicated compaction (full or minor) on the
// history's table between statements, as `lakesql compact` would while the
// server serves; the table must read the same after it.
func (h *rhHistory) explicitCompaction() {
	h.t.Helper()
	full := h.rnd.Intn(2) == 0
	ctx := context.Background()
	st, err := storage.Open(ctx, filepath.Join(h.wh, "default.db", h.table))
	if err != nil {
		h.t.Fatal(err)
	}
	defer st.Close()
	out, err := lsmwrite.Compact(ctx, snapshot.OpenTable(st, ""), lsmwrite.CompactRequest{Full: full})
	what := "minor"
	if full {
		what = "full"
	}
	h.log = append(h.log, fmt.Sprintf("-- explicit %s compaction", what))
	if err != nil {
		h.fatalf("explicit %s compaction: %v", what, err)
	}
	if out.Snapshot != nil {
		h.cfg.compaction.explicit++
	}
	h.check(h.committed, "after an explicit "+what+" compaction")
	h.recordSnapshot()
	h.checkInvariants()
}

// checkInvariants checks the promise of the history's compaction mode.
func (h *rhHistory) checkInvariants() {
	h.t.Helper()
	m := h.cfg.compaction
	if m == nil {
		return
	}
	for _, b := range tableShape(h.t, h.conn, h.table, "") {
		if m.cow {
			for _, l := range b.levels {
				if l != m.maxLevel {
					h.fatalf("copy-on-write: partition %s bucket %d has files on levels %v, want one run on level %d",
						b.partition, b.bucket, b.levels, m.maxLevel)
				}
			}
		}
		if m.dv != "" && slices.Contains(b.levels, 0) {
			h.fatalf("merge-on-write: partition %s bucket %d keeps level-0 files after a statement (levels %v)", b.partition, b.bucket, b.levels)
		}
		if m.stopTrigger > 0 && b.runs() > m.stopTrigger {
			h.fatalf("partition %s bucket %d has %d sorted runs (levels %v) after a statement; num-sorted-run.stop-trigger is %d",
				b.partition, b.bucket, b.runs(), b.levels, m.stopTrigger)
		}
	}
	if m.writeOnly {
		if n := count(snapshotKinds(h.t, h.conn, h.table), "COMPACT"); n != m.explicit {
			h.fatalf("write-only table: %d COMPACT snapshots, the explicit compactions made %d", n, m.explicit)
		}
	}
}

// maintenance runs one of Paimon's maintenance procedures between
// statements through CALL: a tag of a retained snapshot, an expiration
// that keeps the last few snapshots (tags must keep theirs readable), or a
// rollback to a retained snapshot at which a statement returned (the model
// goes back to that snapshot's state; later snapshots and their tags are
// gone; the mode's invariants held there). Tables with a
// changelog producer only take tags: replaying their changelog
// (checkChangelog) needs every snapshot. A snapshot inside a statement
// (an APPEND before its compaction) is no target: a merge-on-write
// table's level-0 files there would be compacted into the table by the
// next write (as in Java), and the stall and copy-on-write promises hold
// only when statements return.
func (h *rhHistory) maintenance() {
	h.t.Helper()
	m := h.cfg.compaction
	table := "default." + h.table
	var cands []rhSnap // retained snapshots of known content
	for _, s := range h.snaps {
		if !s.skip {
			cands = append(cands, s)
		}
	}
	if len(cands) == 0 {
		return
	}
	what := h.rnd.Intn(3)
	if m.changelog {
		what = 0
	}
	switch what {
	case 0:
		if h.tags == nil {
			h.tags = map[string]rhSnap{}
		}
		s := cands[h.rnd.Intn(len(cands))]
		tag := fmt.Sprintf("tag%d", len(h.log))
		h.exec(fmt.Sprintf("CALL sys.create_tag(`table` => '%s', tag => '%s', snapshot => %d)", table, tag, s.id))
		h.tags[tag] = s
	case 1:
		// max_deletes: Java's snapshot.expire.limit (10) would stop early.
		keep := 1 + h.rnd.Intn(4)
		latest := h.latestSnapshot()
		h.exec(fmt.Sprintf("CALL sys.expire_snapshots(`table` => '%s', retain_max => %d, retain_min => %d, max_deletes => 1000)", table, keep, keep))
		earliest := h.earliestSnapshot()
		// A background compaction may commit after it: count those before.
		n := 0
		for _, s := range h.snapshotsAfter(earliest - 1) {
			if s.id <= latest {
				n++
			}
		}
		if n > keep {
			h.fatalf("expire_snapshots(retain_max => %d) left %d of the snapshots up to %d", keep, n, latest)
		}
		// The newest known snapshot stays the base of the next statement's
		// check even when it expired (a background compaction committed
		// after it and retain_max kept only that one); expired, it is no
		// longer read AS OF.
		base := h.snaps[len(h.snaps)-1]
		h.snaps = slices.DeleteFunc(h.snaps, func(s rhSnap) bool { return s.id < earliest })
		if len(h.snaps) == 0 {
			base.skip = true
			h.snaps = append(h.snaps, base)
		}
		h.check(h.committed, "after expire_snapshots")
		h.checkTags()
	case 2:
		var targets []rhSnap
		for _, s := range cands {
			if s.settled {
				targets = append(targets, s)
			}
		}
		if len(targets) == 0 {
			return
		}
		s := targets[h.rnd.Intn(len(targets))]
		h.exec(fmt.Sprintf("CALL sys.rollback_to(`table` => '%s', snapshot_id => %d)", table, s.id))
		if s.model == nil {
			h.committed = newRHModel(h.cfg)
		} else {
			h.committed = s.model.clone()
		}
		h.snaps = slices.DeleteFunc(h.snaps, func(x rhSnap) bool { return x.id > s.id })
		for tag, ts := range h.tags {
			if ts.id > s.id {
				delete(h.tags, tag)
			}
		}
		if m.writeOnly {
			m.explicit = count(snapshotKinds(h.t, h.conn, h.table), "COMPACT")
		}
		h.check(h.committed, fmt.Sprintf("after rollback_to snapshot %d", s.id))
		h.recordSnapshot() // automatic compactions after the rollback
		h.checkInvariants()
	}
	if m.writeOnly {
		// Expiration and rollback drop COMPACT snapshots too; from here
		// on no COMPACT snapshot may appear but the explicit ones.
		m.explicit = count(snapshotKinds(h.t, h.conn, h.table), "COMPACT")
	}
}

// earliestSnapshot is the table's first retained snapshot.
func (h *rhHistory) earliestSnapshot() int64 {
	h.t.Helper()
	rows := queryStrings(h.t, h.conn, fmt.Sprintf("SELECT MIN(snapshot_id) FROM `%s$snapshots`", h.table))
	id, err := strconv.ParseInt(rows[0][0], 10, 64)
	if err != nil {
		h.fatalf("earliest snapshot %q: %v", rows[0][0], err)
	}
	return id
}

// checkTags reads every tag AS OF its name: the state of its snapshot,
// also after the snapshot expired.
func (h *rhHistory) checkTags() {
	h.t.Helper()
	for tag, s := range h.tags {
		h.stats.asOf++
		if got := h.selectAll(h.conn, " AS OF '"+tag+"'"); !slices.Equal(got, s.rows) {
			h.fatalf("AS OF '%s' (snapshot %d) differs from the model's state at that commit\n got %q\nwant %q", tag, s.id, got, s.rows)
		}
	}
}
