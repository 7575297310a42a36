package lsmwrite

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// AutoOptions configure an AutoCompactor.
type AutoOptions struct {
	// Workers is the number of background compaction workers. 0 runs
	// every compaction in the committing call (embedded use, tests).
	Workers int
	// Now is the clock of the compactions (tests).
	Now func() time.Time
}

// AutoCompactor is the automatic compaction of a server (Java: the
// compaction a table's writers run after they flush, with
// MergeTreeCompactManager and the sink's full-compaction schedule). After
// each commit a writer calls AfterCommit with the buckets it wrote:
//
//   - write-only tables are left to a dedicated job (lakesql compact);
//   - full-compaction.delta-commits = N: every N-th commit of the table
//     (counted by this compactor) fully compacts every bucket written since
//     the last full compaction before AfterCommit returns; N = 1 is
//     copy-on-write: every statement leaves each bucket it wrote as one
//     sorted run; changelog-producer = full-compaction without the option
//     means N = 1 (Paimon's Flink sink), each full compaction writing the
//     changelog of the commits since the last one;
//   - commit.force-compact: the automatic pick runs before AfterCommit
//     returns;
//   - a bucket with more sorted runs than num-sorted-run.stop-trigger is
//     compacted before AfterCommit returns (the write stall);
//   - otherwise the buckets are queued and a bounded pool of workers runs
//     the automatic (universal) pick on them and commits COMPACT snapshots.
//
// Compactions of one table run one at a time; readers never wait for them.
// A compaction that conflicts with a concurrent commit gives up its own
// work (see Compact); it never fails a writer.
//
// Concurrency: safe for concurrent use. Close stops the workers and cancels
// running compactions (their files are deleted).
type AutoCompactor struct {
	opts   AutoOptions
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu struct {
		sync.Mutex
		cond    *sync.Cond
		tables  map[string]*autoTable
		queue   []*autoTable
		running int
		closed  bool
	}
}

// autoTable is the compactor's state of one table (branch).
type autoTable struct {
	key string
	// run is held while a compaction of the table runs.
	run sync.Mutex
	// picks is the picker state per bucket (guarded by run).
	picks map[BucketRef]*PickState

	// guarded by AutoCompactor.mu
	tbl         *snapshot.Table
	pending     map[BucketRef]bool // written, not yet looked at
	queued      bool               // in the queue or being compacted by a worker
	commits     int                // commits since the last full compaction
	fullPending map[BucketRef]bool // written since the last full compaction
}

// NewAutoCompactor starts opts.Workers background workers.
func NewAutoCompactor(opts AutoOptions) *AutoCompactor {
	a := &AutoCompactor{opts: opts}
	a.ctx, a.cancel = context.WithCancel(context.Background())
	a.mu.cond = sync.NewCond(&a.mu)
	a.mu.tables = map[string]*autoTable{}
	for range opts.Workers {
		a.wg.Add(1)
		go a.worker()
	}
	return a
}

func tableKey(tbl *snapshot.Table) string {
	return tbl.Storage().URL() + "#" + tbl.BranchName()
}

func (a *AutoCompactor) tableLocked(tbl *snapshot.Table) *autoTable {
	key := tableKey(tbl)
	at, ok := a.mu.tables[key]
	if !ok {
		at = &autoTable{key: key, picks: map[BucketRef]*PickState{}, pending: map[BucketRef]bool{}, fullPending: map[BucketRef]bool{}}
		a.mu.tables[key] = at
	}
	at.tbl = tbl
	return at
}

