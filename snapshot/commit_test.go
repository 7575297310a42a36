package snapshot_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

func commitOrFail(t testing.TB, c *snapshot.Committer, ch *snapshot.CommitChanges) *snapshot.Snapshot {
	t.Helper()
	s, err := c.Commit(context.Background(), 0, ch)
	if err != nil {
		t.Fatalf("commit: %v", err)
	}
	return s
}

// reread reads snapshot id back with a SnapshotManager and checks it
// equals what Commit returned, field by field that matters.
func reread(t testing.TB, st storage.Storage, want *snapshot.Snapshot) *snapshot.Snapshot {
	t.Helper()
	got, err := snapshot.NewSnapshotManager(st, "").Snapshot(context.Background(), want.ID)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := snapshot.EncodeSnapshot(got)
	b, _ := snapshot.EncodeSnapshot(want)
	if string(a) != string(b) {
		t.Fatalf("snapshot %d on disk:\n%s\nreturned:\n%s", want.ID, a, b)
	}
	return got
}

func TestCommitSequence(t *testing.T) {
	for _, backend := range []string{"mem", "dir"} {
		t.Run(backend, func(t *testing.T) {
			var st storage.Storage
			if backend == "mem" {
				st = openMem(t)
			} else {
				st = openDir(t, "file://"+t.TempDir()+"?fsync=false")
			}
			testCommitSequence(t, st)
		})
	}
}

