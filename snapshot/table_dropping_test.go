package snapshot_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/internal/storage/storagetest"
	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// TestDropRacingCreateInsert (issue 12): a DROP TABLE on one catalog
// paused between deleting the schemas and sweeping the folder, and a
// CREATE TABLE + commit of the same name on another catalog of the same
// warehouse. The CREATE waits for the drop (it finds the drop's live
// marker); once the drop ends the new table holds its commit and takes
// another. Without the marker the CREATE and commit finish inside the
// pause and the sweep deletes their files.
func TestDropRacingCreateInsert(t *testing.T) {
	ctx := context.Background()
	st, err := storage.Open(ctx, "mem://")
	if err != nil {
		t.Fatal(err)
	}
	const table = "default.db/dd/"
	paused, release := make(chan struct{}), make(chan struct{})
	var pausedOnce sync.Once
	var schemaDeleted atomic.Bool
	dropper := snapshot.NewCatalog(storage.NewFaulty(st, &storage.Injector{Decide: func(op storage.Op) storage.Fault {
		switch {
		case op.Kind == storage.OpDelete && strings.HasPrefix(op.Path, table+"schema/"):
			schemaDeleted.Store(true)
		case op.Kind == storage.OpList && strings.HasPrefix(op.Path, table) && schemaDeleted.Load():
			// The sweep starts: pause it.
			pausedOnce.Do(func() { close(paused); <-release })
		}
		return storage.NoFault
	}}))
	var lists atomic.Int64
	waiting := make(chan struct{})
	var waitingOnce sync.Once
	creator := snapshot.NewCatalog(storage.NewFaulty(st, &storage.Injector{Decide: func(op storage.Op) storage.Fault {
		// The CREATE lists the table folder again: it waits.
		if op.Kind == storage.OpList && strings.TrimSuffix(op.Path, "/")+"/" == table && lists.Add(1) == 2 {
			waitingOnce.Do(func() { close(waiting) })
		}
		return storage.NoFault
	}}))
	ts, err := schema.DecodeTableSchema([]byte(testSchemaJSON))
	if err != nil {
		t.Fatal(err)
	}
	if err := dropper.CreateTable(ctx, "default", "dd", ts, false); err != nil {
		t.Fatal(err)
	}
	old := snapshot.NewCommitter(dropper.TableStorage("default", "dd"), testOptions())
	commitOrFail(t, old, &snapshot.CommitChanges{Kind: snapshot.CommitKindAppend, CommitUser: "old", Entries: []manifest.ManifestEntry{add(t, fileSpec{name: "old-1", part: 1, rows: 2})}})

	dropDone := make(chan error, 1)
	go func() { dropDone <- dropper.DropTable(ctx, "default", "dd", false) }()
	<-paused

	tst := creator.TableStorage("default", "dd")
	want := model{}
	first := add(t, fileSpec{name: "new-1", part: 1, rows: 3})
	want.apply(t, []manifest.ManifestEntry{first})
	// The commit lock is per process and the drop holds it: the commit
	// of the new table runs after the drop here (on another server it
	// would not wait), but its CREATE races the sweep.
	created, createDone := make(chan error, 1), make(chan error, 1)
	go func() {
		err := creator.CreateTable(ctx, "default", "dd", ts, false)
		created <- err
		if err == nil {
			_, err = snapshot.NewCommitter(tst, testOptions()).Commit(ctx, 0, &snapshot.CommitChanges{Kind: snapshot.CommitKindAppend, CommitUser: "new", Entries: []manifest.ManifestEntry{first}})
		}
		createDone <- err
	}()
	select {
	case <-waiting:
	case err := <-created: // the race: created inside the pause
		if err != nil {
			t.Fatalf("create: %v", err)
		}
	}
	close(release)
	if err := <-dropDone; err != nil {
		t.Fatalf("drop: %v", err)
	}
	if err := <-createDone; err != nil {
		t.Fatalf("create + commit: %v", err)
	}
	sm := snapshot.NewSnapshotManager(tst, "")
	snap, err := sm.Latest(ctx)
	if err != nil || snap == nil {
		t.Fatalf("latest snapshot of the new table: %v %v", snap, err)
	}
	checkLive(t, tst, snap, want)
	second := add(t, fileSpec{name: "new-2", part: 2, rows: 4})
	want.apply(t, []manifest.ManifestEntry{second})
	checkLive(t, tst, commitOrFail(t, snapshot.NewCommitter(tst, testOptions()), &snapshot.CommitChanges{Kind: snapshot.CommitKindAppend, CommitUser: "new", Entries: []manifest.ManifestEntry{second}}), want)
	for obj, err := range st.List(ctx, table) {
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(obj.Path, snapshot.TableDroppingPrefix) {
			t.Errorf("drop marker left behind: %s", obj.Path)
		}
	}
}

