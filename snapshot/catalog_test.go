package snapshot_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/internal/storage/storagetest"
	"github.com/lakesql/lakesql/snapshot"
)

func newCatalog(t *testing.T) (*snapshot.Catalog, storage.Storage, storagetest.Counting) {
	t.Helper()
	st, err := storage.Open(context.Background(), "mem://")
	if err != nil {
		t.Fatal(err)
	}
	c := storagetest.NewCounting(st)
	return snapshot.NewCatalog(c), st, c
}

func oneColumn() *schema.TableSchema {
	return &schema.TableSchema{Fields: []schema.DataField{{Name: "a", Type: schema.MustParseDataType("INT")}}}
}

// TestCatalogResolveCaches: resolving the same names again does not list
// the warehouse; a name another catalog created is found at once; DDL
// through the catalog is seen at once.
func TestCatalogResolveCaches(t *testing.T) {
	ctx := context.Background()
	c, st, lists := newCatalog(t)
	if created, err := c.EnsureDefaultDatabase(ctx); err != nil || !created {
		t.Fatalf("EnsureDefaultDatabase: %v %v", created, err)
	}
	if err := c.CreateDatabase(ctx, "Shop", false); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateTable(ctx, "shop", "Orders", oneColumn(), false); err != nil {
		t.Fatal(err)
	}
	db, err := c.ResolveDatabase(ctx, "SHOP")
	if err != nil || db != "Shop" {
		t.Fatalf("ResolveDatabase(SHOP) = %q, %v", db, err)
	}
	if name, ok, err := c.ResolveTable(ctx, db, "orders"); err != nil || !ok || name != "Orders" {
		t.Fatalf("ResolveTable(orders) = %q %v %v", name, ok, err)
	}
	before := lists.Lists()
	for range 100 {
		if _, err := c.ResolveDatabase(ctx, "shop"); err != nil {
			t.Fatal(err)
		}
		if _, ok, err := c.ResolveTable(ctx, db, "ORDERS"); err != nil || !ok {
			t.Fatal(ok, err)
		}
	}
	if got := lists.Lists() - before; got != 0 {
		t.Errorf("100 resolutions listed the warehouse %d times, want 0", got)
	}
	// Another process creates a table: found on the first try.
	other := snapshot.NewCatalog(st)
	if err := other.CreateTable(ctx, "shop", "items", oneColumn(), false); err != nil {
		t.Fatal(err)
	}
	if name, ok, err := c.ResolveTable(ctx, db, "Items"); err != nil || !ok || name != "items" {
		t.Errorf("a table created elsewhere: %q %v %v", name, ok, err)
	}
	// DDL through the catalog is seen at once.
	if err := c.DropTable(ctx, "shop", "orders", false); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := c.ResolveTable(ctx, db, "orders"); err != nil || ok {
		t.Errorf("a dropped table still resolves: %v %v", ok, err)
	}
	if err := c.DropDatabase(ctx, "shop", false); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ResolveDatabase(ctx, "shop"); !errors.Is(err, snapshot.ErrDatabaseNotFound) {
		t.Errorf("a dropped database: %v", err)
	}
}