func testCommitSequence(t *testing.T, st storage.Storage) {
	ctx := context.Background()
	newTestTable(t, st)
	now := time.UnixMilli(1_700_000_000_000)
	opts := testOptions()
	opts.Now = func() time.Time { now = now.Add(time.Second); return now }
	c := snapshot.NewCommitter(st, opts)
	m := model{}
	sm := snapshot.NewSnapshotManager(st, "")

	// Empty commit on an empty table: no snapshot.
	if s, err := c.Commit(ctx, 0, &snapshot.CommitChanges{Kind: snapshot.CommitKindAppend, CommitUser: "u"}); s != nil || err != nil {
		t.Fatalf("empty commit on empty table = %v, %v", s, err)
	}

	f1 := fileSpec{name: "data-1.parquet", part: 10, bucket: 0, rows: 3, minKey: "a", maxKey: "f"}
	f2 := fileSpec{name: "data-2.parquet", part: 10, bucket: 1, rows: 2}
	f3 := fileSpec{name: "data-3.parquet", part: 20, bucket: 0, rows: 4}
	ch := &snapshot.CommitChanges{
		Kind:             snapshot.CommitKindAppend,
		Entries:          []manifest.ManifestEntry{add(t, f1), add(t, f2), add(t, f3)},
		CommitUser:       "user-a",
		CommitIdentifier: snapshot.BatchCommitIdentifier,
	}
	s1 := commitOrFail(t, c, ch)
	m.apply(t, ch.Entries)
	if s1.ID != 1 || s1.CommitKind != snapshot.CommitKindAppend || s1.DeltaRecordCount != 9 || s1.IndexManifest != nil || s1.ChangelogManifestList != nil {
		t.Fatalf("snapshot 1 = %+v", s1)
	}
	reread(t, st, s1)
	checkLive(t, st, s1, m)
	base, err := st.ReadAll(ctx, manifest.Path(s1.BaseManifestList))
	if err != nil {
		t.Fatal(err)
	}
	if metas, err := manifest.ReadManifestList(base, s1.BaseManifestList); err != nil || len(metas) != 0 {
		t.Fatalf("first base list = %v, %v; want empty", metas, err)
	}
	for _, hint := range []string{snapshot.LatestHint, snapshot.EarliestHint} {
		if b, err := st.ReadAll(ctx, snapshot.HintPath("", hint)); err != nil || string(b) != "1" {
			t.Fatalf("%s hint = %q, %v", hint, b, err)
		}
	}
	data, _ := st.ReadAll(ctx, sm.Path(1))
	for _, want := range []string{`"logOffsets" : { }`, `"changelogManifestList" : null`, `"nextRowId" : 0`, `"changelogRecordCount" : 0`, `"commitIdentifier" : 9223372036854775807`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("snapshot-1 lacks %s:\n%s", want, data)
		}
	}

	// Delta manifest-list record: partition stats over f1 in 10..20.
	deltaList, _ := st.ReadAll(ctx, manifest.Path(s1.DeltaManifestList))
	metas, err := manifest.ReadManifestList(deltaList, s1.DeltaManifestList)
	if err != nil || len(metas) != 1 {
		t.Fatalf("delta list: %v, %v", metas, err)
	}
	if got := metas[0]; got.NumAddedFiles != 3 || got.NumDeletedFiles != 0 ||
		string(got.PartitionStats.MinValues) != string(partition(t, 10)) || string(got.PartitionStats.MaxValues) != string(partition(t, 20)) ||
		len(got.PartitionStats.NullCounts) != 1 || *got.PartitionStats.NullCounts[0] != 0 {
		t.Fatalf("delta meta = %+v", got)
	}

	// A compaction: f1 (level 0) becomes g1 at level 5, with a changelog.
	g1 := fileSpec{name: "data-g1.parquet", part: 10, bucket: 0, level: 5, rows: 3, minKey: "a", maxKey: "f"}
	cl := fileSpec{name: "changelog-1.parquet", part: 10, bucket: 0, rows: 7}
	ch = &snapshot.CommitChanges{
		Kind:             snapshot.CommitKindCompact,
		Entries:          []manifest.ManifestEntry{del(t, f1), add(t, g1)},
		ChangelogEntries: []manifest.ManifestEntry{add(t, cl)},
		CommitUser:       "user-a",
		CommitIdentifier: snapshot.BatchCommitIdentifier,
		Properties:       map[string]string{"k": "v"},
	}
	s2 := commitOrFail(t, c, ch)
	m.apply(t, ch.Entries)
	if s2.ID != 2 || s2.CommitKind != snapshot.CommitKindCompact || s2.DeltaRecordCount != 0 ||
		s2.ChangelogManifestList == nil || *s2.ChangelogRecordCount != 7 || s2.Properties["k"] != "v" || s2.TimeMillis <= s1.TimeMillis {
		t.Fatalf("snapshot 2 = %+v", s2)
	}
	reread(t, st, s2)
	checkLive(t, st, s2, m)
	m1 := model{}
	m1.apply(t, []manifest.ManifestEntry{add(t, f1), add(t, f2), add(t, f3)})
	checkLive(t, st, s1, m1)

	// An update: DELETE of a live file in an APPEND commit plus a DV index
	// file: committed as OVERWRITE.
	f4 := fileSpec{name: "data-4.parquet", part: 20, bucket: 0, rows: 5}
	dv := manifest.IndexManifestEntry{Kind: manifest.FileKindAdd, Partition: partition(t, 20), Bucket: 0,
		IndexFile: manifest.IndexFileMeta{IndexType: manifest.IndexTypeDeletionVectors, FileName: "index-1", FileSize: 31, RowCount: 1,
			DVRanges: []manifest.DeletionVectorMeta{{DataFileName: "data-4.parquet", Offset: 1, Length: 22}}}}
	ch = &snapshot.CommitChanges{
		Kind:             snapshot.CommitKindAppend,
		Entries:          []manifest.ManifestEntry{del(t, f3), add(t, f4)},
		IndexChanges:     []manifest.IndexManifestEntry{dv},
		CommitUser:       "user-a",
		CommitIdentifier: snapshot.BatchCommitIdentifier,
	}
	s3 := commitOrFail(t, c, ch)
	m.apply(t, ch.Entries)
	if s3.CommitKind != snapshot.CommitKindOverwrite || s3.IndexManifest == nil || s3.DeltaRecordCount != 1 || s3.ChangelogManifestList != nil {
		t.Fatalf("snapshot 3 = %+v", s3)
	}
	reread(t, st, s3)
	checkLive(t, st, s3, m)
	idx, _ := st.ReadAll(ctx, manifest.Path(*s3.IndexManifest))
	if got, err := manifest.ReadIndexManifest(idx, *s3.IndexManifest); err != nil || len(got) != 1 || got[0].IndexFile.FileName != "index-1" {
		t.Fatalf("index manifest = %+v, %v", got, err)
	}

	// A plain append keeps the index manifest name.
	f5 := fileSpec{name: "data-5.parquet", part: 30, bucket: 1, rows: 1}
	ch = &snapshot.CommitChanges{Kind: snapshot.CommitKindAppend, Entries: []manifest.ManifestEntry{add(t, f5)}, CommitUser: "user-b", CommitIdentifier: 7}
	s4 := commitOrFail(t, c, ch)
	m.apply(t, ch.Entries)
	if s4.IndexManifest == nil || *s4.IndexManifest != *s3.IndexManifest || s4.CommitKind != snapshot.CommitKindAppend {
		t.Fatalf("snapshot 4 = %+v", s4)
	}
	checkLive(t, st, s4, m)

	// INSERT OVERWRITE of partition 20: f4 and its DV index file go.
	f6 := fileSpec{name: "data-6.parquet", part: 20, bucket: 1, rows: 6}
	ch = &snapshot.CommitChanges{
		Kind: snapshot.CommitKindAppend, Entries: []manifest.ManifestEntry{add(t, f6)},
		CommitUser: "user-a", CommitIdentifier: snapshot.BatchCommitIdentifier,
		OverwritePartitions: [][]byte{partition(t, 20)},
	}
	s5 := commitOrFail(t, c, ch)
	m.apply(t, []manifest.ManifestEntry{del(t, f4), add(t, f6)})
	if s5.CommitKind != snapshot.CommitKindOverwrite || s5.DeltaRecordCount != 1 {
		t.Fatalf("snapshot 5 = %+v", s5)
	}
	checkLive(t, st, s5, m)
	idx, _ = st.ReadAll(ctx, manifest.Path(*s5.IndexManifest))
	if got, err := manifest.ReadIndexManifest(idx, *s5.IndexManifest); err != nil || len(got) != 0 {
		t.Fatalf("index manifest after overwrite = %+v, %v", got, err)
	}

	// Empty commit: no snapshot, the latest returned.
	if s, err := c.Commit(ctx, 0, &snapshot.CommitChanges{Kind: snapshot.CommitKindAppend, CommitUser: "u"}); err != nil || s.ID != 5 {
		t.Fatalf("empty commit = %v, %v", s, err)
	}

	// Overwrite of the whole table.
	f7 := fileSpec{name: "data-7.parquet", part: 40, bucket: 0, rows: 2}
	ch = &snapshot.CommitChanges{
		Kind: snapshot.CommitKindOverwrite, Entries: []manifest.ManifestEntry{add(t, f7)},
		CommitUser: "user-a", CommitIdentifier: snapshot.BatchCommitIdentifier, OverwritePartitions: [][]byte{},
	}
	s6 := commitOrFail(t, c, ch)
	m = model{}
	m.apply(t, ch.Entries)
	checkLive(t, st, s6, m)
	if s6.DeltaRecordCount != 2-(2+3+1+6) {
		t.Fatalf("snapshot 6 deltaRecordCount = %d", s6.DeltaRecordCount)
	}

	// Every snapshot still reads, and the LATEST hint follows.
	ids, err := sm.List(ctx)
	if err != nil || !slices.Equal(ids, []snapshot.SnapshotID{1, 2, 3, 4, 5, 6}) {
		t.Fatalf("snapshots = %v, %v", ids, err)
	}
	if id, ok, err := sm.LatestID(ctx); err != nil || !ok || id != 6 {
		t.Fatalf("LatestID = %d, %v, %v", id, ok, err)
	}
}

