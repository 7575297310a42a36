package sqlengine

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmwrite"
)

// recovery completes the multi-table transactions a crash interrupted
// (lsmwrite.RollForward): every record on start-up, before the server
// serves, then, while it runs, records some other server left behind, once
// they are lsmwrite.RollForwardAge old.
type recovery struct {
	st     storage.Storage
	stop   chan struct{}
	done   sync.WaitGroup
	closed sync.Once
}

// rollForward runs one pass and logs what it did.
func rollForward(ctx context.Context, st storage.Storage, minAge time.Duration) {
	res, err := lsmwrite.RollForwardAll(ctx, st, minAge)
	if res.Transactions > 0 {
		slog.Info("completed interrupted multi-table transactions", "transactions", res.Transactions, "commits", res.Commits)
	}
	if err != nil {
		slog.Error("completing interrupted multi-table transactions", "err", err)
	}
}

// startRecovery runs the start-up pass, then the periodic one in the
// background until stopRecovery.
func startRecovery(ctx context.Context, st storage.Storage) *recovery {
	rollForward(ctx, st, 0)
	r := &recovery{st: st, stop: make(chan struct{})}
	r.done.Add(1)
	go func() {
		defer r.done.Done()
		t := time.NewTicker(lsmwrite.RollForwardAge)
		defer t.Stop()
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
				rollForward(ctx, st, lsmwrite.RollForwardAge)
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