// AfterCommit runs or schedules the automatic compaction of the buckets a
// commit to tbl wrote; sch is the schema the commit was written with. It
// returns once every compaction the commit must wait for is done (COW,
// the write stall, commit.force-compact). Errors of those compactions are
// returned; the commit itself stands either way.
func (a *AutoCompactor) AfterCommit(ctx context.Context, tbl *snapshot.Table, sch *schema.TableSchema, buckets []BucketRef) error {
	if len(buckets) == 0 {
		return nil
	}
	if wo, err := sch.Options.WriteOnly(); err != nil || wo {
		return nil
	}
	if CheckCompactable(sch) != nil {
		return nil
	}
	n, hasN, err := sch.Options.FullCompactionDeltaCommits()
	if err != nil {
		return nil
	}
	if cp, err := sch.Options.ChangelogProducer(); err == nil && cp == schema.ChangelogProducerFullCompaction && !hasN {
		// changelog-producer = full-compaction without a schedule: a full
		// compaction (and so a changelog) after every commit, as Paimon's
		// Flink sink does (its full-compaction delta commits default to 1).
		n, hasN = 1, true
	}
	a.mu.Lock()
	if a.mu.closed {
		a.mu.Unlock()
		return nil
	}
	at := a.tableLocked(tbl)
	var full map[BucketRef]bool
	if hasN {
		at.commits++
		for _, b := range buckets {
			at.fullPending[b] = true
		}
		if at.commits >= max(n, 1) {
			full = at.fullPending
			at.fullPending = map[BucketRef]bool{}
			at.commits = 0
		}
	}
	a.mu.Unlock()

	if full != nil {
		return a.runSync(ctx, at, "full", CompactRequest{Full: true, Buckets: refs(full)})
	}
	if force, _ := sch.Options.CommitForceCompact(); force || a.opts.Workers == 0 {
		kind := "force"
		if !force {
			kind = "minor"
		}
		return a.runSync(ctx, at, kind, CompactRequest{Buckets: buckets})
	}
	if sch.IsPrimaryKeyTable() {
		stall, err := a.needsStall(ctx, tbl, sch, buckets)
		if err != nil {
			return err
		}
		if stall {
			if err := a.runSync(ctx, at, "stall", CompactRequest{Stall: true, Buckets: buckets}); err != nil {
				return err
			}
		}
	}
	a.enqueue(at, buckets)
	return nil
}

func refs(m map[BucketRef]bool) []BucketRef {
	out := make([]BucketRef, 0, len(m))
	for b := range m {
		out = append(out, b)
	}
	return out
}

// needsStall reports whether a bucket has more sorted runs than
// num-sorted-run.stop-trigger in the latest snapshot.
func (a *AutoCompactor) needsStall(ctx context.Context, tbl *snapshot.Table, sch *schema.TableSchema, buckets []BucketRef) (bool, error) {
	stop, err := sch.Options.NumSortedRunStopTrigger()
	if err != nil {
		return false, nil
	}
	counts, err := SortedRunsOf(ctx, tbl, buckets)
	if err != nil {
		return false, err
	}
	for _, n := range counts {
		if n > stop {
			return true, nil
		}
	}
	return false, nil
}