// TestCommitManyWithManifestMerging commits random adds and deletes with
// tiny manifest sizes so that minor and full manifest compactions run, and
// compares every snapshot with the model.
func TestCommitManyWithManifestMerging(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts func(*snapshot.CommitOptions)
	}{
		{"default", func(*snapshot.CommitOptions) {}},
		{"minor", func(o *snapshot.CommitOptions) { o.ManifestMergeMinCount = 3; o.ManifestFullCompactionSize = 1 << 40 }},
		{"full", func(o *snapshot.CommitOptions) { o.ManifestFullCompactionSize = 1; o.ManifestTargetSize = 4000 }},
		{"rolling", func(o *snapshot.CommitOptions) { o.ManifestTargetSize = 1500; o.ManifestMergeMinCount = 4 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := openMem(t)
			newTestTable(t, st)
			opts := testOptions()
			tc.opts(&opts)
			c := snapshot.NewCommitter(st, opts)
			m := model{}
			var live []fileSpec
			n := 0
			var snaps []*snapshot.Snapshot
			var models []model
			for round := range 45 {
				var entries []manifest.ManifestEntry
				kind := snapshot.CommitKindAppend
				if round%3 == 2 && len(live) > 2 {
					// delete two live files
					kind = snapshot.CommitKindCompact
					for range 2 {
						i := (round * 7) % len(live)
						entries = append(entries, del(t, live[i]))
						live = slices.Delete(live, i, i+1)
					}
				}
				for range 1 + round%4 {
					n++
					f := fileSpec{name: fmt.Sprintf("data-%d.parquet", n), part: int32(n % 3), bucket: int32(n % 2), rows: int64(n)}
					live = append(live, f)
					entries = append(entries, add(t, f))
				}
				s := commitOrFail(t, c, &snapshot.CommitChanges{Kind: kind, Entries: entries, CommitUser: "u", CommitIdentifier: int64(round)})
				m.apply(t, entries)
				checkLive(t, st, s, m)
				snaps = append(snaps, s)
				models = append(models, m.clone())
			}
			// Old snapshots are unchanged by later merges.
			for i, s := range snaps {
				checkLive(t, st, s, models[i])
			}
			last := snaps[len(snaps)-1]
			b, _ := st.ReadAll(context.Background(), manifest.Path(last.BaseManifestList))
			metas, err := manifest.ReadManifestList(b, last.BaseManifestList)
			if err != nil {
				t.Fatal(err)
			}
			var deletes int64
			for _, mm := range metas {
				deletes += mm.NumDeletedFiles
			}
			t.Logf("%s: base list of snapshot %d has %d manifests, %d DELETE entries", tc.name, last.ID, len(metas), deletes)
			switch tc.name {
			case "default":
				if len(metas) >= 30 {
					t.Errorf("default options left %d manifests in the base list", len(metas))
				}
			case "minor":
				if len(metas) >= 3+2 {
					t.Errorf("minor compaction left %d manifests", len(metas))
				}
			case "full":
				if deletes != 0 {
					t.Errorf("full compaction left %d DELETE entries", deletes)
				}
			}
		})
	}
}

