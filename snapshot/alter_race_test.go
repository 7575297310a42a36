package snapshot_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot"
)

// TestAlterOfDroppedTableDoesNotLandInNewTable: an ALTER TABLE that read
// dd's schema-0, while another server drops dd and creates it again before
// the ALTER commits schema-1, fails with ErrTableNotFound and leaves the
// new table at its own schema-0. Before, its check after committing asked
// only whether a schema-0 existed — the new table's did — and the new
// table got schema-1 made of the old table's columns (issue 12: a table
// created again must start clean).
func TestAlterOfDroppedTableDoesNotLandInNewTable(t *testing.T) {
	ctx := context.Background()
	st, st2, ts := twoServers(t)
	tst2 := st2.Sub(raceTable)
	var again sync.Once
	var raced bool
	in := &storage.Injector{Decide: func(op storage.Op) storage.Fault {
		if op.Kind != storage.OpCreateIfNotExists || op.Path != raceTable+"/schema/schema-1" {
			return storage.NoFault
		}
		again.Do(func() { // another server: DROP TABLE dd; CREATE TABLE dd
			if err := snapshot.DeleteTableFiles(ctx, tst2); err != nil {
				t.Error(err)
				return
			}
			time.Sleep(2 * time.Millisecond) // another schema-0 timeMillis
			if err := snapshot.NewCatalog(st2).CreateTable(ctx, "default", "dd", ts, false); err != nil {
				t.Error(err)
				return
			}
			raced = true
		})
		return storage.NoFault
	}}
	cat := snapshot.NewCatalog(storage.NewFaulty(st, in))
	err := cat.AlterTable(ctx, "default", "dd", []schema.SchemaChange{{Kind: schema.AddColumn, Column: "f4", Type: schema.MustParseDataType("INT")}})
	if !raced {
		t.Fatal("the table was not dropped and created again before the ALTER committed schema-1")
	}
	if !errors.Is(err, snapshot.ErrTableNotFound) {
		t.Fatalf("ALTER of a table dropped and created again under it: %v, want ErrTableNotFound", err)
	}
	latest, err := snapshot.NewSchemaManager(tst2, "").Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if latest.ID != 0 || len(latest.Fields) != len(ts.Fields) {
		t.Fatalf("the new table's latest schema: id %d with %d fields, want its own schema-0 with %d", latest.ID, len(latest.Fields), len(ts.Fields))
	}
	if ok, err := st2.Exists(ctx, raceTable+"/schema/schema-1"); err != nil || ok {
		t.Fatalf("schema-1 in the new table: %v, %v; want none", ok, err)
	}
}
