package tests

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestInteropMaintenance: the tags, branches, rollbacks and expirations of
// the CALL sys.* procedures against Java Paimon 1.3.1, on one warehouse.
//
//   - Java writes table lw.j, tags it (one tag with a retention), branches
//     it from a tag, expires all but two snapshots (the tags keep theirs)
//     and rolls back; lakesql then tags and branches the same snapshot, and
//     its tag file and branch folder are byte for byte Java's.
//   - lakesql writes table lw.t, tags it, branches it from a tag and writes
//     the branch, expires snapshots (a tag's snapshot among them), rolls
//     back and writes again.
//   - Java then reads every snapshot and tag of both tables and of the
//     three branches with its own ReadBuilder, and each read must equal
//     lakesql's read of the same snapshot or tag (SQL and lsmread, same
//     planned files).
func TestInteropMaintenance(t *testing.T) {
	wh := t.TempDir()
	ctx := context.Background()
	// Java's history first (no server yet: one writer at a time).
	j := func(cmd string) string { return cmd + " --warehouse " + wh + " --table lw.j" }
	lines := runHarness(t, []string{
		j("write --seed 3 --config bucket=2,partitioned=1,commits=6,rows=6"),
		j("tag --name jt1 --snapshot 2"),
		j("tag --name jt4 --snapshot 4 --retain 1_d"),
		j("branch --name jb --tag jt1"),
		j("expire --retain-max 2 --retain-min 2"),
		j("rollback --snapshot latest-1"),
		j("write --seed 4 --config commits=1,rows=4"),
		j("write --seed 5 --config commits=1,rows=4") + "$branch_jb",
	})
	for _, l := range lines {
		if l.Op == "maintained" && strings.Contains(l.Command, "expire") {
			t.Logf("java: %+v", l)
		}
	}
	jdir := filepath.Join(wh, "lw.db", "j")
	if ids := dirNames(t, filepath.Join(jdir, "snapshot")); len(ids) < 4 || ids[0] != "EARLIEST" || ids[1] != "LATEST" {
		t.Fatalf("Java's table after expire (keep 2), rollback (to the first) and one write: snapshot folder %v", ids)
	}

	ws := startWriteServer(t, wh)
	db := ws.open(t, "lw")
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer closeConn(conn)
	exec := func(qs ...string) {
		t.Helper()
		for _, q := range qs {
			if _, err := conn.ExecContext(ctx, q); err != nil {
				t.Fatalf("lakesql: %s: %v", q, err)
			}
		}
	}
	// The same tag and branch from lakesql, on Java's table: snapshot 2
	// expired, tag jt1 holds it.
	exec("CALL sys.create_tag('lw.j', 'lt1', 2)", "CALL sys.create_branch('lw.j', 'lb', 'jt1')")
	sameBytes(t, filepath.Join(jdir, "tag", "tag-jt1"), filepath.Join(jdir, "tag", "tag-lt1"))
	jb, lb := filepath.Join(jdir, "branch", "branch-jb"), filepath.Join(jdir, "branch", "branch-lb")
	for _, f := range []string{"schema/schema-0", "snapshot/snapshot-2", "tag/tag-jt1"} {
		sameBytes(t, filepath.Join(jb, f), filepath.Join(lb, f))
	}
	exec("INSERT INTO `j$branch_lb` (k, p, v) VALUES (100, 'a', 1), (101, 'b', 2)")

	// lakesql's history on its own table.
	exec("CREATE TABLE t (k INT NOT NULL, p STRING NOT NULL, v BIGINT, s STRING, PRIMARY KEY (k, p) NOT ENFORCED) " +
		"PARTITIONED BY (p) WITH ('bucket' = '2', 'num-sorted-run.compaction-trigger' = '100')") // the test counts snapshots
	for i := 0; i < 8; i++ {
		exec(fmt.Sprintf("INSERT INTO t VALUES (%d, '%s', %d, 's%d'), (%d, 'b', %d, NULL)", i%5, []string{"a", "b"}[i%2], i, i, i+10, i))
		if i == 4 {
			exec("UPDATE t SET v = v * 10 WHERE k < 3", "DELETE FROM t WHERE k = 12")
		}
	}
	exec("CALL sys.create_tag('t', 't2', 2)",
		"CALL sys.create_tag(table => 't', tag => 't5', snapshot => 5, time_retained => '7 d')",
		"CALL sys.create_branch('t', 'dev', 't2')",
		"INSERT INTO `t$branch_dev` VALUES (50, 'a', 5, 'dev'), (51, 'c', 6, 'dev')",
		"UPDATE `t$branch_dev` SET s = 'dev2' WHERE k = 1",
		"CALL sys.create_tag('t$branch_dev', 'd1')",
		"CALL sys.expire_snapshots(table => 't', retain_max => 4, retain_min => 1, older_than => '2999-01-01 00:00:00')",
		"CALL sys.rollback_to(table => 't', snapshot_id => 9)",
		"INSERT INTO t VALUES (99, 'a', 99, 'after rollback')",
	)
	tdir := filepath.Join(wh, "lw.db", "t")
	if ids := dirNames(t, filepath.Join(tdir, "snapshot")); !slices.Equal(ids, []string{"EARLIEST", "LATEST", "snapshot-10", "snapshot-7", "snapshot-8", "snapshot-9"}) {
		t.Fatalf("lakesql's table after expire/rollback/write: snapshot folder %v", ids)
	}
	if b, err := os.ReadFile(filepath.Join(tdir, "snapshot", "EARLIEST")); err != nil || string(b) != "7" {
		t.Errorf("EARLIEST hint %q, %v", b, err)
	}

	// Java reads everything.
	var script []string
	for _, tbl := range []string{"lw.t", "lw.t$branch_dev", "lw.j", "lw.j$branch_jb", "lw.j$branch_lb"} {
		script = append(script, fmt.Sprintf("read --warehouse %s --table %s --all-snapshots --tags", wh, tbl))
	}
	start := time.Now()
	lines = runHarness(t, script)
	t.Logf("Java reads in %v", time.Since(start).Round(time.Millisecond))
	var st interopStats
	for _, tbl := range []string{"lw.t", "lw.t$branch_dev", "lw.j", "lw.j$branch_jb", "lw.j$branch_lb"} {
		rs := reads(lines, tbl)
		var tags []string
		for _, r := range rs {
			if r.Tag != nil {
				tags = append(tags, fmt.Sprintf("%s@%d", *r.Tag, r.Snapshot))
			}
		}
		t.Logf("%s: %d reads, tags %v", tbl, len(rs), tags)
		t.Run(tbl, func(t *testing.T) { compareReads(t, db, wh, rs, &st) })
	}
	wantTags := map[string][]string{
		"lw.t": {"t2@2", "t5@5"}, "lw.t$branch_dev": {"d1@4", "t2@2"},
		"lw.j": {"jt1@2", "jt4@4", "lt1@2"}, "lw.j$branch_jb": {"jt1@2"}, "lw.j$branch_lb": {"jt1@2"},
	}
	for tbl, want := range wantTags {
		var got []string
		for _, r := range reads(lines, tbl) {
			if r.Tag != nil {
				got = append(got, fmt.Sprintf("%s@%d", *r.Tag, r.Snapshot))
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: Java reads tags %v, want %v", tbl, got, want)
		}
	}
	t.Logf("Java reads lakesql's and its own maintenance: %d tables, %d snapshots and tags compared, %d mismatched", st.tables, st.snapshots, st.mismatches)
}

// dirNames lists the files of a folder, sorted.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		if !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	slices.Sort(out)
	return out
}

// sameBytes fails unless two files hold the same bytes.
func sameBytes(t *testing.T, java, lakesql string) {
	t.Helper()
	a, err := os.ReadFile(java)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(lakesql)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Errorf("%s differs from Java's %s:\njava:    %s\nlakesql: %s", lakesql, java, a, b)
	}
}
