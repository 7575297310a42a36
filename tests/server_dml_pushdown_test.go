package tests

import (
	"fmt"
	"strings"
	"testing"
)

// TestServerDMLPushdown: a single-table UPDATE or DELETE hands its WHERE to
// the scan like a SELECT (GMS analyzes those statements with a fixed batch
// list without the post-analysis rules; provider.InstallPushdownDMLRule):
// EXPLAIN shows the pushed filter, BETWEEN included, and the rows changed
// are the ones the same WHERE selects.
func TestServerDMLPushdown(t *testing.T) {
	ws := startWriteServer(t, t.TempDir())
	db := ws.open(t, "default")
	mustExec(t, db, "CREATE TABLE dp (k BIGINT, u BIGINT, s STRING, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '2')")
	var b strings.Builder
	b.WriteString("INSERT INTO dp VALUES ")
	for k := 0; k < 500; k++ {
		if k > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "(%d,%d,'s%d')", k, (k*37)%100, k)
	}
	mustExec(t, db, b.String())
	for _, stmt := range []string{
		"UPDATE dp SET s = 'x' WHERE u BETWEEN 10 AND 19",
		"DELETE FROM dp WHERE u BETWEEN 20 AND 24",
		"UPDATE dp SET s = 'y' WHERE u >= 90 AND s <> 'x'",
	} {
		var plan strings.Builder
		for _, r := range queryStrings(t, db, "EXPLAIN PLAN "+stmt) {
			plan.WriteString(r[0] + "\n")
		}
		if !strings.Contains(plan.String(), "filters: [(dp.u") {
			t.Errorf("%s: the WHERE is not pushed to the scan:\n%s", stmt, plan.String())
		}
	}
	want := map[string]int{}
	for _, r := range queryStrings(t, db, "SELECT u FROM dp") {
		var u int
		fmt.Sscan(r[0], &u)
		switch {
		case u >= 20 && u <= 24:
		case u >= 10 && u <= 19:
			want["x"]++
		case u >= 90:
			want["y"]++
		default:
			want["s"]++
		}
	}
	mustExec(t, db, "UPDATE dp SET s = 'x' WHERE u BETWEEN 10 AND 19",
		"DELETE FROM dp WHERE u BETWEEN 20 AND 24",
		"UPDATE dp SET s = 'y' WHERE u >= 90 AND s <> 'x'")
	got := map[string]int{}
	for _, r := range queryStrings(t, db, "SELECT s FROM dp") {
		if r[0] != "x" && r[0] != "y" {
			r[0] = "s"
		}
		got[r[0]]++
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after the statements: %v, want %v", got, want)
	}
}
