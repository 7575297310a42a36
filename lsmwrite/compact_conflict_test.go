package lsmwrite_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/snapshot"
)

// TestCompactGivesWayToConcurrentCompaction: a compaction whose input
// files another compaction replaced before it committed reports the
// conflict, commits nothing and deletes every file it wrote; the table
// reads as before, and a later compaction works on the new files.
func TestCompactGivesWayToConcurrentCompaction(t *testing.T) {
	ctx := context.Background()
	st, ts := txTable(t)
	for i := range 6 {
		_, err := lsmwrite.CommitTransaction(ctx, st, lsmwrite.TxCommit{Schema: ts,
			Records: []kv.KeyValue{{Kind: kv.Insert, Value: []any{int32(i % 4), int32(i)}}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	tbl := snapshot.OpenTable(st, "")
	dataFiles := func() map[string]bool {
		t.Helper()
		out := map[string]bool{}
		for _, b := range []string{"bucket-0/", "bucket-1/"} {
			for in, err := range st.List(ctx, b) {
				if err != nil {
					t.Fatal(err)
				}
				if strings.HasSuffix(in.Path, ".parquet") {
					out[in.Path] = true
				}
			}
		}
		return out
	}
	before := dataFiles()
	var winner *lsmwrite.CompactOutcome
	loser, err := lsmwrite.Compact(ctx, tbl, lsmwrite.CompactRequest{Full: true,
		Progress: func(done, total int, _ lsmwrite.CompactStats) {
			if done == total && total > 0 && winner == nil {
				// Another compaction of the same files commits first.
				var err error
				if winner, err = lsmwrite.Compact(ctx, tbl, lsmwrite.CompactRequest{Full: true}); err != nil {
					t.Fatal(err)
				}
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if winner == nil || winner.Snapshot == nil {
		t.Fatalf("the concurrent compaction committed nothing: %+v", winner)
	}
	if loser.Conflict == nil || !errors.Is(loser.Conflict, snapshot.ErrConflict) || loser.Snapshot != nil {
		t.Fatalf("the late compaction: %+v, want a conflict and no snapshot", loser)
	}
	// Exactly the winner's files were added: the loser's are gone.
	after := dataFiles()
	added := 0
	for f := range after {
		if !before[f] {
			added++
		}
	}
	if added != winner.Stats.FilesAfter-winner.Stats.Upgraded {
		t.Errorf("%d new data files, the winning compaction wrote %d: the loser left files behind", added, winner.Stats.FilesAfter-winner.Stats.Upgraded)
	}
	for k, want := range map[int32]int32{0: 4, 1: 5, 2: 2, 3: 3} {
		if got := valueOf(t, st, ts, k); got != want {
			t.Errorf("key %d = %v, want %d", k, got, want)
		}
	}
	if latest, err := tbl.Snapshots().Latest(ctx); err != nil || latest.ID != winner.Snapshot.ID {
		t.Fatalf("latest snapshot %v (%v), want the winner's %d", latest, err, winner.Snapshot.ID)
	}
}
