package lsmwrite

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot"
)

// Group commit. Transactions that commit to one table (branch) while
// another commit of it is running queue up; when it is done, the first in
// the queue leads: it takes every queued transaction that can share its
// snapshot and commits them together (commitBatch), then hands the lead to
// the next one still waiting. So a table takes one commit's time for many
// transactions, and the commit rate grows with the number of writers
// instead of queueing them one by one on the commit lock. Every
// transaction returns only once the snapshot holding its records is
// published. Before it takes its batch, a leader gathers (gather).
//
// A batch is committed under a context that no waiter's cancellation
// stops (a client that disconnects must not fail the others); a
// transaction still queued when its context ends leaves the queue.

// maxGroup bounds the transactions of one batch.
const maxGroup = 1024

type groupQueue struct {
	mu      sync.Mutex
	waiting []*groupReq
	busy    bool
	// released is the size of the last batch, arrived the transactions
	// queued since it returned, took how long its commit took (gather).
	released, arrived int
	took              time.Duration
	// arrival is poked (never blocking) when a transaction queues.
	arrival chan struct{}
}

type groupReq struct {
	ctx  context.Context // the committing statement's
	tx   *TxCommit
	lead chan struct{} // closed when this request is to lead
	done chan struct{} // closed when snap and err are set
	snap *snapshot.Snapshot
	err  error
}

var groupQueues sync.Map // snapshot.CommitLockKey → *groupQueue

// CommitGrouped commits tx like CommitTransaction, together with the
// transactions other goroutines commit to the same table at the same time:
// one snapshot for all that do not conflict (blind writes never do; a
// transaction whose conflict predicate meets a key written by one committed
// before it in the batch fails with ErrReadConflict, alone). INSERT
// OVERWRITE and transactions with another schema commit in a batch of
// their own, as do transactions with written files (TxCommit.Written). The
// snapshot returned is the batch's.
func CommitGrouped(ctx context.Context, st storage.Storage, tx TxCommit) (*snapshot.Snapshot, error) {
	key := snapshot.CommitLockKey(st, tx.Options.Branch)
	v, _ := groupQueues.LoadOrStore(key, &groupQueue{arrival: make(chan struct{}, 1)})
	q := v.(*groupQueue)
	r := &groupReq{ctx: ctx, tx: &tx, lead: make(chan struct{}), done: make(chan struct{})}
	q.mu.Lock()
	q.waiting = append(q.waiting, r)
	q.arrived++
	select {
	case q.arrival <- struct{}{}:
	default:
	}
	if q.busy {
		q.mu.Unlock()
		select {
		case <-r.done:
			return r.snap, r.err
		case <-r.lead:
		case <-ctx.Done():
			q.mu.Lock()
			select {
			case <-r.lead: // asked to lead: nobody else will
			default:
				if q.remove(r) {
					q.mu.Unlock()
					if tx.Written != nil {
						_ = tx.Written.Abort(ctx) // never committed
					}
					return nil, ctx.Err()
				}
			}
			q.mu.Unlock()
			// Taken by a leader, or asked to lead: see it through.
			select {
			case <-r.done:
				return r.snap, r.err
			case <-r.lead:
			}
		}
	} else {
		q.busy = true
		q.mu.Unlock()
	}
	q.lead(ctx, st, r)
	return r.snap, r.err
}

// remove takes r out of the queue; false when it was not there.
func (q *groupQueue) remove(r *groupReq) bool {
	for i, w := range q.waiting {
		if w == r {
			q.waiting = append(q.waiting[:i], q.waiting[i+1:]...)
			return true
		}
	}
	return false
}

// lead commits r and the queued transactions that can join it, then hands
// the lead on.
func (q *groupQueue) lead(ctx context.Context, st storage.Storage, r *groupReq) {
	alone := func(tx *TxCommit) bool { return tx.Overwrite != nil || tx.Written != nil }
	if !alone(r.tx) {
		q.gather(ctx)
	}
	q.mu.Lock()
	batch := []*groupReq{r}
	q.remove(r)
	if !alone(r.tx) {
		rest := q.waiting[:0]
		for _, w := range q.waiting {
			if len(batch) < maxGroup && !alone(w.tx) && w.tx.Schema.ID == r.tx.Schema.ID && w.tx.Compactor == r.tx.Compactor {
				batch = append(batch, w)
			} else {
				rest = append(rest, w)
			}
		}
		clear(q.waiting[len(rest):])
		q.waiting = rest
	}
	q.mu.Unlock()

	txs := make([]*TxCommit, len(batch))
	for i, b := range batch {
		txs[i] = b.tx
	}
	user := r.tx.Options.CommitUser
	if len(batch) > 1 || user == "" {
		user = uuid.NewString()
	}
	start := time.Now()
	bctx, release := batchContext(ctx, batch)
	s, errs, err := commitBatch(bctx, st, txs, user)
	release()
	took := time.Since(start)
	for i, b := range batch {
		b.snap, b.err = s, err
		if err == nil && errs[i] != nil {
			b.snap, b.err = nil, errs[i]
		}
		if b != r {
			close(b.done)
		}
	}

	q.mu.Lock()
	q.released, q.arrived, q.took = len(batch), 0, took
	if len(q.waiting) > 0 {
		close(q.waiting[0].lead)
	} else {
		q.busy = false
	}
	q.mu.Unlock()
}

// Gathering. Writers that commit in a loop (a connection's next statement
// follows its acknowledgement) come back while the next batch commits, so
// without a pause the batches alternate between two halves of the
// writers, each half waiting a whole commit for the other. So a leader
// waits, before it takes its batch, for as many transactions to queue
// since the last batch returned as that batch had, while they keep
// coming: it stops at the first gatherGap without an arrival, and after a
// quarter of the last batch's commit time (at most 20 ms). A single
// writer never waits (it is the arrival it would wait for); writers that
// do not come back cost one gatherGap.
var (
	gatherGap   = 2 * time.Millisecond
	gatherLimit = func(took time.Duration) time.Duration { return min(took/4, 20*time.Millisecond) }
)

func (q *groupQueue) gather(ctx context.Context) {
	q.mu.Lock()
	want, limit := q.released, gatherLimit(q.took)
	q.mu.Unlock()
	if want <= 1 || limit <= 0 {
		return
	}
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	gap := time.NewTimer(gatherGap)
	defer gap.Stop()
	for {
		q.mu.Lock()
		enough := q.arrived >= want || len(q.waiting) >= maxGroup
		q.mu.Unlock()
		if enough {
			return
		}
		select {
		case <-q.arrival:
			gap.Reset(gatherGap)
		case <-gap.C:
			return
		case <-deadline.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// batchContext is the context a batch commits under: no member's
// cancellation stops it, but a wait for the commit lock (storage.WithLock)
// ends once every member's context is done (all killed or disconnected):
// nothing is written before the lock is taken. release ends the watching
// goroutine and waits for it.
func batchContext(ctx context.Context, batch []*groupReq) (bctx context.Context, release func()) {
	stop, finished := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for _, b := range batch {
			select {
			case <-b.ctx.Done():
			case <-finished:
				return
			}
		}
		close(stop)
	}()
	return storage.WithLockWaitStop(context.WithoutCancel(ctx), stop), func() {
		close(finished)
		wg.Wait()
	}
}
