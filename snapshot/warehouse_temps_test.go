package snapshot_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/internal/storage/storagetest"
	"github.com/lakesql/lakesql/snapshot"
)

// leftover is a file a killed writer left, and whether it must go.
type leftover struct {
	path string
	age  time.Duration // by the store's clock
	goes bool
}

// writeLeftovers writes each leftover under dir, modified age ago: by the
// local clock, which a Skewed store shifts as its own.
func writeLeftovers(t *testing.T, dir string, files []leftover) {
	t.Helper()
	now := time.Now()
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		mod := now.Add(-f.age)
		if err := os.Chtimes(p, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
}

// checkLeftovers says which leftovers are left that must go, and which
// went that must stay.
func checkLeftovers(t *testing.T, dir string, files []leftover, removed []string) {
	t.Helper()
	for _, f := range files {
		_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f.path)))
		switch {
		case f.goes && !os.IsNotExist(err):
			t.Errorf("%s (%v old) is left (%v)", f.path, f.age, err)
		case !f.goes && err != nil:
			t.Errorf("%s (%v old) was removed: %v", f.path, f.age, err)
		}
		if f.goes != slices.Contains(removed, f.path) {
			t.Errorf("%s: reported removed %v, want %v", f.path, !f.goes, f.goes)
		}
	}
}

// warehouseLeftovers are temporary files and probes outside the tables,
// an hour and a minute old (they go) or 50 minutes old (a writer may be
// writing them), and old temporaries inside a table folder (orphan
// cleaning's) and files that are no temporaries (they stay).
func warehouseLeftovers() []leftover {
	const old, young = snapshot.WarehouseTempAge + time.Minute, 50 * time.Minute
	var out []leftover
	for _, p := range []string{
		snapshot.TxRecordDir + "/.tx-1.a1.tmp",
		"_lakesql/users/.user-3.b2.tmp",
		"_lakesql/.x.c3.tmp",
		".d4.tmp.e5.tmp",
		"default.db/..lakesql-database.f6.tmp",
		"sales.db/..lakesql-dropping.g7.tmp",
		"default.db/t/..lakesql-dropping-0b1a.h9.tmp",
		"default.db/gone/..lakesql-dropping-0b1b.j1.tmp",
	} {
		out = append(out, leftover{p, old, true}, leftover{p + "-young.tmp", young, false})
	}
	out = append(out,
		leftover{storage.ConditionalCreateProbePrefix + "0b1c", old, true},
		leftover{storage.ConditionalCreateProbePrefix + "0b1d", young, false},
		leftover{storage.ClockProbePrefix + "0b1e", old, true},
		leftover{"default.db/t/schema/.schema-1.h8.tmp", old, false}, // a table's: orphan cleaning's
		leftover{"default.db/t/bucket-0/.data-1.parquet.k2.tmp", old, false},
		leftover{"default.db/t/p=1/.x.k3.tmp", old, false},          // a partition folder's
		leftover{"default.db/t/.lakesql-dropping-0b1f", old, false}, // a drop's marker
		leftover{"default.db/.lakesql-database", old, false},
		leftover{snapshot.TxRecordDir + "/tx-0b20", old, false}, // a record: rolled forward
		leftover{"notadb/.i9.tmp", old, false},
	)
	return out
}

// TestRemoveWarehouseTemporaries: what writers killed part-way leave
// outside the tables (temporary files of accounts, transaction records,
// database markers; probes) goes once an hour old; younger ones, the
// tables' own temporaries and everything else stay.
func TestRemoveWarehouseTemporaries(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	files := warehouseLeftovers()
	writeLeftovers(t, dir, files)
	st, err := storage.Open(ctx, "file://"+filepath.ToSlash(dir)+"?fsync=false")
	if err != nil {
		t.Fatal(err)
	}
	removed, err := snapshot.RemoveWarehouseTemporaries(ctx, st, time.Now().Add(-snapshot.WarehouseTempAge))
	if err != nil {
		t.Fatal(err)
	}
	checkLeftovers(t, dir, files, removed)
}

// TestRemoveWarehouseTemporariesByTheStoresClock: on a store whose clock
// is 20 minutes behind (or ahead of) the local one, ages are the store's:
// a 50-minute-old temporary stays although the local clock makes it 70
// minutes old, and a 61-minute-old one goes although the local clock makes
// it 41 minutes old.
func TestRemoveWarehouseTemporariesByTheStoresClock(t *testing.T) {
	ctx := context.Background()
	for _, skew := range []time.Duration{-20 * time.Minute, 20 * time.Minute} {
		dir := t.TempDir()
		files := warehouseLeftovers()
		writeLeftovers(t, dir, files)
		base, err := storage.Open(ctx, "file://"+filepath.ToSlash(dir)+"?fsync=false")
		if err != nil {
			t.Fatal(err)
		}
		st := storagetest.Skewed{Storage: base, Skew: skew}
		now := storage.NewClock(st).Now(ctx)
		removed, err := snapshot.RemoveWarehouseTemporaries(ctx, st, now.Add(-snapshot.WarehouseTempAge))
		if err != nil {
			t.Fatal(err)
		}
		checkLeftovers(t, dir, files, removed)
	}
}
