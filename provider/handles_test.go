package provider_test

import (
	"context"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/internal/storage/storagetest"
	"github.com/lakesql/lakesql/provider"
)

// TestTableResolutionDoesNotList is the regression test of issue 15's
// finding that every statement listed the warehouse (13% of INSERT time):
// resolving a table again and again lists nothing; a table dropped through
// the provider stops resolving at once.
func TestTableResolutionDoesNotList(t *testing.T) {
	ctx := context.Background()
	mem, err := storage.Open(ctx, "mem://")
	if err != nil {
		t.Fatal(err)
	}
	st := storagetest.NewCounting(mem)
	p, err := provider.New(ctx, st, provider.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CreatePaimonDatabase(ctx, "db", false); err != nil {
		t.Fatal(err)
	}
	ts := &schema.TableSchema{Fields: []schema.DataField{{Name: "id", Type: schema.MustParseDataType("BIGINT")}}, PrimaryKeys: []string{"id"}}
	if err := p.CreatePaimonTable(ctx, "db", "T1", ts, false); err != nil {
		t.Fatal(err)
	}
	sctx := sql.NewEmptyContext()
	resolve := func() (sql.Table, bool) {
		t.Helper()
		d, err := p.Database(sctx, "DB")
		if err != nil {
			t.Fatal(err)
		}
		tbl, ok, err := d.GetTableInsensitive(sctx, "t1")
		if err != nil {
			t.Fatal(err)
		}
		return tbl, ok
	}
	if _, ok := resolve(); !ok {
		t.Fatal("t1 not found")
	}
	before := st.Lists()
	for range 100 {
		if tbl, ok := resolve(); !ok || tbl.Name() != "T1" {
			t.Fatalf("t1 resolved to %v, %v", tbl, ok)
		}
	}
	if n := st.Lists() - before; n != 0 {
		t.Errorf("100 resolutions of db.t1 listed the storage %d times, want 0", n)
	}
	if err := p.DropPaimonTable(ctx, "db", "t1", false); err != nil {
		t.Fatal(err)
	}
	if _, ok := resolve(); ok {
		t.Error("a dropped table still resolves")
	}
}