// TestCatalogErrors: the catalog's errors carry their class and the name.
func TestCatalogErrors(t *testing.T) {
	ctx := context.Background()
	c, _, _ := newCatalog(t)
	if _, err := c.EnsureDefaultDatabase(ctx); err != nil {
		t.Fatal(err)
	}
	check := func(what string, err, kind error, name string) {
		t.Helper()
		var ce *schema.ChangeError
		if !errors.Is(err, kind) || !errors.As(err, &ce) || ce.Name != name {
			t.Errorf("%s: %v, want %v naming %q", what, err, kind, name)
		}
	}
	if err := c.CreateTable(ctx, "default", "t", oneColumn(), false); err != nil {
		t.Fatal(err)
	}
	check("table exists", c.CreateTable(ctx, "default", "T", oneColumn(), false), snapshot.ErrTableExists, "t")
	check("no database", c.CreateTable(ctx, "nosuch", "t", oneColumn(), false), snapshot.ErrDatabaseNotFound, "nosuch")
	check("database exists", c.CreateDatabase(ctx, "DEFAULT", false), snapshot.ErrDatabaseExists, "DEFAULT")
	check("no table", c.DropTable(ctx, "default", "x", false), snapshot.ErrTableNotFound, "x")
	check("long name", c.CreateTable(ctx, "default", string(make([]byte, 65)), oneColumn(), false), schema.ErrNameTooLong, string(make([]byte, 65)))
	if err := c.CreateTable(ctx, "default", "a/b", oneColumn(), false); !errors.Is(err, schema.ErrInvalidSchema) {
		t.Errorf("a name with '/': %v", err)
	}
	if err := c.CreateTable(ctx, "default", "t", oneColumn(), true); err != nil {
		t.Errorf("IF NOT EXISTS: %v", err)
	}
	if err := c.DropTable(ctx, "default", "x", true); err != nil {
		t.Errorf("IF EXISTS: %v", err)
	}
}

// TestTableLocationKeepsTheURLQueryAtItsEnd: a warehouse URL with options
// (file:///wh?fsync=false, s3://b/p?endpoint=…) gives table locations with
// the options at the end (not file:///wh?fsync=false/default.db/dd), which
// open the table's folder again; CREATE TABLE accepts its own location as
// 'path', with or without the options, and names it whole when it refuses
// another.
func TestTableLocationKeepsTheURLQueryAtItsEnd(t *testing.T) {
	ctx := context.Background()
	dir := filepath.ToSlash(t.TempDir())
	for _, tc := range []struct{ url, want string }{
		{"file://" + dir + "?fsync=false", "file://" + dir + "/default.db/dd?fsync=false"},
		{"file://" + dir, "file://" + dir + "/default.db/dd"},
		{"s3://bucket/wh?endpoint=http://127.0.0.1:1&region=us-east-1&use_path_style=true", "s3://bucket/wh/default.db/dd?endpoint=http://127.0.0.1:1&region=us-east-1&use_path_style=true"},
	} {
		st, err := storage.Open(ctx, tc.url)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		c := snapshot.NewCatalog(st)
		if got := c.TableLocation("default", "dd"); got != tc.want {
			t.Errorf("%s: TableLocation = %s, want %s", tc.url, got, tc.want)
		}
		if !strings.HasPrefix(tc.url, "file:") {
			continue
		}
		// The location opens the table's folder.
		if err := c.CreateTable(ctx, "default", "dd", oneColumn(), false); err != nil {
			t.Fatal(err)
		}
		tst, err := storage.Open(ctx, c.TableLocation("default", "dd"))
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := tst.Exists(ctx, "schema/schema-0"); err != nil || !ok {
			t.Errorf("%s: the table's location %s does not hold its schema (%v)", tc.url, c.TableLocation("default", "dd"), err)
		}
		tst.Close()
		loc := c.TableLocation("default", "t2")
		bare, _, _ := strings.Cut(loc, "?")
		for _, p := range []string{loc, loc + "/", bare, bare + "/"} {
			in := oneColumn()
			in.Options = schema.Options{"path": p}
			if err := c.CreateTable(ctx, "default", "t2", in, false); err != nil {
				t.Errorf("%s: CREATE TABLE with its own location %s as 'path': %v", tc.url, p, err)
			}
			if err := c.DropTable(ctx, "default", "t2", false); err != nil {
				t.Fatal(err)
			}
		}
		in := oneColumn()
		in.Options = schema.Options{"path": "file:///elsewhere/t2"}
		err = c.CreateTable(ctx, "default", "t2", in, false)
		if err == nil || !strings.Contains(err.Error(), " lives at "+loc+";") {
			t.Errorf("%s: CREATE TABLE at another path: %v, want an error naming the location %s", tc.url, err, loc)
		}
		if err := c.DropTable(ctx, "default", "dd", false); err != nil {
			t.Fatal(err)
		}
	}
}
