package tests

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// interopAlternating are the tables both engines write in turn (Java
// creates them), deletion-vector (merge-on-write) and first-row tables
// included: each engine restores the other's deletion vectors and
// compacts over them. changelog-producer=lookup tables are only in the
// Java → lakesql test (lakesql does not produce that changelog yet).
var interopAlternating = []struct {
	name, config, engine string
	partitioned, seq     bool
	compact              bool
}{
	{"dedup_part", "engine=deduplicate,bucket=2,partitioned=1", "deduplicate", true, false, true},
	{"dedup_dyn", "engine=deduplicate,bucket=-1", "deduplicate", false, false, true},
	{"dedup_seq", "engine=deduplicate,bucket=3,seq=1", "deduplicate", false, true, true},
	{"partial", "engine=partial-update,bucket=2", "partial-update", false, false, true},
	{"agg", "engine=aggregation,bucket=2,partitioned=1", "aggregation", true, false, true},
	{"append", "pk=0,bucket=-1,partitioned=1", "", true, false, false},
	{"append_b2", "pk=0,bucket=2", "", false, false, true},
	{"mow32_part", "engine=deduplicate,bucket=2,dv=32,partitioned=1", "deduplicate", true, false, true},
	{"mow64_dyn", "engine=deduplicate,bucket=-1,dv=64", "deduplicate", false, false, true},
	{"mow_partial", "engine=partial-update,bucket=2,dv=32", "partial-update", false, false, true},
	{"first_row", "engine=first-row,bucket=2,partitioned=1", "first-row", true, false, true},
}

// TestInteropAlternatingWriters: on each table Java commits, lakesql
// commits through SQL (compacting automatically), Java compacts and commits
// again, lakesql writes again (with ALTER TABLE ADD COLUMN) and fully
// compacts, and Java writes once more with the evolved schema. Then Java reads every snapshot: lakesql must read each the same
// (SQL and lsmread, same planned files), snapshot ids must run 1..N without
// gaps, and every file a commit adds to a bucket must carry sequence numbers
// above every file already in that bucket (whichever engine wrote them).
func TestInteropAlternatingWriters(t *testing.T) {
	wh := t.TempDir()
	script := func(f func(i int, table string) []string) []string {
		var s []string
		for i, c := range interopAlternating {
			s = append(s, f(i, "alt."+c.name)...)
		}
		return s
	}
	// 1. Java creates each table and commits three times.
	runHarness(t, script(func(i int, table string) []string {
		return []string{fmt.Sprintf("write --warehouse %s --table %s --seed %d --config %s,commits=3 --no-read",
			wh, table, 2000+i, interopAlternating[i].config)}
	}))
	ws := startWriteServer(t, wh)
	db := ws.open(t, "alt")
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer closeConn(conn)
	writers := make([]*sqlWriter, len(interopAlternating))
	for i, c := range interopAlternating {
		writers[i] = &sqlWriter{t: t, conn: conn, rnd: rand.New(rand.NewPCG(uint64(i), 11)), table: "alt." + c.name,
			engine: c.engine, partitioned: c.partitioned, seq: c.seq, dir: serverFilesDir(t), kinds: map[string]int{}}
		// 2. lakesql writes on Java's table.
		writers[i].run(8, false)
	}
	// 3. Java compacts (a full compaction of every bucket) and commits twice.
	runHarness(t, script(func(i int, table string) []string {
		var s []string
		if interopAlternating[i].compact {
			s = append(s, fmt.Sprintf("compact --warehouse %s --table %s", wh, table))
		}
		return append(s, fmt.Sprintf("write --warehouse %s --table %s --seed %d --config commits=2 --no-read", wh, table, 3000+i))
	}))
	// 4. lakesql writes again, adding a column halfway, and runs a full
	// compaction (the dedicated job) on Java's files and its own.
	for i, w := range writers {
		w.run(8, true)
		if c := interopAlternating[i]; c.compact {
			// The server's automatic compaction may have left every bucket
			// fully compacted already, or be running: wait for it, then
			// every bucket of a primary-key table must end as one run on the
			// max level (level 3: the harness sets
			// num-sorted-run.compaction-trigger 3).
			if err := ws.srv.WaitCompactions(ctx); err != nil {
				t.Fatal(err)
			}
			compactTable(t, wh, "alt", c.name, true)
			if c.engine == "" {
				continue // append tables: only small files are joined (three or more, Java's rule)
			}
			for _, b := range tableShape(t, conn, "alt."+c.name, "") {
				if b.runs() != 1 || b.levels[0] != 3 {
					t.Errorf("%s: partition %s bucket %d has levels %v after lakesql's full compaction", c.name, b.partition, b.bucket, b.levels)
				}
			}
		}
	}
	// 5. Java writes with the evolved schema, then reads every snapshot.
	lines := runHarness(t, script(func(i int, table string) []string {
		return []string{fmt.Sprintf("write --warehouse %s --table %s --seed %d --config commits=2", wh, table, 4000+i)}
	}))
	var st interopStats
	for i, c := range interopAlternating {
		t.Run(c.name, func(t *testing.T) {
			rs := reads(lines, "alt."+c.name)
			compareReads(t, db, wh, rs, &st)
			// Java's writers of unaware-bucket append tables start every
			// new file's sequence numbers at 0 (they restore nothing), so
			// only bucketed tables keep them ordered.
			ordered := !strings.HasPrefix(c.config, "pk=0,bucket=-1")
			checkAlternatingHistory(t, rs, c.compact, ordered)
			t.Logf("lakesql statements: %v", writers[i].kinds)
		})
	}
	t.Logf("alternating Java/lakesql: %d tables, %d snapshots compared, %d mismatched", st.tables, st.snapshots, st.mismatches)
}

