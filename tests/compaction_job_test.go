package tests

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lakesql/lakesql/lsmwrite/compactjob"
)

// TestCompactionJobWhileServing: `lakesql compact` (compactjob.Run) runs
// again and again while a server keeps writing to the same write-only
// table; no row is lost or changed, the server never compacts, and a final
// full compaction leaves one sorted run per bucket.
func TestCompactionJobWhileServing(t *testing.T) {
	wh := t.TempDir()
	ws := startWriteServer(t, wh)
	db := ws.open(t, "default")
	mustExec(t, db, "CREATE TABLE jobt (k BIGINT, p INT, v BIGINT, PRIMARY KEY (k, p) NOT ENFORCED) PARTITIONED BY (p) "+
		"WITH ('bucket' = '2', 'write-only' = 'true', 'num-sorted-run.compaction-trigger' = '2')")
	ctx := context.Background()
	const n = 120
	want := map[string]string{}
	var wg sync.WaitGroup
	done := make(chan struct{})
	var writeErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		conn, err := db.Conn(ctx)
		if err != nil {
			writeErr = err
			return
		}
		defer conn.Close()
		for i := 0; i < n; i++ {
			k, p := i%23, i%3
			q := fmt.Sprintf("INSERT INTO jobt VALUES (%d, %d, %d)", k, p, i)
			if i%10 == 9 {
				q = fmt.Sprintf("UPDATE jobt SET v = v + 1000 WHERE k = %d", k)
			}
			if _, err := conn.ExecContext(ctx, q); err != nil {
				writeErr = fmt.Errorf("%s: %w", q, err)
				return
			}
		}
	}()
	runs := 0
	args := []string{"--warehouse", wh, "--table", "default.JOBT"} // names resolve case-insensitively
	for loop := true; loop; {
		select {
		case <-done:
			loop = false
		default:
		}
		a := args
		if runs%2 == 1 {
			a = append(a, "--full")
		}
		var out, prog bytes.Buffer
		if err := compactjob.Run(ctx, &out, &prog, a); err != nil {
			t.Fatalf("compact %v: %v\n%s", a, err, prog.String())
		}
		runs++
		time.Sleep(20 * time.Millisecond)
	}
	wg.Wait()
	if writeErr != nil {
		t.Fatal(writeErr)
	}
	// What the writer's statements leave, by the model of a deduplicate
	// table: INSERT upserts, UPDATE adds 1000 to every row of the key.
	rows := map[[2]int]int{}
	commits := 0 // statements that change rows commit a snapshot
	for i := 0; i < n; i++ {
		k, p := i%23, i%3
		if i%10 == 9 {
			changed := false
			for key, v := range rows {
				if key[0] == k {
					rows[key] = v + 1000
					changed = true
				}
			}
			if changed {
				commits++
			}
			continue
		}
		rows[[2]int{k, p}] = i
		commits++
	}
	for key, v := range rows {
		want[fmt.Sprintf("%d|%d", key[0], key[1])] = fmt.Sprint(v)
	}
	check := func(when string) {
		t.Helper()
		got := queryStrings(t, db, "SELECT k, p, v FROM jobt")
		if len(got) != len(want) {
			t.Fatalf("%s: %d rows, want %d", when, len(got), len(want))
		}
		for _, r := range got {
			if w := want[r[0]+"|"+r[1]]; w != r[2] {
				t.Fatalf("%s: row %v, want v=%s", when, r, w)
			}
		}
	}
	check("after writing")
	var out, prog bytes.Buffer
	if err := compactjob.Run(ctx, &out, &prog, append(args, "--full")); err != nil {
		t.Fatal(err)
	}
	check("after the final full compaction")
	for _, b := range tableShape(t, db, "jobt", "") {
		if b.runs() != 1 || b.levels[0] != 2 {
			t.Errorf("partition %s bucket %d: levels %v, want one run on level 2", b.partition, b.bucket, b.levels)
		}
	}
	if !strings.Contains(out.String(), "COMPACT") && !strings.Contains(out.String(), "nothing to compact") {
		t.Errorf("output: %s", out.String())
	}
	if !strings.Contains(prog.String(), "buckets") {
		t.Errorf("no progress lines: %q", prog.String())
	}
	kinds := snapshotKinds(t, db, "jobt")
	t.Logf("%d compaction runs during %d statements: %d snapshots, %d COMPACT", runs, n, len(kinds), count(kinds, "COMPACT"))
	if count(kinds, "APPEND") != commits {
		t.Errorf("%d APPEND snapshots, want %d (one per statement that changed rows)", count(kinds, "APPEND"), commits)
	}
}

