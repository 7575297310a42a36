package snapshot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lakesql/lakesql/internal/storage"
)

// WarehouseTempAge is how old a leftover outside the tables must be before
// RemoveWarehouseTemporaries deletes it: what is written there (an
// account, a transaction record, a database's marker, a probe) is written
// in milliseconds, so one an hour old was left by a writer killed while
// writing it.
const WarehouseTempAge = time.Hour

// RemoveWarehouseTemporaries deletes what writers killed part-way left
// outside the table folders of the warehouse wh, when the store last
// modified it before olderThan: the local store's hidden temporary files
// (".<name>.<random>.tmp", written and renamed or linked into place) in
// lakesql's private folder (accounts, transaction records; recursively), at
// the top of the warehouse, of each database folder (a database's marker,
// a dropping database's marker) and of each table folder (a table drop's
// marker), and the probe objects
// a start-up or a clock reading writes to the private folder and deletes at
// once. Nothing refers to any of them. Temporary files inside table
// folders are orphan cleaning's (RemoveOrphanFiles, guarded by its
// older_than). It returns the paths it deleted; deletes are quiet (another
// server may clean at the same time).
func RemoveWarehouseTemporaries(ctx context.Context, wh storage.Storage, olderThan time.Time) ([]string, error) {
	var (
		removed []string
		errs    error
	)
	remove := func(info storage.ObjectInfo) {
		if info.ModTime.IsZero() || !info.ModTime.Before(olderThan) {
			return
		}
		if err := wh.Delete(ctx, info.Path); err != nil && !errors.Is(err, storage.ErrNotExist) {
			errs = errors.Join(errs, err)
			return
		}
		removed = append(removed, info.Path)
	}
	each := func(what string, seq func(func(storage.ObjectInfo, error) bool)) {
		for info, err := range seq {
			if err != nil {
				errs = errors.Join(errs, fmt.Errorf("snapshot: list %s: %w", what, err))
				return
			}
			remove(info)
		}
	}
	each("lakesql's private folder", storage.ListTemps(ctx, wh, storage.PrivateDir))
	for _, probe := range []string{storage.ConditionalCreateProbePrefix, storage.ClockProbePrefix} {
		each("probes", wh.List(ctx, probe))
	}
	// The top of the warehouse, of each database folder (also one whose
	// files are all gone but a temporary file) and of each table folder,
	// where only drop markers are written (a table's own files are in its
	// sub-folders); the private folder is listed whole above.
	for info, err := range storage.ListTempsTo(ctx, wh, "", 3) {
		if err != nil {
			errs = errors.Join(errs, fmt.Errorf("snapshot: list the warehouse folder: %w", err))
			break
		}
		dir, _, nested := strings.Cut(info.Path, "/")
		if !nested || strings.HasSuffix(dir, DatabaseSuffix) {
			remove(info)
		}
	}
	return removed, errs
}
