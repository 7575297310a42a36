package lsmwrite_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/snapshot"
)

// recreate drops table st (every file) and creates it again from ts with
// another timeMillis, as another server's DROP TABLE + CREATE TABLE do.
func recreate(t *testing.T, st storage.Storage, ts *schema.TableSchema) {
	t.Helper()
	ctx := context.Background()
	var paths []string
	for info, err := range st.List(ctx, "") {
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, info.Path)
	}
	for _, p := range paths {
		if err := st.Delete(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	again := *ts
	again.TimeMillis = ts.TimeMillis + 7777
	if err := snapshot.NewSchemaManager(st, "").Commit(ctx, &again); err != nil {
		t.Fatal(err)
	}
}

// TestCommitAtomicTableCreatedAgain: a multi-table commit whose second
// table another server dropped and created again (same name, same schema
// id 0, another timeMillis) after the transaction wrote it commits
// nothing: not the first table, and not into the new table (before, only
// the schema file's existence was checked, so the old table's rows went
// into the new one). When the table is created again after the
// transaction record is written, the transaction completes on the first
// table and leaves the new table clean.
func TestCommitAtomicTableCreatedAgain(t *testing.T) {
	ctx := context.Background()
	t.Run("before the record", func(t *testing.T) {
		wh, sts, sch := atomicWarehouse(t)
		recreate(t, sts[1], sch[1])
		err := lsmwrite.CommitAtomic(ctx, wh, atomicTables(sts, sch, lsmwrite.TxCommit{Records: upsert(1, 10)}, lsmwrite.TxCommit{Records: upsert(2, 20)}))
		if !errors.Is(err, snapshot.ErrTableNotFound) {
			t.Fatalf("err = %v, want the table not found (dropped and created again)", err)
		}
		for i, st := range sts {
			if id := latestID(t, st); id != 0 {
				t.Errorf("table %d has snapshot %d, want none", i, id)
			}
			if files := dataFiles(t, st); len(files) != 0 {
				t.Errorf("table %d keeps data files %v", i, files)
			}
		}
		if ids := txRecords(t, wh); len(ids) != 0 {
			t.Errorf("records left: %v", ids)
		}
	})
	t.Run("after the record", func(t *testing.T) {
		wh, sts, sch := atomicWarehouse(t)
		// The drop and the create happen as the record is written (the
		// record's write goes through the faulty store, which runs them
		// first).
		done := false
		in := &storage.Injector{Decide: func(op storage.Op) storage.Fault {
			if !done && op.Kind.IsWrite() && strings.Contains(op.Path, "transactions") {
				done = true
				recreate(t, sts[1], sch[1])
			}
			return storage.NoFault
		}}
		fwh := storage.NewFaulty(wh, in)
		err := lsmwrite.CommitAtomic(ctx, fwh, atomicTables(sts, sch, lsmwrite.TxCommit{Records: upsert(1, 10)}, lsmwrite.TxCommit{Records: upsert(2, 20)}))
		if !done {
			t.Fatal("no transaction record was written")
		}
		if err != nil {
			t.Fatalf("the transaction is decided once its record is written: %v", err)
		}
		if got := valueOf(t, sts[0], sch[0], 1); got != int32(10) {
			t.Errorf("a: k=1 is %v, want 10", got)
		}
		if id := latestID(t, sts[1]); id != 0 {
			t.Errorf("the new table b has snapshot %d, want none", id)
		}
		if files := dataFiles(t, sts[1]); len(files) != 0 {
			t.Errorf("the new table b has data files %v", files)
		}
		if ids := txRecords(t, wh); len(ids) != 0 {
			t.Errorf("records left: %v", ids)
		}
	})
}
