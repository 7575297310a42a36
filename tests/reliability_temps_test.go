package tests

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot"
)

// TestServerStartRemovesOldTemporaries: the hidden temporary files writers
// killed part-way leave outside the tables (an account, a transaction
// record, a database's marker, at the top of the warehouse) and the probes
// of a killed start-up are removed when a server starts, once an hour old
// by the store's clock; younger ones (a writer may be writing them) and a
// table's own temporaries (sys.remove_orphan_files') stay.
func TestServerStartRemovesOldTemporaries(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	old, young := now.Add(-snapshot.WarehouseTempAge-time.Minute), now.Add(-50*time.Minute)
	files := map[string]time.Time{
		snapshot.TxRecordDir + "/.tx-1.a1.tmp":         old,
		snapshot.TxRecordDir + "/.tx-2.a2.tmp":         young,
		"_lakesql/users/.user-3.b2.tmp":                old,
		"_lakesql/users/.user-4.b3.tmp":                young,
		"default.db/..lakesql-database.c4.tmp":         old,
		"sales.db/..lakesql-dropping.c5.tmp":           old,
		".d6.tmp":                                      old,
		storage.ConditionalCreateProbePrefix + "0b1c":  old,
		storage.ConditionalCreateProbePrefix + "0b1d":  young,
		"default.db/t/schema/.schema-1.e7.tmp":         old,
		"default.db/t/bucket-0/.data-1.parquet.f8.tmp": old,
	}
	stays := func(p string) bool {
		return files[p].Equal(young) || filepath.Dir(filepath.Dir(p)) == "default.db/t" || filepath.Dir(p) == "default.db/t"
	}
	for p, mod := range files {
		f := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(f, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	db := openWarehouseDB(t, startWarehouseServer(t, noSyncURL(dir)), "default", "")
	mustExec(t, db, "CREATE TABLE k (id BIGINT PRIMARY KEY)", "INSERT INTO k VALUES (1)")
	for p := range files {
		_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p)))
		switch {
		case stays(p) && err != nil:
			t.Errorf("%s was removed: %v", p, err)
		case !stays(p) && !os.IsNotExist(err):
			t.Errorf("%s, an hour old, is left after the start (%v)", p, err)
		}
	}
}
