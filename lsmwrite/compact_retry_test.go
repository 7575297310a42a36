package lsmwrite_test

import (
	"context"
	"errors"
	"testing"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/snapshot"
)

// TestCompactGivingWayCompactsAgain: an explicit compaction that gives way
// to a concurrent compaction of its files (the server's automatic one)
// compacts again at the newer snapshot and commits; with one attempt it
// reports the conflict, as every attempt's outcome does.
func TestCompactGivingWayCompactsAgain(t *testing.T) {
	for _, attempts := range []int{1, lsmwrite.CompactAttempts} {
		ctx := context.Background()
		st, ts := txTable(t)
		insert := func(k, v int32) {
			t.Helper()
			_, err := lsmwrite.CommitTransaction(ctx, st, lsmwrite.TxCommit{Schema: ts,
				Records: []kv.KeyValue{{Kind: kv.Insert, Value: []any{k, v}}}})
			if err != nil {
				t.Fatal(err)
			}
		}
		for i := range 6 {
			insert(int32(i%4), int32(i))
		}
		tbl := snapshot.OpenTable(st, "")
		raced := false
		var retries []error
		out, err := lsmwrite.CompactGivingWay(ctx, tbl, lsmwrite.CompactRequest{Full: true,
			Progress: func(done, total int, _ lsmwrite.CompactStats) {
				if done == total && total > 0 && !raced {
					raced = true
					// Another compaction of the same files commits first,
					// then a writer adds a row to be compacted again.
					if _, err := lsmwrite.Compact(ctx, tbl, lsmwrite.CompactRequest{Full: true}); err != nil {
						t.Fatal(err)
					}
					insert(1, 40)
				}
			}}, attempts, func(attempt int, conflict error) {
			if attempt != len(retries)+2 {
				t.Errorf("retry called for attempt %d after %d retries", attempt, len(retries))
			}
			retries = append(retries, conflict)
		})
		if err != nil {
			t.Fatal(err)
		}
		if attempts == 1 {
			if out.Conflict == nil || !errors.Is(out.Conflict, snapshot.ErrConflict) || out.Snapshot != nil || len(retries) != 0 {
				t.Fatalf("one attempt: %+v, %d retries; want its conflict and no snapshot", out, len(retries))
			}
			continue
		}
		if len(retries) != 1 || !errors.Is(retries[0], snapshot.ErrConflict) {
			t.Fatalf("retries %v, want one after the conflict", retries)
		}
		if out.Conflict != nil || out.Snapshot == nil {
			t.Fatalf("after giving way once: %+v, want a COMPACT snapshot", out)
		}
		latest, err := tbl.Snapshots().Latest(ctx)
		if err != nil || latest.ID != out.Snapshot.ID {
			t.Fatalf("latest %v (%v), want the retried compaction's %d", latest, err, out.Snapshot.ID)
		}
		for k, want := range map[int32]int32{0: 4, 1: 40, 2: 2, 3: 3} {
			if got := valueOf(t, st, ts, k); got != want {
				t.Errorf("key %d = %v, want %d", k, got, want)
			}
		}
	}
}
