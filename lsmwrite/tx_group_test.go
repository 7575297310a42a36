package lsmwrite_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/snapshot"
)

// TestCommitGroupedBatches: transactions queued while a commit of the
// table runs are committed together in one snapshot, in order (a later
// one's value of a key wins), and each returns the batch's snapshot.
func TestCommitGroupedBatches(t *testing.T) {
	st, ts := txTable(t)
	ctx := context.Background()
	_, unlock := snapshot.LockCommits(ctx, []string{snapshot.CommitLockKey(st, "")})
	const n = 20
	snaps := make([]*snapshot.Snapshot, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	commit := func(i int) {
		defer wg.Done()
		snaps[i], errs[i] = lsmwrite.CommitGrouped(ctx, st, lsmwrite.TxCommit{
			Schema:  ts,
			Records: []kv.KeyValue{{Kind: kv.Insert, Value: []any{int32(i % 5), int32(i)}}},
		})
	}
	// The first leads alone and waits for the lock; the others queue
	// behind it, one at a time so their order is known.
	wg.Add(1)
	go commit(0)
	waitFor(t, func() bool { return lsmwrite.GroupWaiting(st, "") == 0 })
	for i := 1; i < n; i++ {
		wg.Add(1)
		go commit(i)
		waitFor(t, func() bool { return lsmwrite.GroupWaiting(st, "") == i })
	}
	unlock()
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("transaction %d: %v", i, err)
		}
	}
	if snaps[0].ID != 1 {
		t.Errorf("the first transaction committed snapshot %d, want 1", snaps[0].ID)
	}
	for i := 1; i < n; i++ {
		if snaps[i].ID != 2 {
			t.Errorf("queued transaction %d committed snapshot %d, want 2 (one batch)", i, snaps[i].ID)
		}
	}
	for k := range int32(5) {
		if got, want := valueOf(t, st, ts, k), k+15; got != want {
			t.Errorf("k=%d has %v, want %d (the last transaction's)", k, got, want)
		}
	}
}

// TestCommitGroupedReadConflictInBatch: a transaction that read a key an
// earlier transaction of its batch writes fails with ErrReadConflict, alone.
func TestCommitGroupedReadConflictInBatch(t *testing.T) {
	st, ts := txTable(t)
	ctx := context.Background()
	if _, err := lsmwrite.CommitTransaction(ctx, st, lsmwrite.TxCommit{Schema: ts,
		Records: []kv.KeyValue{{Kind: kv.Insert, Value: []any{int32(1), int32(10)}}}}); err != nil {
		t.Fatal(err)
	}
	key1 := string(kv.AppendKey(nil, []any{int32(1)}, []int{0}))
	key2 := string(kv.AppendKey(nil, []any{int32(2)}, []int{0}))
	_, unlock := snapshot.LockCommits(ctx, []string{snapshot.CommitLockKey(st, "")})
	txs := []lsmwrite.TxCommit{
		{Records: []kv.KeyValue{{Kind: kv.Insert, Value: []any{int32(9), int32(9)}}}},  // leads alone
		{Records: []kv.KeyValue{{Kind: kv.Insert, Value: []any{int32(1), int32(11)}}}}, // blind write of k=1
		{Records: []kv.KeyValue{{Kind: kv.Insert, Value: []any{int32(1), int32(12)}}}, ReadBase: 1, // read k=1 at 1: conflicts with the one before
			ReadKey: func(k []byte) bool { return string(k) == key1 }},
		{Records: []kv.KeyValue{{Kind: kv.Insert, Value: []any{int32(2), int32(20)}}}, ReadBase: 1, // read k=2: commits
			ReadKey: func(k []byte) bool { return string(k) == key2 }},
	}
	errs := make([]error, len(txs))
	var wg sync.WaitGroup
	for i := range txs {
		txs[i].Schema = ts
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = lsmwrite.CommitGrouped(ctx, st, txs[i])
		}()
		waitFor(t, func() bool { return lsmwrite.GroupWaiting(st, "") == i })
	}
	unlock()
	wg.Wait()
	for i, err := range errs {
		if conflict := errors.Is(err, lsmwrite.ErrReadConflict); conflict != (i == 2) || (err != nil && !conflict) {
			t.Errorf("transaction %d: %v", i, err)
		}
	}
	for k, want := range map[int32]any{1: int32(11), 2: int32(20), 9: int32(9)} {
		if got := valueOf(t, st, ts, k); got != want {
			t.Errorf("k=%d has %v, want %v", k, got, want)
		}
	}
	if latest, err := snapshot.NewSnapshotManager(st, "").Latest(ctx); err != nil || latest.ID != 3 {
		t.Errorf("latest snapshot %v (%v), want 3: the leader's, then one for the batch", latest, err)
	}
}

// TestCommitGroupedCanceledWhileQueued: a transaction whose context ends
// while it waits in the queue leaves it and commits nothing.
func TestCommitGroupedCanceledWhileQueued(t *testing.T) {
	st, ts := txTable(t)
	ctx := context.Background()
	_, unlock := snapshot.LockCommits(ctx, []string{snapshot.CommitLockKey(st, "")})
	var wg sync.WaitGroup
	var err0 error
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, err0 = lsmwrite.CommitGrouped(ctx, st, lsmwrite.TxCommit{Schema: ts, Records: []kv.KeyValue{{Kind: kv.Insert, Value: []any{int32(1), int32(1)}}}})
	}()
	waitFor(t, func() bool { return lsmwrite.GroupWaiting(st, "") == 0 })
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() {
		_, err := lsmwrite.CommitGrouped(cctx, st, lsmwrite.TxCommit{Schema: ts, Records: []kv.KeyValue{{Kind: kv.Insert, Value: []any{int32(2), int32(2)}}}})
		done <- err
	}()
	waitFor(t, func() bool { return lsmwrite.GroupWaiting(st, "") == 1 })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled while queued: %v", err)
	}
	unlock()
	wg.Wait()
	if err0 != nil {
		t.Fatal(err0)
	}
	if got := valueOf(t, st, ts, 2); got != nil {
		t.Errorf("the canceled transaction's row is there: %v", got)
	}
	// The queue still works.
	if _, err := lsmwrite.CommitGrouped(ctx, st, lsmwrite.TxCommit{Schema: ts, Records: []kv.KeyValue{{Kind: kv.Insert, Value: []any{int32(3), int32(3)}}}}); err != nil {
		t.Fatal(err)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal(fmt.Errorf("timed out waiting"))
		}
		time.Sleep(time.Millisecond)
	}
}