// SortedRunsOf counts the sorted runs of the given buckets (nil: every
// bucket) in tbl's latest snapshot (level-0 files, plus one per non-empty
// higher level).
func SortedRunsOf(ctx context.Context, tbl *snapshot.Table, buckets []BucketRef) (map[BucketRef]int, error) {
	latest, err := tbl.Snapshots().Latest(ctx)
	if errors.Is(err, snapshot.ErrSnapshotNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	want := make(map[BucketRef]bool, len(buckets))
	for _, b := range buckets {
		want[b] = true
	}
	live, _, err := tbl.Scan(ctx, latest, snapshot.ScanOptions{KeepEntry: func(e *manifest.ManifestEntry) bool {
		return buckets == nil || want[BucketRef{Partition: string(e.Partition), Bucket: e.Bucket}]
	}})
	if err != nil {
		return nil, err
	}
	files := map[BucketRef][]manifest.DataFileMeta{}
	for _, e := range live {
		k := BucketRef{Partition: string(e.Partition), Bucket: e.Bucket}
		files[k] = append(files[k], e.File)
	}
	out := make(map[BucketRef]int, len(files))
	for k, fs := range files {
		out[k] = CountSortedRuns(fs)
	}
	return out, nil
}

// runSync runs one compaction of at now, after any running one.
func (a *AutoCompactor) runSync(ctx context.Context, at *autoTable, kind string, req CompactRequest) error {
	at.run.Lock()
	defer at.run.Unlock()
	// A full compaction that loses to a concurrent compaction tries again
	// on the new latest snapshot, a few times.
	attempts := 1
	if req.Full {
		attempts = 3
	}
	for i := 0; i < attempts; i++ {
		out, err := a.compact(ctx, at, kind, req)
		if err != nil {
			return err
		}
		if out.Conflict == nil {
			return nil
		}
	}
	return nil
}

// compact runs Compact on at (at.run held) and reports it.
func (a *AutoCompactor) compact(ctx context.Context, at *autoTable, kind string, req CompactRequest) (*CompactOutcome, error) {
	a.mu.Lock()
	tbl := at.tbl
	a.mu.Unlock()
	req.Now = a.opts.Now
	req.PickState = func(b BucketRef) *PickState {
		st, ok := at.picks[b]
		if !ok {
			st = &PickState{}
			at.picks[b] = st
		}
		return st
	}
	// Compact reports every compaction it runs (metrics.ObserveCompaction:
	// the metrics and a log line); kind is what made this one run.
	out, err := Compact(ctx, tbl, req)
	if err != nil {
		return nil, fmt.Errorf("lsmwrite: automatic compaction (%s) of %s: %w", kind, at.key, err)
	}
	return out, nil
}

func (a *AutoCompactor) enqueue(at *autoTable, buckets []BucketRef) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.mu.closed {
		return
	}
	for _, b := range buckets {
		at.pending[b] = true
	}
	if !at.queued {
		at.queued = true
		a.mu.queue = append(a.mu.queue, at)
		a.mu.cond.Signal()
	}
}

func (a *AutoCompactor) worker() {
	defer a.wg.Done()
	for {
		a.mu.Lock()
		for len(a.mu.queue) == 0 && !a.mu.closed {
			a.mu.cond.Wait()
		}
		if a.mu.closed {
			a.mu.Unlock()
			return
		}
		at := a.mu.queue[0]
		a.mu.queue = a.mu.queue[1:]
		a.mu.running++
		a.mu.Unlock()

		at.run.Lock()
		a.mu.Lock()
		buckets := refs(at.pending)
		clear(at.pending)
		a.mu.Unlock()
		var out *CompactOutcome
		if len(buckets) > 0 {
			out, _ = a.compact(a.ctx, at, "minor", CompactRequest{Buckets: buckets})
		}
		at.run.Unlock()

		a.mu.Lock()
		if out != nil && out.Conflict != nil {
			// Look at these buckets again with the next commit.
			for _, b := range buckets {
				at.pending[b] = true
			}
			at.queued = false
		} else if len(at.pending) > 0 && !a.mu.closed {
			a.mu.queue = append(a.mu.queue, at)
		} else {
			at.queued = false
		}
		a.mu.running--
		a.mu.cond.Broadcast()
		a.mu.Unlock()
	}
}

// Wait returns when no compaction is queued or running (or ctx ends).
func (a *AutoCompactor) Wait(ctx context.Context) error {
	for {
		a.mu.Lock()
		idle := a.mu.closed || (len(a.mu.queue) == 0 && a.mu.running == 0)
		a.mu.Unlock()
		if idle {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// Close stops the workers: queued compactions are dropped, running ones
// cancelled (their files deleted). It waits for the workers to end.
func (a *AutoCompactor) Close() error {
	a.mu.Lock()
	if a.mu.closed {
		a.mu.Unlock()
		return nil
	}
	a.mu.closed = true
	a.mu.queue = nil
	a.mu.cond.Broadcast()
	a.mu.Unlock()
	a.cancel()
	a.wg.Wait()
	return nil
}

// Pending is the number of tables queued or being compacted (tests,
// metrics).
func (a *AutoCompactor) Pending() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, at := range a.mu.tables {
		if at.queued {
			n++
		}
	}
	return n
}
