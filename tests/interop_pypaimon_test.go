package tests

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/internal/testutil"
	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/snapshot"
)

// openTableStorage opens the folder of table db.name of warehouse wh.
func openTableStorage(t *testing.T, wh, db, name string) storage.Storage {
	t.Helper()
	st, err := storage.Open(context.Background(), filepath.Join(wh, db+".db", name))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestInteropPypaimonReadsLakesql: pypaimon (pinned in
// tests/interop/requirements.txt), a second reader independent of Java,
// reads the latest snapshot of tables lakesql wrote through SQL, and must
// see what lakesql reads.
//
// pypaimon 1.3.1's reader has one merge function, deduplicate (its
// SortMergeReaderWithMinHeap), and no sequence.field, deletion vectors or
// first-row level-0 rule. So deduplicate tables without sequence.field
// (fixed and dynamic bucket, partitioned, changelog-producer=input) and
// append tables are read as lakesql wrote them, and the tables of every
// other merge engine lakesql writes (partial-update, aggregation,
// deduplicate with sequence.field) are read after lakesql's full compaction
// (lsmwrite.Compact), which leaves each key one record that needs no merge:
// the form in which pypaimon 1.3.1 reads them correctly.
func TestInteropPypaimonReadsLakesql(t *testing.T) {
	py := testutil.Python(t)
	if err := exec.Command(py, "-c", "import pypaimon").Run(); err != nil {
		if testutil.RequireTools() {
			t.Fatalf("pypaimon is not installed in %s: %v", py, err)
		}
		t.Skipf("pypaimon is not installed in %s: run .ci/run once to install it", py)
	}
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
	var names []string
	compacted := 0
	for i, c := range lakesqlTables {
		// dedup_compact's tiny target-file-size makes compaction move files
		// up a level (a DELETE and an ADD of one file name on two levels);
		// pypaimon 1.3.1 matches DELETE entries by file name without the
		// level (manifest_file_manager.read_entries_parallel) and drops
		// such files, where Java (FileEntry.Identifier) keeps them.
		if c.name == "dedup_compact" {
			continue
		}
		w := createLakesqlTable(t, conn, "lw", i)
		w.run(16, true)
		names = append(names, "lw."+c.name)
		if (c.engine != "deduplicate" && c.engine != "") || c.seq {
			// Merged by lakesql first: pypaimon merges every key as deduplicate.
			tbl := snapshot.OpenTable(openTableStorage(t, wh, "lw", c.name), "")
			out, err := lsmwrite.Compact(ctx, tbl, lsmwrite.CompactRequest{Full: true})
			if err != nil || out.Snapshot == nil {
				t.Fatalf("full compaction of lw.%s: %v (%+v)", c.name, err, out)
			}
			compacted++
		}
	}
	if compacted == 0 {
		t.Fatalf("no table of another merge engine than deduplicate")
	}
	cmd := exec.Command(py, append([]string{"interop/python/pypaimon_read.py", wh}, names...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	seen, rows := 0, 0
	for sc.Scan() {
		var r javaRead
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("pypaimon printed %q: %v", sc.Text(), err)
		}
		if r.Op == "error" {
			t.Errorf("pypaimon: %s: %s", r.Table, r.Error)
			continue
		}
		seen++
		rows += len(r.Rows)
		dbName, table, _ := strings.Cut(r.Table, ".")
		latest := queryStrings(t, db, fmt.Sprintf("SELECT MAX(snapshot_id) FROM %s.`%s$snapshots`", dbName, table))
		r.Snapshot, _ = strconv.ParseInt(latest[0][0], 10, 64)
		got, err := sqlRead(ctx, db, dbName, table, r.Columns, r)
		if err != nil {
			t.Errorf("%s: lakesql: %v", r.Table, err)
			continue
		}
		if d := ioDiffRows(javaRows(r, false), got); d != "" {
			t.Errorf("%s snapshot %d: pypaimon reads other rows than lakesql:\n%s", r.Table, r.Snapshot, d)
		}
	}
	if runErr != nil {
		t.Fatalf("pypaimon: %v\n%s", runErr, stderr.String())
	}
	if seen != len(names) || rows == 0 {
		t.Fatalf("pypaimon read %d of %d tables (%d rows)", seen, len(names), rows)
	}
	t.Logf("pypaimon read %d lakesql-written tables (%d rows; %d of them fully compacted first): %v", seen, rows, compacted, names)
}
