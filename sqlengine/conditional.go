package sqlengine

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/lakesql/lakesql/internal/storage"
)

// Snapshot commits are atomic only where the store's conditional create
// is: CreateIfNotExists of snapshot-N must fail for every writer but one
// (S3: If-None-Match: *, honoured by AWS S3 since 2024, MinIO, SeaweedFS;
// a local rename-free link). A writable server checks it once at start-up
// with a probe object in the warehouse's private folder: a store that lets
// the second create overwrite the first would let two servers publish the
// same snapshot id and lose commits, so the server refuses to start
// writable there (lakesql has no external commit lock to configure
// instead); --read-only still serves reads.

// ErrNoConditionalCreate is the start-up error on such a store.
var ErrNoConditionalCreate = errors.New("sqlengine: the warehouse's store does not honour conditional create")

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
		"lakesql refuses to write to it and has no external commit lock to use instead: use a store that honours it (AWS S3, MinIO, SeaweedFS, a local folder) or start with --read-only",
		ErrNoConditionalCreate, st.URL()+"/"+p)
}