// TestDropMarkerOfCrashedDrop: the marker a crashed drop left (older than
// the staleness limit) holds no CREATE up, and the next drop of a table
// holding one deletes it; a fresh marker (a running drop) is not a table
// and a drop of the table leaves it to its drop.
func TestDropMarkerOfCrashedDrop(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := storage.Open(ctx, "file://"+dir+"?fsync=false")
	if err != nil {
		t.Fatal(err)
	}
	c := snapshot.NewCatalog(st)
	stale := func(name string) {
		t.Helper()
		p := "default.db/dd/" + snapshot.TableDroppingPrefix + name
		if err := st.WriteAll(ctx, p, nil); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-time.Hour)
		if err := os.Chtimes(filepath.Join(dir, filepath.FromSlash(p)), old, old); err != nil {
			t.Fatal(err)
		}
	}
	markers := func() (n int) {
		t.Helper()
		for obj, err := range st.List(ctx, "default.db/dd/") {
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(obj.Path, snapshot.TableDroppingPrefix) {
				n++
			}
		}
		return n
	}
	stale("crashed-before-create")
	if err := c.CreateTable(ctx, "default", "dd", oneColumn(), false); err != nil {
		t.Fatal(err)
	}
	if n := markers(); n != 0 {
		t.Fatalf("CREATE left %d stale markers", n)
	}
	stale("crashed-in-live-table")
	if err := c.DropTable(ctx, "default", "dd", false); err != nil {
		t.Fatal(err)
	}
	if n := markers(); n != 0 {
		t.Fatalf("DROP left %d stale markers", n)
	}
	if err := st.WriteAll(ctx, "default.db/dd/"+snapshot.TableDroppingPrefix+"running", nil); err != nil {
		t.Fatal(err)
	}
	if tables, err := c.ListTables(ctx, "default"); err != nil || len(tables) != 0 {
		t.Fatalf("a folder holding a running drop's marker lists as tables %v (%v)", tables, err)
	}
	// A running drop holds the CREATE up until the drop ends or the
	// CREATE's context does.
	cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if err := c.CreateTable(cctx, "default", "dd", oneColumn(), false); err == nil || !strings.Contains(err.Error(), "being dropped") {
		t.Fatalf("CREATE during a running drop with its context done: %v, want an error saying the table is being dropped", err)
	}
}