func TestCommitKinds(t *testing.T) {
	ctx := context.Background()
	st := openMem(t)
	newTestTable(t, st)
	c := snapshot.NewCommitter(st, testOptions())
	f := fileSpec{name: "data-1.parquet", part: 1, rows: 1}
	for _, k := range []snapshot.CommitKind{0, snapshot.CommitKindAnalyze} {
		if _, err := c.Commit(ctx, 0, &snapshot.CommitChanges{Kind: k, Entries: []manifest.ManifestEntry{add(t, f)}}); err == nil {
			t.Errorf("kind %v accepted", k)
		}
	}
	if _, err := c.Commit(ctx, 0, &snapshot.CommitChanges{Kind: snapshot.CommitKindCompact, OverwritePartitions: [][]byte{}}); err == nil {
		t.Error("COMPACT with overwrite accepted")
	}
	if _, err := c.Commit(ctx, 0, nil); err == nil {
		t.Error("nil changes accepted")
	}
	// A HASH index change alone keeps APPEND.
	h := manifest.IndexManifestEntry{Kind: manifest.FileKindAdd, Partition: partition(t, 1),
		IndexFile: manifest.IndexFileMeta{IndexType: manifest.IndexTypeHash, FileName: "index-h", FileSize: 4, RowCount: 1}}
	s := commitOrFail(t, c, &snapshot.CommitChanges{Kind: snapshot.CommitKindAppend, Entries: []manifest.ManifestEntry{add(t, f)}, IndexChanges: []manifest.IndexManifestEntry{h}})
	if s.CommitKind != snapshot.CommitKindAppend || s.IndexManifest == nil {
		t.Fatalf("snapshot = %+v", s)
	}
}

// TestCommitConflictDeletedConcurrently: two writers plan on snapshot 1;
// the first compacts file f away, the second then tries to delete f and
// must fail with ErrConflict, leaving neither a snapshot nor any file.
func TestCommitConflictDeletedConcurrently(t *testing.T) {
	ctx := context.Background()
	st := openMem(t)
	newTestTable(t, st)
	c := snapshot.NewCommitter(st, testOptions())
	f := fileSpec{name: "data-1.parquet", part: 1, rows: 3}
	commitOrFail(t, c, &snapshot.CommitChanges{Kind: snapshot.CommitKindAppend, Entries: []manifest.ManifestEntry{add(t, f)}, CommitUser: "a"})

	g := fileSpec{name: "data-g.parquet", part: 1, level: 5, rows: 3}
	commitOrFail(t, snapshot.NewCommitter(st, testOptions()), &snapshot.CommitChanges{
		Kind: snapshot.CommitKindCompact, Entries: []manifest.ManifestEntry{del(t, f), add(t, g)}, CommitUser: "compactor"})

	before := manifestFiles(t, st)
	h := fileSpec{name: "data-h.parquet", part: 1, rows: 2}
	_, err := c.Commit(ctx, 0, &snapshot.CommitChanges{
		Kind: snapshot.CommitKindAppend, Entries: []manifest.ManifestEntry{del(t, f), add(t, h)}, CommitUser: "updater"})
	if !errors.Is(err, snapshot.ErrConflict) {
		t.Fatalf("err = %v, want ErrConflict", err)
	}
	t.Logf("conflict: %v", err)
	if id, _, _ := snapshot.NewSnapshotManager(st, "").LatestID(ctx); id != 2 {
		t.Fatalf("latest = %d after a conflict", id)
	}
	if after := manifestFiles(t, st); !slices.Equal(before, after) {
		t.Fatalf("a failed commit left files:\nbefore %v\nafter  %v", before, after)
	}
	// The same writer re-plans and succeeds.
	s := commitOrFail(t, c, &snapshot.CommitChanges{Kind: snapshot.CommitKindAppend, Entries: []manifest.ManifestEntry{add(t, h)}, CommitUser: "updater"})
	m := model{}
	m.apply(t, []manifest.ManifestEntry{add(t, g), add(t, h)})
	checkLive(t, st, s, m)
}