// TestCompactionJobPartitionsAndErrors: --partition limits the job to
// partitions; wrong command lines and unknown tables are errors.
func TestCompactionJobPartitionsAndErrors(t *testing.T) {
	wh := t.TempDir()
	ws := startWriteServer(t, wh)
	db := ws.open(t, "default")
	mustExec(t, db, "CREATE TABLE pj (k BIGINT, p STRING, v BIGINT, PRIMARY KEY (k, p) NOT ENFORCED) PARTITIONED BY (p) "+
		"WITH ('bucket' = '1', 'write-only' = 'true')")
	for i := 0; i < 6; i++ {
		mustExec(t, db, fmt.Sprintf("INSERT INTO pj VALUES (%d, 'a', %d), (%d, 'b', %d)", i, i, i, i))
	}
	ctx := context.Background()
	var out, prog bytes.Buffer
	if err := compactjob.Run(ctx, &out, &prog, []string{"--warehouse", wh, "--table", "default.pj", "--full", "--partition", "p=a"}); err != nil {
		t.Fatal(err)
	}
	for _, b := range tableShape(t, db, "pj", "") {
		switch b.partition {
		case "{a}":
			if b.runs() != 1 || b.levels[0] != 5 {
				t.Errorf("p=a: levels %v, want one run on level 5", b.levels)
			}
		case "{b}":
			if len(b.levels) != 6 || b.levels[0] != 0 {
				t.Errorf("p=b: levels %v, want the 6 level-0 files untouched", b.levels)
			}
		default:
			t.Errorf("unexpected partition %q", b.partition)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--table", "default.pj"}, "--warehouse and --table are required"},
		{[]string{"--warehouse", wh, "--table", "pj"}, "want DB.TABLE"},
		{[]string{"--warehouse", wh, "--table", "default.nosuch"}, "does not exist"},
		{[]string{"--warehouse", wh, "--table", "nodb.pj"}, "does not exist"},
		{[]string{"--warehouse", wh + "/missing", "--table", "default.pj"}, "does not exist"},
		{[]string{"--warehouse", wh, "--table", "default.pj", "--partition", "q=1"}, "not a partition column"},
		{[]string{"--warehouse", wh, "--table", "default.pj", "--partition", "p"}, "K=V"},
		{[]string{"--warehouse", wh, "--table", "default.pj", "extra"}, "unexpected argument"},
	} {
		err := compactjob.Run(ctx, &out, &prog, c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("compact %v: %v, want an error saying %q", c.args, err, c.want)
		}
	}
}

// TestCompactionJobExpires: servers never expire the snapshots of a
// write-only table; the compaction job does after its commit, as Java's
// dedicated compaction does (write-only is off for its own commits).
func TestCompactionJobExpires(t *testing.T) {
	wh := t.TempDir()
	ws := startWriteServer(t, wh)
	db := ws.open(t, "default")
	mustExec(t, db, "CREATE TABLE ex (k BIGINT PRIMARY KEY, v BIGINT) WITH ('bucket' = '1', 'write-only' = 'true', "+
		"'snapshot.num-retained.min' = '3', 'snapshot.num-retained.max' = '3', 'snapshot.time-retained' = '1 ms')")
	for i := 0; i < 8; i++ {
		mustExec(t, db, fmt.Sprintf("INSERT INTO ex VALUES (%d, %d)", i%3, i))
	}
	if n := len(snapshotKinds(t, db, "ex")); n != 8 {
		t.Fatalf("%d snapshots before the job, want 8 (write-only: no expiration)", n)
	}
	var out, prog bytes.Buffer
	if err := compactjob.Run(context.Background(), &out, &prog, []string{"--warehouse", wh, "--table", "default.ex", "--full"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "snapshots expired") {
		t.Errorf("job output does not report the expiration:\n%s", out.String())
	}
	if kinds := snapshotKinds(t, db, "ex"); len(kinds) != 3 || kinds[2] != "COMPACT" {
		t.Errorf("snapshots after the job: %v, want the 3 latest, the COMPACT one last", kinds)
	}
	if got := sqlLines(t, db, "SELECT k, v FROM ex ORDER BY k"); got != "0|6\n1|7\n2|5" {
		t.Errorf("rows after the job:\n%s", got)
	}
}
