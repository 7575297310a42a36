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

// TestExpireLeavesNoHintInDroppedTable: an expiration with nothing to
// expire writes a missing EARLIEST hint; when the table is dropped between
// its look for the hint and the write (a drop's sweep lists the folder
// once), the hint must not stay in the dropped table's folder (found by
// TestSQLDropTableRacingInserts: "DROP TABLE left 1 files behind:
// [snapshot/EARLIEST]").
func TestExpireLeavesNoHintInDroppedTable(t *testing.T) {
	ctx := context.Background()
	st, err := storage.Open(ctx, "mem://")
	if err != nil {
		t.Fatal(err)
	}
	newTestTable(t, st)
	m := &expireModel{t: t, ctx: ctx, st: st, rng: rand.New(rand.NewPCG(5, 9)),
		clock: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), content: map[string]string{},
		live: map[string]map[snapshot.SnapshotID]model{snapshot.MainBranch: {}}, consumers: map[string]snapshot.SnapshotID{}}
	m.commit(snapshot.MainBranch)
	hint := snapshot.HintPath(snapshot.MainBranch, snapshot.EarliestHint)
	if err := st.Delete(ctx, hint); err != nil {
		t.Fatal(err)
	}
	// The expiration's read of the hint finds it missing; the table is
	// then dropped (every object deleted) before the expiration writes.
	// The expiration reads the hint twice: to find the earliest snapshot,
	// then to see whether it must write it; the drop comes after the
	// second read.
	var once sync.Once
	reads := 0
	in := &storage.Injector{Decide: func(op storage.Op) storage.Fault {
		if op.Kind == storage.OpReadAll && strings.HasSuffix(op.Path, "snapshot/"+snapshot.EarliestHint) {
			if reads++; reads < 2 {
				return storage.NoFault
			}
			once.Do(func() {
				for obj, err := range st.List(ctx, "") {
					if err != nil {
						t.Fatal(err)
					}
					if err := st.Delete(ctx, obj.Path); err != nil {
						t.Fatal(err)
					}
				}
			})
		}
		return storage.NoFault
	}}
	tbl := snapshot.OpenTable(storage.NewFaulty(st, in), snapshot.MainBranch)
	if _, err := tbl.ExpireSnapshots(ctx, snapshot.ExpireConfig{RetainMin: 1, RetainMax: 10, MaxDeletes: 1000, Now: m.now}); err != nil {
		t.Logf("expire: %v", err)
	}
	if reads < 2 {
		t.Fatalf("the expiration read the EARLIEST hint %d times; the test drops the table after the second read", reads)
	}
	var left []string
	for obj, err := range st.List(ctx, "") {
		if err != nil {
			t.Fatal(err)
		}
		left = append(left, obj.Path)
	}
	if len(left) != 0 {
		t.Fatalf("the dropped table's folder holds %v after the expiration", left)
	}
}
