package snapshot_test

import (
	"context"
	"slices"
	"testing"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

func TestLiveEntriesFilter(t *testing.T) {
	ctx := context.Background()
	st := openMem(t)
	newTestTable(t, st)
	c := snapshot.NewCommitter(st, testOptions())
	var all []manifest.ManifestEntry
	for i := range 12 {
		all = append(all, add(t, fileSpec{name: "f" + string(rune('a'+i)), part: int32(i % 3), bucket: int32(i % 2), rows: 1}))
	}
	commitOrFail(t, c, &snapshot.CommitChanges{Kind: snapshot.CommitKindAppend, Entries: all[:6], CommitUser: "u"})
	s := commitOrFail(t, c, &snapshot.CommitChanges{Kind: snapshot.CommitKindAppend, Entries: all[6:], CommitUser: "u"})
	// Delete a file of partition 1 / bucket 1.
	s = commitOrFail(t, c, &snapshot.CommitChanges{Kind: snapshot.CommitKindOverwrite, Entries: []manifest.ManifestEntry{func() manifest.ManifestEntry {
		e := all[1]
		e.Kind = manifest.FileKindDelete
		return e
	}()}, CommitUser: "u"})
	p1 := string(partition(t, 1))
	got, err := snapshot.LiveEntries(ctx, st, s, func(p []byte, b int32) bool { return string(p) == p1 && b == 1 })
	if err != nil {
		t.Fatal(err)
	}
	var want []manifest.ManifestEntry
	for i, e := range all {
		if i != 1 && string(e.Partition) == p1 && e.Bucket == 1 {
			want = append(want, e)
		}
	}
	if g, w := summarize(got), summarize(want); !slices.Equal(g, w) || len(w) == 0 {
		t.Fatalf("filtered live = %v, want %v", g, w)
	}
	if _, err := snapshot.LiveEntries(ctx, st, nil, nil); err == nil {
		t.Fatal("nil snapshot accepted")
	}
}

func TestCommitInheritsWatermark(t *testing.T) {
	st := openMem(t)
	newTestTable(t, st)
	c := snapshot.NewCommitter(st, testOptions())
	w := func(v int64) *int64 { return &v }
	n := 0
	next := func(wm *int64) *snapshot.Snapshot {
		n++
		return commitOrFail(t, c, &snapshot.CommitChanges{Kind: snapshot.CommitKindAppend, Watermark: wm, CommitUser: "u",
			Entries: []manifest.ManifestEntry{add(t, fileSpec{name: "f" + string(rune('a'+n)), part: 1, rows: 1})}})
	}
	for i, tc := range []struct{ in, want *int64 }{{nil, nil}, {w(5), w(5)}, {nil, w(5)}, {w(3), w(5)}, {w(9), w(9)}} {
		s := next(tc.in)
		if (s.Watermark == nil) != (tc.want == nil) || (s.Watermark != nil && *s.Watermark != *tc.want) {
			t.Fatalf("commit %d: watermark %v, want %v", i, s.Watermark, tc.want)
		}
	}
}

// TestCommitToBranch: a branch's snapshots live in its own folder, its
// manifests in the table's manifest folder.
func TestCommitToBranch(t *testing.T) {
	ctx := context.Background()
	st := openMem(t)
	ts, err := schema.DecodeTableSchema([]byte(testSchemaJSON))
	if err != nil {
		t.Fatal(err)
	}
	if err := snapshot.NewSchemaManager(st, "b1").Commit(ctx, ts); err != nil { // a branch has its own schema/
		t.Fatal(err)
	}
	c := snapshot.NewCommitter(st, snapshot.CommitOptions{Branch: "b1", PartitionTypes: []schema.DataType{}})
	e := manifest.ManifestEntry{Kind: manifest.FileKindAdd, Partition: manifest.EmptyRow, TotalBuckets: -1,
		File: manifest.DataFileMeta{FileName: "data-x.parquet", RowCount: 2, MinKey: manifest.EmptyRow, MaxKey: manifest.EmptyRow,
			KeyStats: manifest.EmptyStats(), ValueStats: manifest.EmptyStats(), ExtraFiles: []string{}}}
	s, err := c.Commit(ctx, 0, &snapshot.CommitChanges{Kind: snapshot.CommitKindAppend, Entries: []manifest.ManifestEntry{e}, CommitUser: "u"})
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := st.Exists(ctx, "branch/branch-b1/snapshot/snapshot-1"); !ok {
		t.Fatal("branch snapshot missing")
	}
	if ok, _ := st.Exists(ctx, manifest.Path(s.DeltaManifestList)); !ok {
		t.Fatal("manifest list not in the table's manifest folder")
	}
	if _, ok, _ := snapshot.NewSnapshotManager(st, "").LatestID(ctx); ok {
		t.Fatal("main branch got a snapshot")
	}
	b, err := snapshot.NewSnapshotManager(st, "b1").Latest(ctx)
	if err != nil || b.ID != 1 || b.TotalRecordCount != 2 {
		t.Fatalf("branch latest = %+v, %v", b, err)
	}
	// Unpartitioned: the manifest-list record carries the empty stats.
	data, _ := st.ReadAll(ctx, manifest.Path(s.DeltaManifestList))
	metas, err := manifest.ReadManifestList(data, s.DeltaManifestList)
	if err != nil || len(metas) != 1 || string(metas[0].PartitionStats.MinValues) != string(manifest.EmptyRow) || len(metas[0].PartitionStats.NullCounts) != 0 {
		t.Fatalf("metas = %+v, %v", metas, err)
	}
}
