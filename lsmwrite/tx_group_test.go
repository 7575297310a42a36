package lsmwrite_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/storage"
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

// gatedStorage holds the publish of one snapshot (CreateIfNotExists of a
// path ending in gate) until release is closed, saying so on hit.
type gatedStorage struct {
	storage.Storage
	gate         string
	hit, release chan struct{}
	once         sync.Once
}

func (g *gatedStorage) CreateIfNotExists(ctx context.Context, p string, data []byte) error {
	if strings.HasSuffix(p, g.gate) {
		g.once.Do(func() { close(g.hit) })
		<-g.release
	}
	return g.Storage.CreateIfNotExists(ctx, p, data)
}

// TestCommitGroupedGathersReturningWriters: writers that commit again as
// soon as their batch returns join the next batch instead of waiting a
// whole commit behind it: the next leader waits for as many of them as
// the batch had (gather). A and B commit together in snapshot 2 while C
// queues; C's batch takes A's and B's next commits with it (snapshot 3,
// not C alone and then A and B in 4).
func TestCommitGroupedGathersReturningWriters(t *testing.T) {
	defer lsmwrite.SetGatherTimes(time.Minute, time.Minute)() // arrivals, not time, end the wait here
	mem, ts := txTable(t)
	st := &gatedStorage{Storage: mem, gate: "snapshot-2", hit: make(chan struct{}), release: make(chan struct{})}
	ctx := context.Background()
	commit := func(k int32) (*snapshot.Snapshot, error) {
		return lsmwrite.CommitGrouped(ctx, st, lsmwrite.TxCommit{Schema: ts, Records: []kv.KeyValue{{Kind: kv.Insert, Value: []any{k, k}}}})
	}
	_, unlock := snapshot.LockCommits(ctx, []string{snapshot.CommitLockKey(st, "")})
	var wg sync.WaitGroup
	var first [2]*snapshot.Snapshot // A's and B's first commits
	var again [2]*snapshot.Snapshot // their second, right after
	var errs [5]error
	wg.Add(1)
	go func() { // leads alone, waits for the lock: snapshot 1
		defer wg.Done()
		_, errs[4] = commit(100)
	}()
	waitFor(t, func() bool { return lsmwrite.GroupWaiting(st, "") == 0 })
	for i := range 2 { // A and B queue: one batch, snapshot 2
		wg.Add(1)
		go func() {
			defer wg.Done()
			if first[i], errs[i] = commit(int32(i)); errs[i] == nil {
				again[i], errs[i] = commit(int32(10 + i))
			}
		}()
		waitFor(t, func() bool { return lsmwrite.GroupWaiting(st, "") == i+1 })
	}
	unlock()
	<-st.hit // A and B's batch is publishing snapshot 2: C queues
	var snapC *snapshot.Snapshot
	wg.Add(1)
	go func() {
		defer wg.Done()
		snapC, errs[2] = commit(20)
	}()
	waitFor(t, func() bool { return lsmwrite.GroupWaiting(st, "") == 1 })
	close(st.release)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("commit %d: %v", i, err)
		}
	}
	for i := range 2 {
		if first[i].ID != 2 || again[i].ID != 3 {
			t.Errorf("writer %d committed snapshots %d and %d, want 2 and 3", i, first[i].ID, again[i].ID)
		}
	}
	if snapC.ID != 3 {
		t.Errorf("C committed snapshot %d, want 3 (with A's and B's next commits)", snapC.ID)
	}
	if latest, err := snapshot.NewSnapshotManager(st, "").Latest(ctx); err != nil {
		t.Fatal(err)
	} else if latest.ID != 3 {
		t.Errorf("latest snapshot %d, want 3", latest.ID)
	}
}
