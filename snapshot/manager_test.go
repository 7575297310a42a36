package snapshot_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/internal/testutil"
	"github.com/lakesql/lakesql/snapshot"
)

func openDir(t *testing.T, dir string) storage.Storage {
	t.Helper()
	st, err := storage.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func openMem(t *testing.T) storage.Storage {
	t.Helper()
	st, err := storage.Open(context.Background(), "mem://")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// idsOnDisk lists snapshot-N files with the OS, independently of Storage.
func idsOnDisk(t *testing.T, dir string) []snapshot.SnapshotID {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "snapshot-*"))
	var ids []snapshot.SnapshotID
	for _, f := range m {
		n, err := strconv.ParseInt(strings.TrimPrefix(filepath.Base(f), "snapshot-"), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, snapshot.SnapshotID(n))
	}
	slices.Sort(ids)
	return ids
}

func hintOnDisk(t *testing.T, path string) snapshot.SnapshotID {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.ParseInt(string(data), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return snapshot.SnapshotID(n)
}

// branchesOf lists a fixture table's branches ("main" first).
func branchesOf(t *testing.T, dir string) []string {
	out := []string{snapshot.MainBranch}
	m, _ := filepath.Glob(filepath.Join(dir, "branch", "branch-*"))
	for _, b := range m {
		out = append(out, strings.TrimPrefix(filepath.Base(b), "branch-"))
	}
	return out
}

func TestFixtureTablesSnapshots(t *testing.T) {
	ctx := context.Background()
	tables := testutil.FixtureTables(t)
	if len(tables) < 40 {
		t.Fatalf("only %d fixture tables", len(tables))
	}
	checked := 0
	for name, dir := range tables {
		st := openDir(t, dir)
		for _, branch := range branchesOf(t, dir) {
			osDir := filepath.Join(dir, filepath.FromSlash(snapshot.SnapshotDir(branch)))
			want := idsOnDisk(t, osDir)
			sm := snapshot.NewSnapshotManager(st, branch)
			ids, err := sm.List(ctx)
			if err != nil {
				t.Fatalf("%s/%s: %v", name, branch, err)
			}
			if !slices.Equal(ids, want) || len(ids) == 0 {
				t.Fatalf("%s/%s: List = %v, files %v", name, branch, ids, want)
			}
			latest, err := sm.Latest(ctx)
			if err != nil || latest.ID != want[len(want)-1] {
				t.Fatalf("%s/%s: Latest = %v, %v; want %d", name, branch, latest, err, want[len(want)-1])
			}
			earliest, err := sm.Earliest(ctx)
			if err != nil || earliest.ID != want[0] {
				t.Fatalf("%s/%s: Earliest = %v, %v; want %d", name, branch, earliest, err, want[0])
			}
			// The Java-written hints agree with the files.
			if h := hintOnDisk(t, filepath.Join(osDir, "LATEST")); h != latest.ID {
				t.Errorf("%s/%s: LATEST hint %d, latest %d", name, branch, h, latest.ID)
			}
			if h := hintOnDisk(t, filepath.Join(osDir, "EARLIEST")); h != earliest.ID {
				t.Errorf("%s/%s: EARLIEST hint %d, earliest %d", name, branch, h, earliest.ID)
			}
			schemas := snapshot.NewSchemaManager(st, branch)
			var prevTime int64
			for _, id := range ids {
				s, err := sm.Snapshot(ctx, id)
				if err != nil {
					t.Fatalf("%s/%s: snapshot %d: %v", name, branch, id, err)
				}
				if s.TimeMillis < prevTime {
					t.Errorf("%s/%s: snapshot %d goes back in time", name, branch, id)
				}
				prevTime = s.TimeMillis
				ts, err := schemas.Schema(ctx, s.SchemaID)
				if err != nil {
					t.Fatalf("%s/%s: schema %d of snapshot %d: %v", name, branch, s.SchemaID, id, err)
				}
				if ts.ID != s.SchemaID || len(ts.Fields) == 0 {
					t.Errorf("%s/%s: schema %d decoded as %d with %d fields", name, branch, s.SchemaID, ts.ID, len(ts.Fields))
				}
				checked++
			}
			latestSchema, err := schemas.Latest(ctx)
			if err != nil || latestSchema.ID < latest.SchemaID {
				t.Errorf("%s/%s: latest schema %v, %v below snapshot's %d", name, branch, latestSchema, err, latest.SchemaID)
			}
			all, err := sm.All(ctx)
			if err != nil || len(all) != len(ids) {
				t.Fatalf("%s/%s: All = %d snapshots, %v", name, branch, len(all), err)
			}
			for i, s := range all {
				if s.ID != ids[i] {
					t.Errorf("%s/%s: All[%d] = %d", name, branch, i, s.ID)
				}
			}
			if ok, err := sm.Exists(ctx, latest.ID+1); err != nil || ok {
				t.Errorf("%s/%s: Exists(latest+1) = %v, %v", name, branch, ok, err)
			}
		}
	}
	if checked < 120 {
		t.Errorf("checked only %d snapshots", checked)
	}
}

func TestSnapshotNotFoundNamesRange(t *testing.T) {
	ctx := context.Background()
	dir := testutil.FixtureTables(t)["pk_table_scan_and_read_dv"]
	sm := snapshot.NewSnapshotManager(openDir(t, dir), "")
	_, err := sm.Snapshot(ctx, 42)
	if !errors.Is(err, snapshot.ErrSnapshotNotFound) {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(err.Error(), "snapshot 42") || !strings.Contains(err.Error(), "1..6") {
		t.Errorf("error %q does not name the id and the range 1..6", err)
	}
	empty := snapshot.NewSnapshotManager(openMem(t), "")
	if _, err := empty.Snapshot(ctx, 1); !errors.Is(err, snapshot.ErrSnapshotNotFound) || !strings.Contains(err.Error(), "no snapshots") {
		t.Errorf("empty table: %v", err)
	}
	if _, err := empty.Latest(ctx); !errors.Is(err, snapshot.ErrSnapshotNotFound) {
		t.Errorf("empty Latest: %v", err)
	}
	if _, err := empty.Earliest(ctx); !errors.Is(err, snapshot.ErrSnapshotNotFound) {
		t.Errorf("empty Earliest: %v", err)
	}
}

func TestEarlierOrEqualTimeFixtures(t *testing.T) {
	ctx := context.Background()
	lookups := 0
	for name, dir := range testutil.FixtureTables(t) {
		sm := snapshot.NewSnapshotManager(openDir(t, dir), "")
		ids, err := sm.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var snaps []*snapshot.Snapshot
		for _, id := range ids {
			s, err := sm.Snapshot(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			snaps = append(snaps, s)
		}
		// expect computes the answer by a linear scan.
		expect := func(ms int64) snapshot.SnapshotID {
			var best snapshot.SnapshotID
			for _, s := range snaps {
				if s.TimeMillis <= ms {
					best = s.ID
				}
			}
			return best
		}
		probes := []int64{snaps[0].TimeMillis - 1}
		for _, s := range snaps {
			probes = append(probes, s.TimeMillis, s.TimeMillis+1, s.TimeMillis-1)
		}
		probes = append(probes, snaps[len(snaps)-1].TimeMillis+86400000)
		for _, ms := range probes {
			got, err := sm.EarlierOrEqualTime(ctx, ms)
			want := expect(ms)
			if want == 0 {
				if !errors.Is(err, snapshot.ErrSnapshotNotFound) {
					t.Errorf("%s: time %d before the earliest: got %v, %v", name, ms, got, err)
				}
				continue
			}
			if err != nil || got.ID != want {
				t.Errorf("%s: time %d: got %v, %v; want snapshot %d", name, ms, got, err, want)
			}
			lookups++
		}
	}
	if lookups < 200 {
		t.Errorf("only %d lookups", lookups)
	}
}

// writeSnapshots writes snapshots with the given ids into st, snapshot id
// committed at time 1000*id.
func writeSnapshots(t *testing.T, st storage.Storage, branch string, ids ...snapshot.SnapshotID) {
	t.Helper()
	for _, id := range ids {
		s := &snapshot.Snapshot{
			Version: snapshot.CurrentSnapshotVersion, ID: id, BaseManifestList: "b", DeltaManifestList: "d",
			CommitUser: "u", CommitKind: snapshot.CommitKindAppend, TimeMillis: 1000 * int64(id),
			LogOffsets: map[int32]int64{},
		}
		data, err := snapshot.EncodeSnapshot(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.CreateIfNotExists(context.Background(), snapshot.SnapshotPath(branch, id), data); err != nil {
			t.Fatal(err)
		}
	}
}

func writeHint(t *testing.T, st storage.Storage, hint, content string) {
	t.Helper()
	if err := st.WriteAll(context.Background(), snapshot.HintPath("", hint), []byte(content)); err != nil {
		t.Fatal(err)
	}
}

func TestHintEdgeCases(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name             string
		ids              []snapshot.SnapshotID
		earliest, latest string // "" = no hint file
		wantE, wantL     snapshot.SnapshotID
	}{
		{"no hints", []snapshot.SnapshotID{3, 4, 5}, "", "", 3, 5},
		{"exact hints", []snapshot.SnapshotID{3, 4, 5}, "3", "5", 3, 5},
		{"stale latest", []snapshot.SnapshotID{3, 4, 5}, "3", "4", 3, 5},
		{"latest too far", []snapshot.SnapshotID{3, 4, 5}, "3", "9", 3, 5},
		{"latest zero", []snapshot.SnapshotID{1, 2}, "1", "0", 1, 2},
		{"latest negative", []snapshot.SnapshotID{1, 2}, "1", "-1", 1, 2},
		{"corrupt hints", []snapshot.SnapshotID{1, 2}, "x", "2x", 1, 2},
		{"empty hints", []snapshot.SnapshotID{1, 2}, " ", "", 1, 2},
		{"hint with newline", []snapshot.SnapshotID{1, 2}, "1\n", "2\n", 1, 2},
		{"earliest expired", []snapshot.SnapshotID{4, 5}, "2", "5", 4, 5},
		{"earliest in gap", []snapshot.SnapshotID{2, 4, 7}, "3", "7", 2, 7},
		// The EARLIEST hint is trusted when its snapshot exists, even if an
		// older one is still being deleted (Java does the same).
		{"earliest newer than min", []snapshot.SnapshotID{2, 3, 4}, "3", "4", 3, 4},
		// Commits never leave gaps above the latest id, so like Java the
		// hint is trusted when snapshot-(hint+1) is absent.
		{"latest before gap", []snapshot.SnapshotID{1, 2, 5}, "1", "2", 1, 2},
	} {
		st := openMem(t)
		writeSnapshots(t, st, "", tc.ids...)
		if tc.earliest != "" {
			writeHint(t, st, snapshot.EarliestHint, tc.earliest)
		}
		if tc.latest != "" {
			writeHint(t, st, snapshot.LatestHint, tc.latest)
		}
		sm := snapshot.NewSnapshotManager(st, "")
		e, ok, err := sm.EarliestID(ctx)
		if err != nil || !ok || e != tc.wantE {
			t.Errorf("%s: EarliestID = %d %v %v, want %d", tc.name, e, ok, err, tc.wantE)
		}
		l, ok, err := sm.LatestID(ctx)
		if err != nil || !ok || l != tc.wantL {
			t.Errorf("%s: LatestID = %d %v %v, want %d", tc.name, l, ok, err, tc.wantL)
		}
		if s, err := sm.Latest(ctx); err != nil || s.ID != tc.wantL {
			t.Errorf("%s: Latest = %v %v", tc.name, s, err)
		}
	}
}

func TestEarlierOrEqualTimeWithGaps(t *testing.T) {
	ctx := context.Background()
	st := openMem(t)
	ids := []snapshot.SnapshotID{3, 4, 8, 9, 10, 15, 21}
	writeSnapshots(t, st, "", ids...)
	sm := snapshot.NewSnapshotManager(st, "")
	for ms := int64(0); ms <= 25000; ms += 250 {
		var want snapshot.SnapshotID
		for _, id := range ids {
			if 1000*int64(id) <= ms {
				want = id
			}
		}
		got, err := sm.EarlierOrEqualTime(ctx, ms)
		if want == 0 {
			if !errors.Is(err, snapshot.ErrSnapshotNotFound) || !strings.Contains(err.Error(), "earliest, 3") {
				t.Errorf("%d: %v %v", ms, got, err)
			}
			continue
		}
		if err != nil || got.ID != want {
			t.Errorf("%d: got %v %v, want %d", ms, got, err, want)
		}
	}
	// Equal times: the last snapshot of the millisecond wins.
	st2 := openMem(t)
	for id := snapshot.SnapshotID(1); id <= 6; id++ {
		s := &snapshot.Snapshot{Version: 3, ID: id, BaseManifestList: "b", DeltaManifestList: "d",
			CommitKind: snapshot.CommitKindCompact, TimeMillis: 500 * ((int64(id) + 1) / 2)}
		data, _ := snapshot.EncodeSnapshot(s)
		if err := st2.WriteAll(ctx, snapshot.SnapshotPath("", id), data); err != nil {
			t.Fatal(err)
		}
	}
	sm2 := snapshot.NewSnapshotManager(st2, "")
	for ms, want := range map[int64]snapshot.SnapshotID{500: 2, 999: 2, 1000: 4, 1500: 6, 9999: 6} {
		if got, err := sm2.EarlierOrEqualTime(ctx, ms); err != nil || got.ID != want {
			t.Errorf("equal times, %d: got %v %v, want %d", ms, got, err, want)
		}
	}
}

func TestCorruptSnapshotFile(t *testing.T) {
	ctx := context.Background()
	st := openMem(t)
	writeSnapshots(t, st, "", 1)
	if err := st.WriteAll(ctx, "snapshot/snapshot-2", []byte(`{"id" : 2,`)); err != nil {
		t.Fatal(err)
	}
	sm := snapshot.NewSnapshotManager(st, "")
	if _, err := sm.Latest(ctx); !errors.Is(err, snapshot.ErrCorrupt) || !strings.Contains(err.Error(), "snapshot-2") {
		t.Errorf("truncated file: %v", err)
	}
	// A file whose id does not match its name is corrupt.
	data, _ := snapshot.EncodeSnapshot(&snapshot.Snapshot{Version: 3, ID: 7, CommitKind: snapshot.CommitKindAppend})
	if err := st.WriteAll(ctx, "snapshot/snapshot-3", data); err != nil {
		t.Fatal(err)
	}
	if _, err := sm.Snapshot(ctx, 3); !errors.Is(err, snapshot.ErrCorrupt) {
		t.Errorf("mismatched id: %v", err)
	}
	// Stray files in the snapshot directory are not snapshots.
	for _, p := range []string{"snapshot/snapshot-", "snapshot/snapshot-01", "snapshot/snapshot-x",
		"snapshot/.snapshot-9.abc.tmp", "snapshot/snapshot-5/nested"} {
		if err := st.WriteAll(ctx, p, []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	ids, err := sm.List(ctx)
	if err != nil || !slices.Equal(ids, []snapshot.SnapshotID{1, 2, 3}) {
		t.Errorf("List = %v %v", ids, err)
	}
}

func TestFixtureBranches(t *testing.T) {
	ctx := context.Background()
	tables := testutil.FixtureTables(t)
	for _, tc := range []struct {
		table, branch string
		snapshots     []snapshot.SnapshotID
		schemas       []schema.SchemaID
		mainSnaps     []snapshot.SnapshotID
	}{
		{"append_table_with_append_pt_branch", "test", []snapshot.SnapshotID{1, 2}, []schema.SchemaID{0, 1}, []snapshot.SnapshotID{1, 2}},
		{"append_table_with_rt_branch", "rt", []snapshot.SnapshotID{1}, []schema.SchemaID{0, 1}, []snapshot.SnapshotID{1}},
	} {
		dir := tables[tc.table]
		st := openDir(t, dir)
		bm := snapshot.NewBranchManager(st)
		branches, err := bm.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(branches) != 1 || branches[0].Name != tc.branch {
			t.Fatalf("%s: branches %+v", tc.table, branches)
		}
		// CreateTime is the earliest file time inside the branch directory.
		var want time.Time
		filepath.Walk(filepath.Join(dir, "branch"), func(p string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() && (want.IsZero() || fi.ModTime().Before(want)) {
				want = fi.ModTime()
			}
			return nil
		})
		if !branches[0].CreateTime.Equal(want) {
			t.Errorf("%s: create time %v, want %v", tc.table, branches[0].CreateTime, want)
		}
		for name, want := range map[string]bool{tc.branch: true, "main": true, "": true, "nope": false} {
			if ok, err := bm.Exists(ctx, name); err != nil || ok != want {
				t.Errorf("%s: Exists(%q) = %v %v", tc.table, name, ok, err)
			}
		}
		if err := bm.Check(ctx, "nope"); !errors.Is(err, snapshot.ErrBranchNotFound) {
			t.Errorf("Check(nope) = %v", err)
		}
		if _, err := bm.Exists(ctx, "123"); !errors.Is(err, snapshot.ErrInvalidName) {
			t.Errorf("numeric branch name accepted: %v", err)
		}
		ids, err := bm.Snapshots(tc.branch).List(ctx)
		if err != nil || !slices.Equal(ids, tc.snapshots) {
			t.Errorf("%s: branch snapshots %v %v", tc.table, ids, err)
		}
		schemaIDs, err := bm.Schemas(tc.branch).List(ctx)
		if err != nil || !slices.Equal(schemaIDs, tc.schemas) {
			t.Errorf("%s: branch schemas %v %v", tc.table, schemaIDs, err)
		}
		mainIDs, err := snapshot.NewSnapshotManager(st, "main").List(ctx)
		if err != nil || !slices.Equal(mainIDs, tc.mainSnaps) {
			t.Errorf("%s: main snapshots %v %v", tc.table, mainIDs, err)
		}
		// The branch's snapshots are its own files, not main's.
		bs, err := bm.Snapshots(tc.branch).Latest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ms, err := snapshot.NewSnapshotManager(st, "").Snapshot(ctx, bs.ID)
		if err != nil {
			t.Fatal(err)
		}
		if bs.CommitUser == ms.CommitUser && bs.TimeMillis == ms.TimeMillis {
			t.Errorf("%s: branch snapshot %d looks like main's", tc.table, bs.ID)
		}
		// No tags in these fixtures, on main or on the branch.
		for _, b := range []string{"", tc.branch} {
			if tags, err := bm.Tags(b).List(ctx); err != nil || len(tags) != 0 {
				t.Errorf("%s/%s: tags %v %v", tc.table, b, tags, err)
			}
		}
	}
	// A table without branches.
	bm := snapshot.NewBranchManager(openDir(t, tables["pk_09"]))
	if b, err := bm.List(ctx); err != nil || len(b) != 0 {
		t.Errorf("pk_09 branches: %v %v", b, err)
	}
}
