package sqlengine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/google/uuid"

	"github.com/lakesql/lakesql/internal/storage"
)

// Snapshot commits are atomic only where the store's conditional create
// is: CreateIfNotExists of snapshot-N must fail for every writer but one
// (S3: If-None-Match: *, honoured by AWS S3 since 2024, MinIO, SeaweedFS;
// a local rename-free link). A writable server checks it once at start-up
// with a probe object in the warehouse's private folder: a store that lets
// the second create overwrite the first would let two servers publish the
// same snapshot id and lose commits. There the server starts writable
// only with a commit lock configured (Config.CommitLock; Java Paimon's
// catalog lock): every conditional create then runs as "lock, check,
// write, unlock" (storage.WithLock), which every writer of the warehouse
// must share. Without one it refuses to start writable and says so;
// --read-only still serves reads.

// ErrNoConditionalCreate is the start-up error on such a store.
var ErrNoConditionalCreate = errors.New("sqlengine: the warehouse's store does not honour conditional create")

// commitStore is the store a writable server commits through: st itself,
// or st under the configured commit lock. It probes st's conditional
// create, and then the lock's, and says at start-up which one makes
// commits atomic.
func commitStore(ctx context.Context, st storage.Storage, cfg Config) (storage.Storage, error) {
	l, err := storage.ParseLock(cfg.CommitLock, cfg.CommitLockTimeout)
	if err != nil {
		return nil, fmt.Errorf("sqlengine: commit-lock: %w", err)
	}
	probe := checkConditionalCreate(ctx, st)
	if l == nil {
		return st, probe
	}
	if probe != nil && !errors.Is(probe, ErrNoConditionalCreate) {
		return nil, probe
	}
	locked := storage.WithLock(st, l)
	if err := checkConditionalCreate(ctx, locked); err != nil {
		return nil, fmt.Errorf("sqlengine: commit lock %s: %w", l, err)
	}
	if probe != nil {
		slog.Warn("the warehouse's store does not honour conditional create: every commit runs under the commit lock, which every writer of this warehouse must use",
			"warehouse", st.URL(), "commit_lock", l.String())
	} else {
		slog.Info("commit lock (the store's conditional create makes commits atomic without it)", "commit_lock", l.String())
	}
	return locked, nil
}

// checkConditionalCreate probes st's CreateIfNotExists.
func checkConditionalCreate(ctx context.Context, st storage.Storage) error {
	p := storage.PrivateDir + "/conditional-create-probe-" + uuid.NewString()
	defer func() { _ = st.Delete(context.WithoutCancel(ctx), p) }()
	if err := st.CreateIfNotExists(ctx, p, []byte("1")); err != nil {
		return fmt.Errorf("sqlengine: probe the warehouse's conditional create: %w", err)
	}
	err := st.CreateIfNotExists(ctx, p, []byte("2"))
	switch {
	case errors.Is(err, storage.ErrExist):
		return nil
	case err != nil:
		return fmt.Errorf("sqlengine: probe the warehouse's conditional create: %w", err)
	}
	return fmt.Errorf("%w (If-None-Match: * on S3): a second create of %s overwrote the first, so two servers could publish the same snapshot and lose each other's commits; "+
		"lakesql refuses to write to it without a commit lock: configure one that every writer of the warehouse shares (--commit-lock file:/path/to/lock-folder, for servers on one host or a shared POSIX filesystem), "+
		"use a store that honours it (AWS S3, MinIO, SeaweedFS, a local folder) or start with --read-only",
		ErrNoConditionalCreate, st.URL()+"/"+p)
}
