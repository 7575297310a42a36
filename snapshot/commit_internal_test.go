package snapshot

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/internal/testutil"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// TestPartitionStatsMatchJava recomputes the _PARTITION_STATS of every
// manifest of every fixture table from its entries and compares them with
// what Java wrote.
func TestPartitionStatsMatchJava(t *testing.T) {
	ctx := context.Background()
	checked := 0
	for name, dir := range testutil.FixtureTables(t) {
		st, err := storage.OpenLocal(dir)
		if err != nil {
			t.Fatal(err)
		}
		snaps, err := NewSnapshotManager(st, "").All(ctx)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		seen := map[string]bool{}
		for _, s := range snaps {
			ts, err := NewSchemaManager(st, "").Schema(ctx, s.SchemaID)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			ps := newPartitionStats(fieldTypes(ts.PartitionFields()))
			metas, err := dataManifests(ctx, st, s)
			if errors.Is(err, manifest.ErrORCManifest) {
				break // ORC manifests are not read by lakesql
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for _, m := range metas {
				if seen[m.FileName] {
					continue
				}
				seen[m.FileName] = true
				data, err := st.ReadAll(ctx, manifest.Path(m.FileName))
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				entries, err := manifest.ReadManifest(data, m.FileName)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				got, err := ps.of(entries)
				if err != nil {
					t.Fatalf("%s/%s: %v", name, m.FileName, err)
				}
				want := m.PartitionStats
				if !bytes.Equal(got.MinValues, want.MinValues) || !bytes.Equal(got.MaxValues, want.MaxValues) ||
					!slices.EqualFunc(got.NullCounts, want.NullCounts, func(a, b *int64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }) {
					t.Errorf("%s/%s: partition stats\ngot  min %x max %x nulls %v\nwant min %x max %x nulls %v", name, m.FileName,
						got.MinValues, got.MaxValues, deref(got.NullCounts), want.MinValues, want.MaxValues, deref(want.NullCounts))
				}
				checked++
			}
		}
		st.Close()
	}
	t.Logf("%d manifests checked", checked)
	if checked < 50 {
		t.Fatalf("only %d manifests checked", checked)
	}
}

func deref(p []*int64) []any {
	out := make([]any, len(p))
	for i, v := range p {
		if v != nil {
			out[i] = *v
		}
	}
	return out
}
