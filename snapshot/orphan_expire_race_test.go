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
