package snapshot_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/testutil"
	"github.com/lakesql/lakesql/snapshot"
)

func TestSchemaManagerFixture(t *testing.T) {
	ctx := context.Background()
	dir := testutil.FixtureTables(t)["pk_table_with_mor"]
	sm := snapshot.NewSchemaManager(openDir(t, dir), "")
	ids, err := sm.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "schema", "schema-*"))
	if len(ids) != len(files) || len(ids) < 2 || ids[0] != 0 || !slices.IsSorted(ids) {
		t.Fatalf("ids %v files %v", ids, files)
	}
	latest, err := sm.Latest(ctx)
	if err != nil || latest.ID != ids[len(ids)-1] {
		t.Fatalf("latest %v %v", latest, err)
	}
	// Cached: the same pointer comes back.
	again, err := sm.Schema(ctx, latest.ID)
	if err != nil || again != latest {
		t.Errorf("not cached: %p %p %v", again, latest, err)
	}
	if _, err := sm.Schema(ctx, 99); !errors.Is(err, snapshot.ErrSchemaNotFound) {
		t.Errorf("missing schema: %v", err)
	}
	empty := snapshot.NewSchemaManager(openMem(t), "")
	if _, err := empty.Latest(ctx); !errors.Is(err, snapshot.ErrSchemaNotFound) {
		t.Errorf("no schema: %v", err)
	}
}

func TestSchemaCommit(t *testing.T) {
	ctx := context.Background()
	dir := testutil.FixtureTables(t)["pk_09"]
	data, err := os.ReadFile(filepath.Join(dir, "schema", "schema-0"))
	if err != nil {
		t.Fatal(err)
	}
	ts, err := schema.DecodeTableSchema(data)
	if err != nil {
		t.Fatal(err)
	}
	st := openMem(t)
	sm := snapshot.NewSchemaManager(st, "b")
	// Racing commits of the same id: exactly one wins, the others conflict.
	const racers = 8
	var wg sync.WaitGroup
	errs := make([]error, racers)
	for i := range racers {
		wg.Go(func() { errs[i] = snapshot.NewSchemaManager(st, "b").Commit(ctx, ts) })
	}
	wg.Wait()
	wins := 0
	for _, err := range errs {
		switch {
		case err == nil:
			wins++
		case !errors.Is(err, snapshot.ErrConflict):
			t.Errorf("racer: %v", err)
		}
	}
	if wins != 1 {
		t.Fatalf("%d racers won", wins)
	}
	written, err := st.ReadAll(ctx, "branch/branch-b/schema/schema-0")
	if err != nil || !bytes.Equal(written, data) {
		t.Fatalf("committed bytes differ from the Java file: %v\n%s", err, written)
	}
	if err := sm.Commit(ctx, ts); !errors.Is(err, snapshot.ErrConflict) {
		t.Errorf("second commit: %v", err)
	}
	got, err := sm.Schema(ctx, 0)
	if err != nil || got.ID != 0 || len(got.Fields) != len(ts.Fields) {
		t.Errorf("read back: %v %v", got, err)
	}
	// The main branch is untouched.
	if ids, err := snapshot.NewSchemaManager(st, "").List(ctx); err != nil || len(ids) != 0 {
		t.Errorf("main schemas %v %v", ids, err)
	}
}
