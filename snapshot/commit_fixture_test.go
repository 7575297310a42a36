package snapshot_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/internal/testutil"
	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// copyTree copies a fixture table into a temp dir so that commits do not
// touch the shared fixtures.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestCommitOnJavaFixture appends a commit (an update: DELETE of a live
// file plus ADDs) to a table Java wrote; old and new snapshots read
// consistently and the new one is the old live set + ADDs - DELETEs.
func TestCommitOnJavaFixture(t *testing.T) {
	ctx := context.Background()
	src := testutil.FixtureTables(t)["pk_table_scan_and_read_mor"]
	if src == "" {
		t.Fatal("fixture pk_table_scan_and_read_mor missing")
	}
	st := openDir(t, copyTree(t, src))
	sm := snapshot.NewSnapshotManager(st, "")
	old, err := sm.All(ctx)
	if err != nil || len(old) != 5 {
		t.Fatalf("fixture snapshots: %d, %v", len(old), err)
	}
	oldLive := map[snapshot.SnapshotID][]string{}
	for _, s := range old {
		live, err := snapshot.LiveEntries(ctx, st, s, nil)
		if err != nil {
			t.Fatal(err)
		}
		oldLive[s.ID] = summarize(live)
	}
	latest := old[len(old)-1]
	live, err := snapshot.LiveEntries(ctx, st, latest, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := model{}
	m.apply(t, live)
	if m.rows() != latest.TotalRecordCount {
		t.Fatalf("fixture live rows %d != totalRecordCount %d", m.rows(), latest.TotalRecordCount)
	}
	// Delete the first live file of partition f1=10 bucket 0, add a new
	// level-0 file in its place and one in partition 20.
	var victim *manifest.ManifestEntry
	for i := range live {
		if live[i].Bucket == 0 && string(live[i].Partition) == string(partition(t, 10)) {
			victim = &live[i]
			break
		}
	}
	if victim == nil {
		t.Fatal("no live file in f1=10, bucket 0")
	}
	gone := *victim
	gone.Kind = manifest.FileKindDelete
	n1 := add(t, fileSpec{name: "data-go-1.parquet", part: 10, bucket: 0, rows: 4})
	n2 := add(t, fileSpec{name: "data-go-2.parquet", part: 20, bucket: 1, rows: 2})
	changes := []manifest.ManifestEntry{gone, n1, n2}

	c := snapshot.NewCommitter(st, testOptions()) // partition and key types from schema-0
	s, err := c.Commit(ctx, 0, &snapshot.CommitChanges{
		Kind: snapshot.CommitKindAppend, Entries: changes,
		CommitUser: "go-writer", CommitIdentifier: snapshot.BatchCommitIdentifier,
	})
	if err != nil {
		t.Fatal(err)
	}
	if s.ID != 6 || s.CommitKind != snapshot.CommitKindOverwrite {
		t.Fatalf("new snapshot = %+v", s)
	}
	m.apply(t, changes)
	checkLive(t, st, reread(t, st, s), m)
	if s.TotalRecordCount != latest.TotalRecordCount+4+2-gone.File.RowCount {
		t.Fatalf("totalRecordCount = %d", s.TotalRecordCount)
	}
	// The new snapshot's JSON has the shape of Java's.
	data, _ := st.ReadAll(ctx, sm.Path(6))
	javaData, _ := st.ReadAll(ctx, sm.Path(5))
	if keys(string(data)) != keys(string(javaData)) {
		t.Fatalf("key order differs:\nGo:   %s\nJava: %s", keys(string(data)), keys(string(javaData)))
	}
	// Old snapshots read as before.
	for _, o := range old {
		s, err := sm.Snapshot(ctx, o.ID)
		if err != nil {
			t.Fatal(err)
		}
		live, err := snapshot.LiveEntries(ctx, st, s, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := summarize(live); strings.Join(got, "\n") != strings.Join(oldLive[o.ID], "\n") {
			t.Fatalf("snapshot %d changed", o.ID)
		}
	}
	// A second commit on top of the Go one (base list now Go-written).
	n3 := add(t, fileSpec{name: "data-go-3.parquet", part: 10, bucket: 1, rows: 1})
	s7, err := c.Commit(ctx, 0, &snapshot.CommitChanges{Kind: snapshot.CommitKindAppend, Entries: []manifest.ManifestEntry{n3}, CommitUser: "go-writer", CommitIdentifier: 8})
	if err != nil {
		t.Fatal(err)
	}
	m.apply(t, []manifest.ManifestEntry{n3})
	checkLive(t, st, s7, m)
	if b, _ := st.ReadAll(ctx, snapshot.HintPath("", snapshot.LatestHint)); string(b) != "7" {
		t.Fatalf("LATEST = %q", b)
	}
}

// keys returns the JSON keys of a pretty-printed snapshot, in order.
func keys(doc string) string {
	var out []string
	for line := range strings.SplitSeq(doc, "\n") {
		line = strings.TrimSpace(line)
		if k, _, ok := strings.Cut(line, " : "); ok && strings.HasPrefix(k, `"`) {
			out = append(out, k)
		}
	}
	return strings.Join(out, ",")
}
