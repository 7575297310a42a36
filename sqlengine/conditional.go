package sqlengine

import (
	"context"
	"errors"
	"fmt"

	"github.com/lakesql/lakesql/internal/storage"
)

// A writable server commits through storage.ForCommits: on a store
// without conditional create only with a commit lock configured
// (Config.CommitLock; Java Paimon's catalog lock), else it refuses to
// start writable and says so; --read-only still serves reads.

// ErrNoConditionalCreate is the start-up error on a store without
// conditional create and without a commit lock.
var ErrNoConditionalCreate = storage.ErrNoConditionalCreate

// commitStore is the store a writable server commits through.
func commitStore(ctx context.Context, st storage.Storage, cfg Config) (storage.Storage, error) {
	out, err := storage.ForCommits(ctx, st, cfg.CommitLock, cfg.CommitLockTimeout)
	switch {
	case errors.Is(err, ErrNoConditionalCreate):
		return nil, fmt.Errorf("sqlengine: %w, or start with --read-only", err)
	case err != nil:
		return nil, fmt.Errorf("sqlengine: commit-lock: %w", err)
	}
	return out, nil
}
