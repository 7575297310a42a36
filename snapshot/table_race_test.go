package snapshot_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// The local store's List walks a folder lazily: it reads the top folder
// once and each sub-folder when it gets there, so one listing of a table
// folder can hold the manifest files of a table created after it began
// without its schema/ or snapshot/ folder (issue 12). These tests pause
// such a walk at its first bucket-0/ object (storage.Injector.Listed) and
// create the table again inside the pause.

const raceTable = "default.db/dd"

// localWarehouse is a warehouse in a temporary folder holding the files
// given (the leftovers of a dropped dd: no schema).
func localWarehouse(t *testing.T, files ...string) storage.Storage {
	t.Helper()
	ctx := context.Background()
	st, err := storage.Open(ctx, "file://"+t.TempDir()+"?fsync=false")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range append([]string{"default.db/" + snapshot.DatabaseMarker}, files...) {
		if err := st.WriteAll(ctx, f, []byte("leftover")); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

// pauseWalk returns an Injector whose nth listing of dd that reaches a
// bucket-0/ object stops there until release is closed; paused is closed
// when it does.
func pauseWalk(nth int) (in *storage.Injector, paused, release chan struct{}) {
	paused, release = make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	seen := map[int64]bool{}
	var once sync.Once
	in = &storage.Injector{Listed: func(op storage.Op, obj storage.ObjectInfo) storage.ObjectInfo {
		if !strings.HasPrefix(op.Path, raceTable) || !strings.HasPrefix(obj.Path, "bucket-0/") {
			return obj
		}
		mu.Lock()
		seen[op.N] = true
		n := len(seen)
		mu.Unlock()
		if n == nth {
			once.Do(func() { close(paused); <-release })
		}
		return obj
	}}
	return in, paused, release
}

// commitTwice commits two appends to the table at tst and returns the
// snapshots with the live files each must hold.
func commitTwice(t *testing.T, tst storage.Storage) ([]*snapshot.Snapshot, []model) {
	t.Helper()
	want := model{}
	var snaps []*snapshot.Snapshot
	var wants []model
	for _, f := range []fileSpec{{name: "new-1", part: 1, rows: 3}, {name: "new-2", part: 2, rows: 4}} {
		e := add(t, f)
		want.apply(t, []manifest.ManifestEntry{e})
		snaps = append(snaps, commitOrFail(t, snapshot.NewCommitter(tst, testOptions()), &snapshot.CommitChanges{Kind: snapshot.CommitKindAppend, CommitUser: "new", Entries: []manifest.ManifestEntry{e}}))
		w := model{}
		for k, v := range want {
			w[k] = v
		}
		wants = append(wants, w)
	}
	return snaps, wants
}

// TestCreateRacingCreateKeepsWinnerFiles: two CREATE TABLEs of one name
// on two servers, over the leftovers of a dropped table. The loser's walk
// of the folder (clearing the leftovers) stalls after the top folder was
// read; the winner creates the table and commits twice inside the stall.
// The loser must answer "already exists" and leave every file of the
// winner: before, its walk reached manifest/ (but not schema/, which did
// not exist when it began) and deleted the winner's manifest lists.
func TestCreateRacingCreateKeepsWinnerFiles(t *testing.T) {
	ctx := context.Background()
	st := localWarehouse(t, raceTable+"/bucket-0/old.orc", raceTable+"/manifest/manifest-old")
	in, paused, release := pauseWalk(1)
	loser := snapshot.NewCatalog(storage.NewFaulty(st, in))
	winner := snapshot.NewCatalog(st)
	ts, err := schema.DecodeTableSchema([]byte(testSchemaJSON))
	if err != nil {
		t.Fatal(err)
	}
	lost := make(chan error, 1)
	go func() { lost <- loser.CreateTable(ctx, "default", "dd", ts, false) }()
	select {
	case <-paused:
	case err := <-lost:
		t.Fatalf("the loser's CREATE ended without listing the leftovers: %v", err)
	}
	if err := winner.CreateTable(ctx, "default", "dd", ts, false); err != nil {
		t.Fatalf("winner: %v", err)
	}
	tst := winner.TableStorage("default", "dd")
	snaps, wants := commitTwice(t, tst)
	close(release)
	if err := <-lost; !errors.Is(err, snapshot.ErrTableExists) {
		t.Fatalf("loser: %v, want table already exists", err)
	}
	for i, s := range snaps {
		checkLive(t, tst, s, wants[i])
	}
	checkLive(t, tst, commitOrFail(t, snapshot.NewCommitter(tst, testOptions()), &snapshot.CommitChanges{Kind: snapshot.CommitKindAppend, CommitUser: "new"}), wants[1])
}

// TestDropSweepSparesLaterIncarnation: a drop of dd on one server, its
// sweep (the listing after the schemas were deleted) stalled after the top
// folder was read, and dd created again on another server inside the
// stall, with two commits: by lakesql (whose CREATE checked for a drop
// just before the drop's marker was written) or by another engine (which
// knows no marker). Afterwards dd is either gone whole or whole: never a
// schema and snapshots whose manifest lists the sweep deleted.
func TestDropSweepSparesLaterIncarnation(t *testing.T) {
	for _, by := range []string{"lakesql", "another engine"} {
		t.Run(by, func(t *testing.T) {
			ctx := context.Background()
			st := localWarehouse(t)
			ts, err := schema.DecodeTableSchema([]byte(testSchemaJSON))
			if err != nil {
				t.Fatal(err)
			}
			tst := st.Sub(raceTable)
			// lakesql's CREATE, stopped at its schema commit: its checks
			// for a drop are behind it.
			atSchema, schemaGo, waiting := make(chan struct{}), make(chan struct{}), make(chan struct{})
			var schemaOnce, waitingOnce sync.Once
			created := make(chan error, 1)
			if by == "lakesql" {
				creator := snapshot.NewCatalog(storage.NewFaulty(st, &storage.Injector{Decide: func(op storage.Op) storage.Fault {
					switch {
					case op.Kind == storage.OpCreateIfNotExists && op.Path == raceTable+"/schema/schema-0":
						schemaOnce.Do(func() { close(atSchema); <-schemaGo })
					case op.Kind == storage.OpList && op.Path == raceTable+"/"+snapshot.TableDroppingPrefix && isClosed(schemaGo):
						// Past its schema, it looks for a running drop.
						waitingOnce.Do(func() { close(waiting) })
					}
					return storage.NoFault
				}}))
				go func() { created <- creator.CreateTable(ctx, "default", "dd", ts, false) }()
				<-atSchema
			}
			// A writer of the dropped incarnation still writing.
			for _, f := range []string{"/bucket-0/stale.orc", "/manifest/manifest-stale"} {
				if err := st.WriteAll(ctx, raceTable+f, []byte("stale")); err != nil {
					t.Fatal(err)
				}
			}
			in, paused, release := pauseWalk(2) // the first listing deletes the schemas
			dropped := make(chan error, 1)
			go func() { dropped <- snapshot.DeleteTableFiles(ctx, storage.NewFaulty(st, in).Sub(raceTable)) }()
			select {
			case <-paused:
			case err := <-dropped:
				t.Fatalf("the drop ended without sweeping: %v", err)
			}
			var snaps []*snapshot.Snapshot
			if by == "lakesql" {
				close(schemaGo)
				// The CREATE either ends inside the stall (then its table
				// takes two commits) or waits for the drop to end.
				select {
				case err := <-created:
					if err != nil {
						t.Fatalf("create: %v", err)
					}
					t.Log("the CREATE ended inside the drop's stall")
					snaps, _ = commitTwice(t, tst)
					created <- nil
				case <-waiting:
					t.Log("the CREATE waits for the drop")
				}
			} else {
				if err := snapshot.NewSchemaManager(tst, "").Commit(ctx, ts); err != nil {
					t.Fatal(err)
				}
				snaps, _ = commitTwice(t, tst)
			}
			close(release)
			if err := <-dropped; err != nil {
				t.Fatalf("drop: %v", err)
			}
			if by == "lakesql" {
				if err := <-created; err != nil && !errors.Is(err, snapshot.ErrTableNotFound) {
					t.Fatalf("create racing the drop: %v", err)
				}
			}
			checkGoneOrWhole(t, st, len(snaps))
		})
	}
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// checkGoneOrWhole fails unless the table folder holds no schema, no
// snapshot and no manifest, or holds a schema and every snapshot reads.
func checkGoneOrWhole(t *testing.T, st storage.Storage, commits int) {
	t.Helper()
	ctx := context.Background()
	var left []string
	for obj, err := range st.List(ctx, raceTable+"/") {
		if err != nil {
			t.Fatal(err)
		}
		left = append(left, obj.Path)
		if strings.Contains(obj.Path, snapshot.TableDroppingPrefix) {
			t.Errorf("drop marker left behind: %s", obj.Path)
		}
	}
	tst := st.Sub(raceTable)
	if _, err := snapshot.NewSchemaManager(tst, "").Latest(ctx); errors.Is(err, snapshot.ErrSchemaNotFound) {
		for _, p := range left {
			if strings.Contains(p, "/snapshot/") || strings.Contains(p, "/manifest/") {
				t.Fatalf("dd has no schema but still holds %v", left)
			}
		}
		return
	} else if err != nil {
		t.Fatal(err)
	}
	sm := snapshot.NewSnapshotManager(tst, "")
	latest, err := sm.Latest(ctx)
	if err != nil || (latest == nil) != (commits == 0) || (latest != nil && int(latest.ID) != commits) {
		t.Fatalf("dd has a schema; latest snapshot %v (%v), want %d; files %v", latest, err, commits, left)
	}
	for id := int64(1); id <= int64(commits); id++ {
		s, err := sm.Snapshot(ctx, snapshot.SnapshotID(id))
		if err != nil {
			t.Fatalf("dd has a schema; snapshot %d: %v", id, err)
		}
		if _, err := snapshot.LiveEntries(ctx, tst, s, nil); err != nil {
			t.Fatalf("dd has a schema; snapshot %d does not read: %v (files %v)", id, err, left)
		}
	}
}

// TestUnpublishSparesSnapshotOfTableCreatedAgain: a commit whose check
// after publishing finds its table dropped takes its snapshot back, but
// only while the snapshot file is its own: here the drop, a CREATE of the
// same name and the new table's first commit (snapshot 1 again) ran
// between its publish and its check. Before, the take-back deleted the
// new table's snapshot 1 by number.
func TestUnpublishSparesSnapshotOfTableCreatedAgain(t *testing.T) {
	ctx := context.Background()
	st, st2, ts := twoServers(t)
	tst, tst2 := st.Sub(raceTable), st2.Sub(raceTable)
	old := identity(t, tst)
	var again sync.Once
	var want model
	var theirs *snapshot.Snapshot
	in := &storage.Injector{Decide: func(op storage.Op) storage.Fault {
		if op.Kind != storage.OpReadAll || op.Path != raceTable+"/schema/schema-0" {
			return storage.NoFault
		}
		if ok, _ := st.Exists(ctx, raceTable+"/snapshot/snapshot-1"); !ok {
			return storage.NoFault // the check before publishing
		}
		again.Do(func() { // the check after: drop, create, commit
			if err := snapshot.DeleteTableFiles(ctx, tst2); err != nil {
				t.Error(err)
				return
			}
			time.Sleep(2 * time.Millisecond) // another schema-0 timeMillis
			if err := snapshot.NewCatalog(st2).CreateTable(ctx, "default", "dd", ts, false); err != nil {
				t.Error(err)
				return
			}
			e := add(t, fileSpec{name: "new-1", part: 1, rows: 3})
			want = model{}
			want.apply(t, []manifest.ManifestEntry{e})
			var err error
			theirs, err = snapshot.NewCommitter(tst2, identity(t, tst2)).Commit(ctx, 0, &snapshot.CommitChanges{Kind: snapshot.CommitKindAppend, CommitUser: "new", Entries: []manifest.ManifestEntry{e}})
			if err != nil {
				t.Error(err)
			}
		})
		return storage.NoFault
	}}
	w := snapshot.NewCommitter(storage.NewFaulty(st, in).Sub(raceTable), old)
	_, err := w.Commit(ctx, 0, &snapshot.CommitChanges{Kind: snapshot.CommitKindAppend, CommitUser: "old", Entries: []manifest.ManifestEntry{add(t, fileSpec{name: "old-1", part: 1, rows: 2})}})
	if !errors.Is(err, snapshot.ErrTableDropped) {
		t.Fatalf("the old table's commit: %v, want ErrTableDropped", err)
	}
	if theirs == nil {
		t.Fatal("the table was not created again between the commit's publish and its check")
	}
	got, err := snapshot.NewSnapshotManager(tst2, "").Latest(ctx)
	if err != nil || got == nil || got.ID != theirs.ID || got.CommitUser != "new" {
		t.Fatalf("the new table's latest snapshot: %+v (%v), want its own snapshot %d", got, err, theirs.ID)
	}
	checkLive(t, tst2, got, want)
}

// TestCommitOfDroppedTableDoesNotPublishIntoNewTable: a commit whose
// table is dropped and created again under its name while it writes its
// files (here: when they are written, before the snapshot is published)
// fails with ErrTableDropped and publishes nothing into the new table.
// Before, it checked its table before writing its files and published its
// snapshot 1 into the new table, whose readers then found manifests the
// drop had deleted until the commit's check after publishing took it back
// (a writer of the new table that built on it in between lost them for
// good).
func TestCommitOfDroppedTableDoesNotPublishIntoNewTable(t *testing.T) {
	ctx := context.Background()
	st, st2, ts := twoServers(t)
	tst, tst2 := st.Sub(raceTable), st2.Sub(raceTable)
	opts := identity(t, tst)
	// A reader of the new table, while the old table's commit checks its
	// table after publishing.
	var readErr error
	var read sync.Once
	in := &storage.Injector{Decide: func(op storage.Op) storage.Fault {
		if op.Kind != storage.OpReadAll || op.Path != raceTable+"/schema/schema-0" {
			return storage.NoFault
		}
		if ok, _ := st2.Exists(ctx, raceTable+"/snapshot/snapshot-1"); ok {
			read.Do(func() {
				s, err := snapshot.NewSnapshotManager(tst2, "").Latest(ctx)
				if err == nil {
					_, err = snapshot.LiveEntries(ctx, tst2, s, nil)
				}
				readErr = err
			})
		}
		return storage.NoFault
	}}
	var created bool
	_, err := snapshot.NewCommitter(storage.NewFaulty(st, in).Sub(raceTable), opts).Commit(ctx, 0, &snapshot.CommitChanges{
		Kind: snapshot.CommitKindAppend, CommitUser: "old",
		Entries: []manifest.ManifestEntry{add(t, fileSpec{name: "old-1", part: 1, rows: 2})},
		Durable: func(context.Context) error {
			// Its files are written: another server drops the table and
			// creates it again.
			if !created {
				created = true
				if err := snapshot.DeleteTableFiles(ctx, tst2); err != nil {
					return err
				}
				time.Sleep(2 * time.Millisecond) // another schema-0 timeMillis
				return snapshot.NewCatalog(st2).CreateTable(ctx, "default", "dd", ts, false)
			}
			return nil
		},
	})
	if !errors.Is(err, snapshot.ErrTableDropped) {
		t.Fatalf("the old table's commit: %v, want ErrTableDropped", err)
	}
	if readErr != nil {
		t.Fatalf("a read of the new table while the old table's commit was published there: %v", readErr)
	}
	if s, err := snapshot.NewSnapshotManager(tst2, "").Latest(ctx); !errors.Is(err, snapshot.ErrSnapshotNotFound) {
		t.Fatalf("the new table's latest snapshot: %+v, %v; want none", s, err)
	}
}

// twoServers returns two opens of one warehouse holding table dd (their
// commit locks, per process and by URL, differ, as two servers' do) and
// dd's schema.
func twoServers(t *testing.T) (st, st2 storage.Storage, ts *schema.TableSchema) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	var err error
	if st, err = storage.Open(ctx, "file://"+dir+"?fsync=false"); err != nil {
		t.Fatal(err)
	}
	if st2, err = storage.Open(ctx, "file://"+dir); err != nil {
		t.Fatal(err)
	}
	if ts, err = schema.DecodeTableSchema([]byte(testSchemaJSON)); err != nil {
		t.Fatal(err)
	}
	if err := snapshot.NewCatalog(st).CreateTable(ctx, "default", "dd", ts, false); err != nil {
		t.Fatal(err)
	}
	return st, st2, ts
}

// identity is the commit options of a writer of the table at tst as it
// is now (its schema-0's timeMillis).
func identity(t *testing.T, tst storage.Storage) snapshot.CommitOptions {
	t.Helper()
	sch, err := snapshot.NewSchemaManager(tst, "").Latest(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	o := testOptions()
	o.SchemaTimeMillis = sch.TimeMillis
	return o
}

// TestStaleCommitLinksNothingIntoNewTable: a commit of a table that is
// dropped and created again under its name between its check before
// publishing and its publish (on the local store, the link of its staged
// snapshot file) fails with ErrTableDropped and publishes nothing into
// the new table. Before, the drop did not see the hidden staged file, the
// link put the old table's snapshot 1 into the new table, and a reader of
// the new table failed on its manifest list, which the drop had deleted,
// until the commit's check after publishing took it back (the transient
// 1105 of issue 12's racer).
func TestStaleCommitLinksNothingIntoNewTable(t *testing.T) {
	ctx := context.Background()
	st, st2, ts := twoServers(t)
	tst, tst2 := st.Sub(raceTable), st2.Sub(raceTable)
	opts := identity(t, tst)
	var created, read sync.Once
	var readErr error
	in := &storage.Injector{Stage: true, Decide: func(op storage.Op) storage.Fault {
		switch {
		case op.Kind == storage.OpCreateIfNotExists && op.Path == raceTable+"/snapshot/snapshot-1":
			// Checked, about to link: another server drops the table
			// and creates it again.
			created.Do(func() {
				if err := snapshot.DeleteTableFiles(ctx, tst2); err != nil {
					t.Error(err)
					return
				}
				time.Sleep(2 * time.Millisecond) // another schema-0 timeMillis
				if err := snapshot.NewCatalog(st2).CreateTable(ctx, "default", "dd", ts, false); err != nil {
					t.Error(err)
				}
			})
		case op.Kind == storage.OpReadAll && op.Path == raceTable+"/schema/schema-0":
			// A reader of the new table while the old table's commit may
			// be published there.
			if ok, _ := st2.Exists(ctx, raceTable+"/snapshot/snapshot-1"); ok {
				read.Do(func() {
					s, err := snapshot.NewSnapshotManager(tst2, "").Latest(ctx)
					if err == nil {
						_, err = snapshot.LiveEntries(ctx, tst2, s, nil)
					}
					readErr = err
				})
			}
		}
		return storage.NoFault
	}}
	_, err := snapshot.NewCommitter(storage.NewFaulty(st, in).Sub(raceTable), opts).Commit(ctx, 0, &snapshot.CommitChanges{
		Kind: snapshot.CommitKindAppend, CommitUser: "old",
		Entries: []manifest.ManifestEntry{add(t, fileSpec{name: "old-1", part: 1, rows: 2})},
	})
	if !errors.Is(err, snapshot.ErrTableDropped) {
		t.Fatalf("the old table's commit: %v, want ErrTableDropped", err)
	}
	if readErr != nil {
		t.Fatalf("a read of the new table while the old table's commit was published there: %v", readErr)
	}
	if s, err := snapshot.NewSnapshotManager(tst2, "").Latest(ctx); !errors.Is(err, snapshot.ErrSnapshotNotFound) {
		t.Fatalf("the new table's latest snapshot: %+v, %v; want none", s, err)
	}
}
