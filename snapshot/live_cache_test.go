package snapshot_test

import (
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"testing"

	"github.com/lakesql/lakesql/internal/testutil"
	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// A whole-snapshot scan (through the cached live set) gives the entries and
// statistics of the same scan naming the snapshot's lists (which merges the
// manifests every time), with and without filters, for every snapshot of
// every Java fixture table, twice (cold and cached); snapshots in order,
// so most are merged from the previous snapshot's live set, and those that
// only add files are appended to it (appendOnly).
func TestCachedLiveSetEqualsMerge(t *testing.T) {
	ctx := context.Background()
	names := func(es []manifest.ManifestEntry) []string {
		var out []string
		for _, e := range es {
			out = append(out, fmt.Sprintf("%x/%d/%d/%s", e.Partition, e.Bucket, e.File.Level, e.File.FileName))
		}
		return out
	}
	compared, reused, appended := 0, snapshot.LiveSetsReused(), snapshot.LiveSetsAppended()
	for _, dir := range testutil.FixtureTables(t) {
		tbl := snapshot.OpenTable(openDir(t, dir), "")
		ids, err := tbl.Snapshots().List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			snap, err := tbl.Snapshots().Snapshot(ctx, id)
			if err != nil {
				continue // expired or unreadable: not what this test is about
			}
			for seed := range 3 {
				// seed 0: no filter; 1, 2: a partition/bucket hash filter
				// and a manifest filter on the bucket range.
				opts := func() snapshot.ScanOptions {
					if seed == 0 {
						return snapshot.ScanOptions{}
					}
					return snapshot.ScanOptions{
						KeepManifest: func(m *manifest.ManifestFileMeta) bool {
							return m.MinBucket == nil || m.MaxBucket == nil || *m.MinBucket <= manifest.Bucket(seed) || *m.MaxBucket >= 0
						},
						KeepEntry: func(e *manifest.ManifestEntry) bool {
							h := fnv.New32a()
							fmt.Fprintf(h, "%x/%d/%d", e.Partition, e.Bucket, seed)
							return h.Sum32()%3 != 0
						},
					}
				}
				want, wantStats, werr := tbl.Scan(ctx, snap, func() snapshot.ScanOptions {
					o := opts()
					o.Lists = []string{snap.BaseManifestList, snap.DeltaManifestList}
					return o
				}())
				for round := range 2 {
					got, gotStats, gerr := tbl.Scan(ctx, snap, opts())
					if (werr != nil) != (gerr != nil) {
						t.Fatalf("%s snapshot %d: errors differ: %v vs %v", dir, id, werr, gerr)
					}
					if werr != nil {
						continue
					}
					if !slices.Equal(names(got), names(want)) {
						t.Fatalf("%s snapshot %d seed %d round %d: cached scan\n%v\nmerged scan\n%v", dir, id, seed, round, names(got), names(want))
					}
					if seed == 0 && gotStats != wantStats || gotStats.ManifestsTotal != wantStats.ManifestsTotal || gotStats.ManifestsPruned != wantStats.ManifestsPruned {
						t.Fatalf("%s snapshot %d seed %d: stats %+v, merged %+v", dir, id, seed, gotStats, wantStats)
					}
					compared++
				}
			}
		}
	}
	if compared < 100 {
		t.Fatalf("compared only %d scans", compared)
	}
	if snapshot.LiveSetsReused()-reused < 20 {
		t.Fatalf("only %d live sets were merged from an earlier one", snapshot.LiveSetsReused()-reused)
	}
	if n := snapshot.LiveSetsAppended() - appended; n < 10 {
		t.Fatalf("only %d live sets were appended to an earlier one", n)
	}
	t.Logf("%d scans compared, %d live sets from an earlier one, %d of them appended", compared, snapshot.LiveSetsReused()-reused, snapshot.LiveSetsAppended()-appended)
}
