package storage

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
)

// Snapshot commits are atomic only where the store's conditional create
// is: CreateIfNotExists of snapshot-N must fail for every writer but one
// (S3: If-None-Match: *, honoured by AWS S3 since 2024, MinIO, SeaweedFS;
// a local rename-free link). A writer checks it once before it writes
// (CheckConditionalCreate, with a probe object in the warehouse's private
// folder): a store that lets the second create overwrite the first would
// let two writers publish the same snapshot id and lose commits. There a
// writer writes only under a commit lock (WithLock) that every writer of
// the warehouse shares.

// ErrNoConditionalCreate is returned by CheckConditionalCreate and
// ForCommits for a store whose conditional create overwrites.
var ErrNoConditionalCreate = errors.New("storage: the warehouse's store does not honour conditional create")

// ConditionalCreateProbePrefix starts the name of the object
// CheckConditionalCreate creates twice and deletes.
const ConditionalCreateProbePrefix = PrivateDir + "/conditional-create-probe-"

// CheckConditionalCreate probes st's CreateIfNotExists: nil when a second
// create of one path fails with ErrExist, an error wrapping
// ErrNoConditionalCreate when it overwrites.
func CheckConditionalCreate(ctx context.Context, st Storage) error {
	p := ConditionalCreateProbePrefix + uuid.NewString()
	defer func() { _ = st.Delete(context.WithoutCancel(ctx), p) }()
	if err := st.CreateIfNotExists(ctx, p, []byte("1")); err != nil {
		return fmt.Errorf("storage: probe the warehouse's conditional create: %w", err)
	}
	err := st.CreateIfNotExists(ctx, p, []byte("2"))
	switch {
	case errors.Is(err, ErrExist):
		return nil
	case err != nil:
		return fmt.Errorf("storage: probe the warehouse's conditional create: %w", err)
	}
	return fmt.Errorf("%w (If-None-Match: * on S3): a second create of %s overwrote the first, so two writers could publish the same snapshot and lose each other's commits; "+
		"lakesql refuses to write to it without a commit lock: configure one that every writer of the warehouse shares (--commit-lock file:/path/to/lock-folder, for writers on one host or a shared POSIX filesystem) "+
		"or use a store that honours it (AWS S3, MinIO, SeaweedFS, a local folder)",
		ErrNoConditionalCreate, st.URL()+"/"+p)
}

// ForCommits is st as a writer commits through it. Without a commit lock
// (lockSpec "" or "none": ParseLock) it is st, once st's conditional
// create is checked. With one it is st under the lock (WithLock), checked
// through the lock; the log says whether the store needed it.
func ForCommits(ctx context.Context, st Storage, lockSpec string, timeout time.Duration) (Storage, error) {
	l, err := ParseLock(lockSpec, timeout)
	if err != nil {
		return nil, err
	}
	probe := CheckConditionalCreate(ctx, st)
	if l == nil {
		return st, probe
	}
	if probe != nil && !errors.Is(probe, ErrNoConditionalCreate) {
		return nil, probe
	}
	locked := WithLock(st, l)
	if err := CheckConditionalCreate(ctx, locked); err != nil {
		return nil, fmt.Errorf("storage: commit lock %s: %w", l, err)
	}
	if probe != nil {
		slog.Warn("the warehouse's store does not honour conditional create: every commit runs under the commit lock, which every writer of this warehouse must use",
			"warehouse", st.URL(), "commit_lock", l.String())
	} else {
		slog.Info("commit lock (the store's conditional create makes commits atomic without it)", "commit_lock", l.String())
	}
	return locked, nil
}
