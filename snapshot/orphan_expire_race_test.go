package snapshot_test

import (
	"context"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot"
)

// TestOrphanFilesDuringExpiration: orphan-file cleaning that runs while an
// expiration deletes snapshots (manifests first, snapshot files last) reads
// snapshots whose manifests just went; it must scan again instead of
// failing with "file does not exist" (found by the kill -9 test), and the
// retained snapshots keep every file.
func TestOrphanFilesDuringExpiration(t *testing.T) {
	ctx := context.Background()
	st, err := storage.Open(ctx, "mem://")
	if err != nil {
		t.Fatal(err)
	}
	newTestTable(t, st)
	m := &expireModel{t: t, ctx: ctx, st: st, rng: rand.New(rand.NewPCG(3, 7)),
		clock: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), content: map[string]string{},
		live: map[string]map[snapshot.SnapshotID]model{snapshot.MainBranch: {}}, consumers: map[string]snapshot.SnapshotID{}}
	for range 60 {
		m.commit(snapshot.MainBranch)
	}
	// The orphan scan reads through a wrapper that, at its first read of
	// a manifest list, lets an expiration (retain at most two
	// snapshots, no time retention) run to completion: the scan then meets the manifests of
	// snapshots it listed as gone.
	tbl := snapshot.OpenTable(st, snapshot.MainBranch)
	var once sync.Once
	expired := 0
	in := &storage.Injector{Decide: func(op storage.Op) storage.Fault {
		if (op.Kind == storage.OpReadAll || op.Kind == storage.OpOpen) && strings.Contains(op.Path, "manifest-list-") {
			once.Do(func() {
				res, err := tbl.ExpireSnapshots(ctx, snapshot.ExpireConfig{RetainMin: 1, RetainMax: 2, MaxDeletes: 1000, Now: m.now})
				if err != nil {
					t.Errorf("expire: %v", err)
				}
				expired = res.Snapshots
			})
		}
		return storage.NoFault
	}}
	res, err := snapshot.RemoveOrphanFiles(ctx, storage.NewFaulty(st, in), time.Now().Add(time.Hour), true)
	if err != nil {
		t.Fatalf("remove_orphan_files (dry run) while %d snapshots expired: %v", expired, err)
	}
	if expired < 50 {
		t.Fatalf("the expiration during the scan expired %d snapshots, want all but one or two of 60", expired)
	}
	// What it would remove is what no retained snapshot uses: the
	// retained snapshots still read.
	for _, p := range res.Paths {
		if strings.Contains(p, "snapshot-") {
			t.Errorf("orphan cleaning would remove %s", p)
		}
	}
	ids, err := tbl.Snapshots().List(ctx)
	if err != nil || len(ids) == 0 || len(ids) > 2 {
		t.Fatalf("snapshots after the expiration: %v, %v", ids, err)
	}
	kept := map[snapshot.SnapshotID]model{}
	for _, id := range ids {
		kept[id] = m.live[snapshot.MainBranch][id]
	}
	m.live[snapshot.MainBranch] = kept
	if _, err := snapshot.RemoveOrphanFiles(ctx, st, time.Now().Add(time.Hour), false); err != nil {
		t.Fatal(err)
	}
	m.verify()
}

// TestOrphanFilesAfterCrashedExpiration: an expiration that crashed after
// deleting the expired snapshots' manifests but before their snapshot files
// (the kill -9 test found one) leaves half-expired snapshots at the start
// of the list; orphan-file cleaning skips them, reads the first whole
// snapshot in full, and removes nothing a whole snapshot uses.
func TestOrphanFilesAfterCrashedExpiration(t *testing.T) {
	ctx := context.Background()
	st, err := storage.Open(ctx, "mem://")
	if err != nil {
		t.Fatal(err)
	}
	newTestTable(t, st)
	m := &expireModel{t: t, ctx: ctx, st: st, rng: rand.New(rand.NewPCG(5, 7)),
		clock: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), content: map[string]string{},
		live: map[string]map[snapshot.SnapshotID]model{snapshot.MainBranch: {}}, consumers: map[string]snapshot.SnapshotID{}}
	for range 30 {
		m.commit(snapshot.MainBranch)
	}
	crash := storage.CrashAt(1, false, func(op storage.Op) bool {
		return op.Kind == storage.OpDelete && strings.Contains(op.Path, "snapshot/snapshot-")
	})
	_, err = snapshot.OpenTable(storage.NewFaulty(st, crash), snapshot.MainBranch).
		ExpireSnapshots(ctx, snapshot.ExpireConfig{RetainMin: 1, RetainMax: 5, MaxDeletes: 1000, Now: m.now})
	if err == nil || !crash.Crashed() {
		t.Fatalf("the expiration did not crash before deleting a snapshot file: %v", err)
	}
	snapshot.DropCaches() // a restarted server
	tbl := snapshot.OpenTable(st, snapshot.MainBranch)
	ids, err := tbl.Snapshots().List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var whole []snapshot.SnapshotID
	broken := 0
	for _, id := range ids {
		s, err := tbl.Snapshots().Snapshot(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := snapshot.Scan(ctx, st, s, snapshot.ScanOptions{}); err != nil {
			broken++
			if len(whole) > 0 {
				t.Fatalf("snapshot %d after a whole one does not read: %v", id, err)
			}
			continue
		}
		whole = append(whole, id)
	}
	if broken == 0 || len(whole) == 0 {
		t.Fatalf("after the crash: %d half-expired and %d whole snapshots, want some of each", broken, len(whole))
	}
	snapshot.DropCaches()
	res, err := snapshot.RemoveOrphanFiles(ctx, st, time.Now().Add(time.Hour), false)
	if err != nil {
		t.Fatalf("remove_orphan_files after a crashed expiration (%d half-expired snapshots): %v", broken, err)
	}
	for _, id := range whole {
		s, err := tbl.Snapshots().Snapshot(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		live, _, err := snapshot.Scan(ctx, st, s, snapshot.ScanOptions{})
		if err != nil {
			t.Fatalf("snapshot %d no longer reads after orphan cleaning: %v", id, err)
		}
		for _, e := range live {
			p := dataPath(partOf(t, e), int32(e.Bucket), e.File.FileName)
			if ok, err := st.Exists(ctx, p); err != nil || !ok {
				t.Errorf("snapshot %d: %s was removed by orphan cleaning (%v)", id, p, err)
			}
		}
	}
	t.Logf("%d half-expired snapshots skipped, %d whole ones kept their files; %d files removed", broken, len(whole), res.Files)
}
