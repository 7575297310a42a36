package snapshot_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// TestExpireDecoupledChangelog: with the changelog kept longer than the
// snapshots, expiring snapshots writes changelog/changelog-<id> for each
// and keeps its changelog files; expiring the changelogs then deletes
// them, as Java's ExpireSnapshotsImpl and ExpireChangelogImpl do. Both
// changelog producers' cases: with a producer (changelog files), and
// without (the APPEND data files are the changelog).
func TestExpireDecoupledChangelog(t *testing.T) {
	for _, produce := range []bool{true, false} {
		t.Run(fmt.Sprintf("produce=%v", produce), func(t *testing.T) {
			ctx := context.Background()
			st, err := storage.Open(ctx, "mem://")
			if err != nil {
				t.Fatal(err)
			}
			newTestTable(t, st)
			clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			now := func() time.Time { return clock }
			opts := testOptions()
			opts.Now = now
			write := func(name string) {
				if err := st.WriteAll(ctx, dataPath(0, 0, name), []byte(name)); err != nil {
					t.Fatal(err)
				}
			}
			var prev string
			for i := 1; i <= 8; i++ {
				data, log := fmt.Sprintf("data-%d.parquet", i), fmt.Sprintf("changelog-%d.parquet", i)
				write(data)
				ch := &snapshot.CommitChanges{Kind: snapshot.CommitKindAppend, CommitUser: "u",
					CommitIdentifier: int64(i), Entries: []manifest.ManifestEntry{add(t, fileSpec{name: data, rows: 1, minKey: data, maxKey: data})}}
				if prev != "" && i%2 == 0 { // every other commit compacts the previous file away
					ch.Kind = snapshot.CommitKindCompact
					ch.Entries = append(ch.Entries, del(t, fileSpec{name: prev, rows: 1, minKey: prev, maxKey: prev}))
				}
				if produce {
					write(log)
					ch.ChangelogEntries = []manifest.ManifestEntry{add(t, fileSpec{name: log, rows: 1, minKey: log, maxKey: log})}
				}
				if _, err := snapshot.NewCommitter(st, opts).Commit(ctx, 0, ch); err != nil {
					t.Fatal(err)
				}
				prev = data
				clock = clock.Add(time.Minute)
			}
			tbl := snapshot.OpenTable(st, "")
			cfg := snapshot.ExpireConfig{RetainMin: 3, RetainMax: 3, MaxDeletes: 50, Now: now,
				ChangelogDecoupled: true, ProduceChangelog: produce, ChangelogRetainMin: 6, ChangelogRetainMax: 6}
			res, err := tbl.ExpireSnapshots(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if res.Snapshots != 5 || res.Earliest != 6 {
				t.Fatalf("expire: %+v", res)
			}
			cm := snapshot.NewChangelogManager(st, "")
			ids, err := cm.List(ctx)
			if err != nil || !slices.Equal(ids, []snapshot.SnapshotID{1, 2, 3, 4, 5}) {
				t.Fatalf("long-lived changelogs %v, %v", ids, err)
			}
			if id, _, _ := cm.LatestID(ctx); id != 5 {
				t.Errorf("changelog LATEST %d, want 5", id)
			}
			// Every changelog's changelog files (or its added data files) and
			// manifest lists are still there.
			for _, id := range ids {
				c, err := cm.Snapshot(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				lists := []string{c.DeltaManifestList}
				if produce {
					lists = []string{*c.ChangelogManifestList}
				}
				for _, l := range lists {
					if _, err := snapshot.CachedManifestList(ctx, st, l); err != nil {
						t.Fatalf("changelog %d: list %s: %v", id, l, err)
					}
				}
				name := fmt.Sprintf("changelog-%d.parquet", id)
				if !produce {
					name = fmt.Sprintf("data-%d.parquet", id)
				}
				if ok, _ := st.Exists(ctx, dataPath(0, 0, name)); !ok {
					t.Errorf("changelog %d: %s was deleted", id, name)
				}
			}

			// Changelog retention: keep 6 of the 8 snapshot ids (3..8),
			// so changelogs 1 and 2 go.
			cres, err := tbl.ExpireChangelogs(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if ids, _ := cm.List(ctx); cres.Changelogs != 2 || !slices.Equal(ids, []snapshot.SnapshotID{3, 4, 5}) {
				t.Fatalf("expire changelogs: %+v, left %v", cres, ids)
			}
			if id, _, _ := cm.EarliestID(ctx); id != 3 {
				t.Errorf("changelog EARLIEST %d, want 3", id)
			}
			for _, n := range []int{1, 2} {
				if produce {
					if ok, _ := st.Exists(ctx, dataPath(0, 0, fmt.Sprintf("changelog-%d.parquet", n))); ok {
						t.Errorf("changelog file %d survived its changelog", n)
					}
				}
			}
			// Everything left is used by a snapshot or a long-lived
			// changelog, and expiration left nothing behind.
			o, err := snapshot.RemoveOrphanFiles(ctx, st, time.Now().Add(time.Hour), true)
			if err != nil {
				t.Fatal(err)
			}
			if o.Files != 0 {
				t.Errorf("orphans after expiring snapshots and changelogs: %v", o.Paths)
			}
		})
	}
}
