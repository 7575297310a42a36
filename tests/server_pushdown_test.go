package tests

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var prunedRe = regexp.MustCompile(`pruned: files (\d+) of (\d+), manifests (\d+) of (\d+), buckets (\d+); splits (\d+)`)

// explainPruning runs EXPLAIN PLAN and returns the pruning numbers the scan
// reports: files pruned, files total, splits.
func explainPruning(t *testing.T, query string) (pruned, total, splits int, plan string) {
	pruned, total, _, splits, plan = explainPruning2(t, query)
	return
}

// explainPruning2 also returns the manifests pruned.
func explainPruning2(t *testing.T, query string) (pruned, total, manifests, splits int, plan string) {
	t.Helper()
	rows := queryStrings(t, serverDB(t), "EXPLAIN PLAN "+query)
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(r[0])
		b.WriteByte('\n')
	}
	plan = b.String()
	m := prunedRe.FindStringSubmatch(plan)
	if m == nil {
		t.Fatalf("EXPLAIN PLAN %s shows no pruning note:\n%s", query, plan)
	}
	atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
	return atoi(m[1]), atoi(m[2]), atoi(m[3]), atoi(m[6]), plan
}

// TestServerPushdownPrunes proves filters reach the scan: EXPLAIN shows the
// pushed filter and fewer files and splits read, and the rows stay right.
func TestServerPushdownPrunes(t *testing.T) {
	db := serverDB(t)
	// Unfiltered: every live file is read.
	all := queryStrings(t, db, "SELECT count(*) FROM pk_table_scan_and_read_mor")
	if all[0][0] != "11" {
		t.Fatalf("count = %v", all)
	}
	// A partition filter prunes the other partition's files and splits.
	// (Manifests whose partition statistics exclude f1 = 20 are not even
	// read, so their files never count as live.)
	pruned, total, manifests, splits, plan := explainPruning2(t, "SELECT * FROM pk_table_scan_and_read_mor WHERE f1 = 20")
	if !strings.Contains(plan, "filters: [(pk_table_scan_and_read_mor.f1 = 20)") {
		t.Errorf("filter not pushed:\n%s", plan)
	}
	if pruned+manifests == 0 || splits != 1 {
		t.Errorf("partition filter: pruned %d of %d files and %d manifests, %d splits; want pruning down to 1 split\n%s", pruned, total, manifests, splits, plan)
	}
	got := queryStrings(t, db, "SELECT f0 FROM pk_table_scan_and_read_mor WHERE f1 = 20 ORDER BY f0")
	if len(got) != 2 || got[0][0] != "Lucy" || got[1][0] != "Paul" {
		t.Errorf("rows of f1 = 20: %v", got)
	}
	// A value filter on an append table prunes files by statistics.
	_, _, _, plan = explainPruning(t, "SELECT * FROM append_with_bloomfilter WHERE f1 > 100000")
	if !strings.Contains(plan, "f1 > 100000") {
		t.Errorf("append filter not pushed:\n%s", plan)
	}
	if n := queryStrings(t, db, "SELECT count(*) FROM append_with_bloomfilter WHERE f1 > 100000"); n[0][0] != "0" {
		t.Errorf("count = %v", n)
	}
	// A filter that excludes everything by statistics reads no split.
	p2, t2, s2, plan := explainPruning(t, "SELECT * FROM pk_table_scan_and_read_mor WHERE f1 = 99")
	if s2 != 0 || p2 != t2 {
		t.Errorf("f1 = 99: pruned %d of %d, %d splits\n%s", p2, t2, s2, plan)
	}
	// Primary-key lookups go through the PRIMARY index.
	var b strings.Builder
	for _, r := range queryStrings(t, db, "EXPLAIN PLAN SELECT * FROM pk_table_scan_and_read_mor WHERE f0 = 'Bob' AND f1 = 10") {
		b.WriteString(r[0] + "\n")
	}
	if !strings.Contains(b.String(), "IndexedTableAccess(pk_table_scan_and_read_mor)") || !strings.Contains(b.String(), "[Bob, Bob]") {
		t.Errorf("key lookup plan:\n%s", b.String())
	}
	if got := queryStrings(t, db, "SELECT f3 FROM pk_table_scan_and_read_mor WHERE f0 = 'Bob' AND f1 = 10 AND f2 = 0"); len(got) != 1 || got[0][0] != "12.1" {
		t.Errorf("point lookup = %v", got)
	}
}
