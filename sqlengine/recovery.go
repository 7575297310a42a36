package sqlengine

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/snapshot"
)

// recovery completes the multi-table transactions a crash interrupted
// (lsmwrite.RollForward): every record on start-up, before the server
// serves, then, while it runs, records some other server left behind, once
// they are lsmwrite.RollForwardAge old by the store's clock.
type recovery struct {
	st     storage.Storage
	stop   chan struct{}
	done   sync.WaitGroup
	closed sync.Once
}

// rollForward runs one pass over the records last modified before
// olderThan (zero: all) and logs what it did.
func rollForward(ctx context.Context, st storage.Storage, olderThan time.Time) {
	res, err := lsmwrite.RollForwardAll(ctx, st, olderThan)
	if res.Transactions > 0 {
		slog.Info("completed interrupted multi-table transactions", "transactions", res.Transactions, "commits", res.Commits)
	}
	if err != nil {
		slog.Error("completing interrupted multi-table transactions", "err", err)
	}
}

// removeTemporaries deletes what writers killed part-way left outside the
// tables, once snapshot.WarehouseTempAge old by the store's clock, and
// logs what it did.
func removeTemporaries(ctx context.Context, st storage.Storage, clock *storage.Clock) {
	removed, err := snapshot.RemoveWarehouseTemporaries(ctx, st, clock.Now(ctx).Add(-snapshot.WarehouseTempAge))
	if len(removed) > 0 {
		slog.Info("removed temporary files writers left outside the tables", "files", len(removed), "first", removed[0])
	}
	if err != nil {
		slog.Warn("removing temporary files outside the tables", "err", err)
	}
}

// startRecovery runs the start-up pass, then the periodic one in the
// background until stopRecovery; temporary files left outside the tables
// are removed on start-up and then every snapshot.WarehouseTempAge. Ages
// are judged by clock, the warehouse store's (the catalog's).
func startRecovery(ctx context.Context, st storage.Storage, clock *storage.Clock) *recovery {
	rollForward(ctx, st, time.Time{})
	removeTemporaries(ctx, st, clock)
	r := &recovery{st: st, stop: make(chan struct{})}
	r.done.Add(1)
	go func() {
		defer r.done.Done()
		t := time.NewTicker(lsmwrite.RollForwardAge)
		defer t.Stop()
		temps := time.NewTicker(snapshot.WarehouseTempAge)
		defer temps.Stop()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			select {
			case <-r.stop:
				cancel()
			case <-ctx.Done():
			}
		}()
		for {
			select {
			case <-r.stop:
				return
			case <-t.C:
				rollForward(ctx, st, clock.Now(ctx).Add(-lsmwrite.RollForwardAge))
			case <-temps.C:
				removeTemporaries(ctx, st, clock)
			}
		}
	}()
	return r
}

// stopRecovery stops the background pass and waits for it.
func (r *recovery) stopRecovery() {
	if r == nil {
		return
	}
	r.closed.Do(func() { close(r.stop) })
	r.done.Wait()
}