// TestDropMarkerOnSkewedStoreClock: a marker's age is measured on the
// store's clock (the modification times are the store's), not the local
// one. A store an hour behind: a running drop's fresh marker still holds
// a CREATE up (on the local clock it looked an hour old, crashed, and the
// CREATE deleted it and went on). A store an hour ahead: a crashed drop's
// marker (an hour old on the store's clock) holds nothing up.
func TestDropMarkerOnSkewedStoreClock(t *testing.T) {
	for _, skew := range []time.Duration{-time.Hour, time.Hour} {
		t.Run(skew.String(), func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			base, err := storage.Open(ctx, "file://"+dir+"?fsync=false")
			if err != nil {
				t.Fatal(err)
			}
			c := snapshot.NewCatalog(storagetest.Skewed{Storage: base, Skew: skew})
			p := "default.db/dd/" + snapshot.TableDroppingPrefix + "x"
			if err := base.WriteAll(ctx, p, nil); err != nil {
				t.Fatal(err)
			}
			if skew > 0 { // crashed an hour ago
				old := time.Now().Add(-time.Hour)
				if err := os.Chtimes(filepath.Join(dir, filepath.FromSlash(p)), old, old); err != nil {
					t.Fatal(err)
				}
			}
			cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
			defer cancel()
			err = c.CreateTable(cctx, "default", "dd", oneColumn(), false)
			if skew < 0 {
				if err == nil || !strings.Contains(err.Error(), "being dropped") {
					t.Fatalf("CREATE while a drop runs, store clock %v: %v, want an error saying the table is being dropped", skew, err)
				}
				if ok, err := base.Exists(ctx, p); err != nil || !ok {
					t.Fatalf("the running drop's marker is gone (%v)", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("CREATE over a crashed drop's marker, store clock %v: %v", skew, err)
			}
			if ok, err := base.Exists(ctx, p); err != nil || ok {
				t.Fatalf("the crashed drop's marker is still there (%v)", err)
			}
		})
	}
}

// TestCrashedCreateClockProbeIsCleanedUp: a CREATE TABLE that judges a
// drop's marker reads the store's clock with a probe object; one whose
// process dies between writing the probe and deleting it leaves the probe
// in lakesql's private folder, where the warehouse clean-up deletes it
// once old, and nothing at the top of the table folder (where orphan
// cleaning does not look).
func TestCrashedCreateClockProbeIsCleanedUp(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	base, err := storage.Open(ctx, "file://"+filepath.ToSlash(dir)+"?fsync=false")
	if err != nil {
		t.Fatal(err)
	}
	p := "default.db/dd/" + snapshot.TableDroppingPrefix + "crashed"
	if err := base.WriteAll(ctx, p, nil); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(dir, filepath.FromSlash(p)), old, old); err != nil {
		t.Fatal(err)
	}
	var probe atomic.Pointer[string]
	st := storage.NewFaulty(base, &storage.Injector{Decide: func(op storage.Op) storage.Fault {
		switch {
		case op.Kind == storage.OpWriteAll && strings.Contains(op.Path, "clock"):
			probe.Store(&op.Path)
		case op.Kind == storage.OpDelete && probe.Load() != nil && op.Path == *probe.Load():
			return storage.CrashBefore // the process dies before the probe's delete
		}
		return storage.NoFault
	}})
	c := snapshot.NewCatalog(st)
	if err := c.CreateTable(ctx, "default", "dd", oneColumn(), false); err == nil {
		t.Fatal("CREATE TABLE succeeded although its process died")
	}
	if probe.Load() == nil {
		t.Fatal("no clock probe was written: the test does not test")
	}
	var top []string
	for info, err := range base.List(ctx, "default.db/") {
		if err != nil {
			t.Fatal(err)
		}
		if rest := strings.TrimPrefix(info.Path, "default.db/dd/"); !strings.Contains(rest, "/") && rest != snapshot.TableDroppingPrefix+"crashed" {
			top = append(top, info.Path)
		}
	}
	if len(top) > 0 {
		t.Errorf("the crashed CREATE left %v at the top of the table folder", top)
	}
	// An hour later by the store's clock the warehouse clean-up removes it.
	removed, err := snapshot.RemoveWarehouseTemporaries(ctx, base, time.Now().Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 1 || removed[0] != *probe.Load() {
		t.Errorf("the warehouse clean-up removed %v, want the probe %s", removed, *probe.Load())
	}
	if ok, err := base.Exists(ctx, *probe.Load()); err != nil || ok {
		t.Errorf("the probe %s is still there (%v)", *probe.Load(), err)
	}
}