func TestCommitConflicts(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		entries func(t *testing.T) []manifest.ManifestEntry
		kind    snapshot.CommitKind
	}{
		{"lsm-overlap", func(t *testing.T) []manifest.ManifestEntry {
			return []manifest.ManifestEntry{add(t, fileSpec{name: "new", part: 1, level: 3, rows: 1, minKey: "e", maxKey: "k"})}
		}, snapshot.CommitKindCompact},
		{"lsm-overlap-within-commit", func(t *testing.T) []manifest.ManifestEntry {
			return []manifest.ManifestEntry{
				add(t, fileSpec{name: "n1", part: 2, level: 1, rows: 1, minKey: "a", maxKey: "c"}),
				add(t, fileSpec{name: "n2", part: 2, level: 1, rows: 1, minKey: "c", maxKey: "d"}),
			}
		}, snapshot.CommitKindCompact},
		{"delete-missing", func(t *testing.T) []manifest.ManifestEntry {
			return []manifest.ManifestEntry{del(t, fileSpec{name: "nope", part: 1, rows: 1})}
		}, snapshot.CommitKindAppend},
		{"add-live-again", func(t *testing.T) []manifest.ManifestEntry {
			return []manifest.ManifestEntry{add(t, fileSpec{name: "l3", part: 1, level: 3, rows: 2, minKey: "a", maxKey: "f"})}
		}, snapshot.CommitKindCompact},
		{"delete-and-re-add-in-one-commit", func(t *testing.T) []manifest.ManifestEntry {
			f := fileSpec{name: "l3", part: 1, level: 3, rows: 2, minKey: "a", maxKey: "f"}
			return []manifest.ManifestEntry{del(t, f), add(t, f)}
		}, snapshot.CommitKindCompact},
		{"total-buckets", func(t *testing.T) []manifest.ManifestEntry {
			e := add(t, fileSpec{name: "y", part: 1, rows: 1})
			e.TotalBuckets = 4
			return []manifest.ManifestEntry{e}
		}, snapshot.CommitKindCompact},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := openMem(t)
			newTestTable(t, st)
			c := snapshot.NewCommitter(st, testOptions())
			commitOrFail(t, c, &snapshot.CommitChanges{Kind: snapshot.CommitKindCompact, CommitUser: "a", Entries: []manifest.ManifestEntry{
				add(t, fileSpec{name: "l3", part: 1, level: 3, rows: 2, minKey: "a", maxKey: "f"}),
			}})
			before := manifestFiles(t, st)
			_, err := c.Commit(ctx, 0, &snapshot.CommitChanges{Kind: tc.kind, Entries: tc.entries(t), CommitUser: "b"})
			if !errors.Is(err, snapshot.ErrConflict) {
				t.Fatalf("err = %v, want ErrConflict", err)
			}
			if after := manifestFiles(t, st); !slices.Equal(before, after) {
				t.Fatalf("a failed commit left files: %v", after)
			}
		})
	}
	// Not conflicts: touching key ranges at level 0, disjoint at level 3.
	st := openMem(t)
	newTestTable(t, st)
	c := snapshot.NewCommitter(st, testOptions())
	commitOrFail(t, c, &snapshot.CommitChanges{Kind: snapshot.CommitKindCompact, CommitUser: "a", Entries: []manifest.ManifestEntry{
		add(t, fileSpec{name: "l3", part: 1, level: 3, rows: 2, minKey: "a", maxKey: "f"}),
		add(t, fileSpec{name: "l0", part: 1, level: 0, rows: 2, minKey: "a", maxKey: "f"}),
	}})
	commitOrFail(t, c, &snapshot.CommitChanges{Kind: snapshot.CommitKindCompact, CommitUser: "a", Entries: []manifest.ManifestEntry{
		add(t, fileSpec{name: "l3b", part: 1, level: 3, rows: 2, minKey: "g", maxKey: "k"}),
		add(t, fileSpec{name: "l3c", part: 1, level: 3, rows: 2, minKey: "a", maxKey: "z", bucket: 1}),
	}})
}
