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
	"github.com/lakesql/lakesql/snapshot/manifest"
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
		// Tables with deletion vectors and first-row tables are not read:
		// pypaimon 1.3.1 applies no deletion vectors and does not skip
		// level 0.
		if strings.Contains(c.with, "deletion-vectors") || c.engine == "first-row" {
			continue
		}
		w := createLakesqlTable(t, conn, "lw", i)
		w.run(16, true)
		names = append(names, "lw."+c.name)
		if (c.engine != "deduplicate" && c.engine != "") || c.seq {
			// Merged by lakesql first: pypaimon merges every key as deduplicate.
			// After the server's own compactions (a full compaction that
			// meets one gives way and tries again).
			tbl := snapshot.OpenTable(openTableStorage(t, wh, "lw", c.name), "")
			for attempt := 0; ; attempt++ {
				if err := ws.srv.WaitCompactions(ctx); err != nil {
					t.Fatal(err)
				}
				out, err := lsmwrite.Compact(ctx, tbl, lsmwrite.CompactRequest{Full: true})
				if err != nil {
					t.Fatalf("full compaction of lw.%s: %v", c.name, err)
				}
				if out.Conflict == nil || attempt == 5 {
					if out.Conflict != nil {
						t.Fatalf("full compaction of lw.%s: %v", c.name, out.Conflict)
					}
					break
				}
			}
			compacted++
		}
	}
	if compacted == 0 {
		t.Fatalf("no table of another merge engine than deduplicate")
	}
	// pypaimon 1.3.1 matches a manifest's DELETE entries by file name
	// without the level (manifest_file_manager.read_entries_parallel), so
	// it drops a file that a compaction moved to another level (a DELETE
	// and an ADD of one name), where Java (FileEntry.Identifier) keeps it.
	// Tables whose history moved a file are left out, saying so.
	var read []string
	for _, n := range names {
		_, table, _ := strings.Cut(n, ".")
		if moved := movedFiles(t, openTableStorage(t, wh, "lw", table)); moved > 0 {
			t.Logf("%s: not read by pypaimon: compaction moved %d file(s) to another level, which pypaimon 1.3.1 drops", n, moved)
			continue
		}
		read = append(read, n)
	}
	if len(read) < len(names)/2 {
		t.Fatalf("pypaimon can read only %d of %d tables", len(read), len(names))
	}
	names = read
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

// movedFiles counts the files that a snapshot of the table deleted and added
// again under the same name (a compaction moving a file up a level).
func movedFiles(t *testing.T, st storage.Storage) int {
	t.Helper()
	ctx := context.Background()
	snaps, err := snapshot.NewSnapshotManager(st, "").All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range snaps {
		metas, err := snapshot.CachedManifestList(ctx, st, s.DeltaManifestList)
		if err != nil {
			t.Fatal(err)
		}
		kinds := map[string]int{}
		for _, m := range metas {
			es, err := snapshot.CachedManifest(ctx, st, m.FileName)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range es {
				kinds[e.File.FileName] |= 1 << e.Kind
			}
		}
		for _, k := range kinds {
			if k == 1<<manifest.FileKindAdd|1<<manifest.FileKindDelete {
				n++
			}
		}
	}
	return n
}