// checkAlternatingHistory checks snapshot ids and sequence numbers across
// the Java reads of every snapshot of one table.
func checkAlternatingHistory(t *testing.T, rs []javaRead, compacted, seqOrdered bool) {
	t.Helper()
	var prev *javaRead
	kinds := map[string]int{}
	for i := range rs {
		r := &rs[i]
		if r.Tag != nil {
			continue
		}
		kinds[r.CommitKind]++
		if prev == nil {
			if r.Snapshot != 1 {
				t.Errorf("first snapshot is %d, want 1", r.Snapshot)
			}
		} else if r.Snapshot != prev.Snapshot+1 {
			t.Errorf("snapshot %d follows snapshot %d", r.Snapshot, prev.Snapshot)
		}
		if prev != nil && r.CommitKind == "APPEND" {
			old := map[string]bool{}
			maxSeq := map[string]int64{}
			for _, f := range prev.Files {
				old[f.File] = true
				if m, ok := maxSeq[f.BucketPath]; !ok || f.MaxSeq > m {
					maxSeq[f.BucketPath] = f.MaxSeq
				}
			}
			for _, f := range r.Files {
				if old[f.File] {
					continue
				}
				if m, ok := maxSeq[f.BucketPath]; ok && f.MinSeq <= m && seqOrdered {
					t.Errorf("snapshot %d adds %s/%s with sequence numbers %d..%d, not above %d already in the bucket",
						r.Snapshot, f.BucketPath, f.File, f.MinSeq, f.MaxSeq, m)
				}
				if f.Level != 0 {
					t.Errorf("snapshot %d (APPEND) adds %s/%s at level %d", r.Snapshot, f.BucketPath, f.File, f.Level)
				}
			}
		}
		prev = r
	}
	if compacted && kinds["COMPACT"] == 0 {
		t.Errorf("no COMPACT snapshot: Java's compaction did not happen (%v)", kinds)
	}
	t.Logf("snapshots by commit kind: %v", kinds)
	if len(rs) > 0 && !strings.Contains(strings.Join(rs[len(rs)-1].Columns, ","), "x0") {
		t.Errorf("the latest schema lacks lakesql's added column x0: %v", rs[len(rs)-1].Columns)
	}
}
