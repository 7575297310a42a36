package lsmwrite_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/internal/storage/storagetest"
	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/snapshot"
)

// atomicWarehouse is a warehouse with tables db.a and db.b (k INT primary
// key, v INT; dynamic buckets, Paimon's default).
func atomicWarehouse(t *testing.T) (wh storage.Storage, sts [2]storage.Storage, sch [2]*schema.TableSchema) {
	t.Helper()
	ctx := context.Background()
	wh, err := storage.Open(ctx, "mem://")
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"a", "b"} {
		sts[i] = wh.Sub("db.db/" + name)
		sch[i] = &schema.TableSchema{
			Version: schema.SchemaVersionCurrent,
			Fields: []schema.DataField{
				{ID: 0, Name: "k", Type: schema.AtomicType(schema.TypeInt).WithNullable(false)},
				{ID: 1, Name: "v", Type: schema.AtomicType(schema.TypeInt)},
			},
			HighestFieldID: 1, PrimaryKeys: []string{"k"}, TimeMillis: int64(1000 + i),
			Options: schema.Options{"commit.min-retry-wait": "1 ms", "commit.max-retry-wait": "20 ms"},
		}
		if err := snapshot.NewSchemaManager(sts[i], "").Commit(ctx, sch[i]); err != nil {
			t.Fatal(err)
		}
	}
	return wh, sts, sch
}

func upsert(k, v int32) []kv.KeyValue { return []kv.KeyValue{{Kind: kv.Insert, Value: []any{k, v}}} }

func atomicTables(sts [2]storage.Storage, sch [2]*schema.TableSchema, a, b lsmwrite.TxCommit) []lsmwrite.AtomicTable {
	a.Schema, b.Schema = sch[0], sch[1]
	return []lsmwrite.AtomicTable{{Path: "db.db/a", Storage: sts[0], Tx: a}, {Path: "db.db/b", Storage: sts[1], Tx: b}}
}

func latestID(t *testing.T, st storage.Storage) snapshot.SnapshotID {
	t.Helper()
	id, _, err := snapshot.NewSnapshotManager(st, "").LatestID(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func txRecords(t *testing.T, wh storage.Storage) []string {
	t.Helper()
	var ids []string
	for info, err := range snapshot.ListTxRecords(context.Background(), wh) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, info.ID)
	}
	return ids
}

// dataFiles lists the files in a table's bucket folders.
func dataFiles(t *testing.T, st storage.Storage) []string {
	t.Helper()
	var out []string
	for info, err := range st.List(context.Background(), "") {
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(info.Path, "bucket-") || strings.HasPrefix(info.Path, "index/") {
			out = append(out, info.Path)
		}
	}
	return out
}

// TestCommitAtomic: both tables commit, with the transaction id as the
// commit user of both snapshots, and the record is gone afterwards.
func TestCommitAtomic(t *testing.T) {
	wh, sts, sch := atomicWarehouse(t)
	ctx := context.Background()
	if err := lsmwrite.CommitAtomic(ctx, wh, atomicTables(sts, sch, lsmwrite.TxCommit{Records: upsert(1, 10)}, lsmwrite.TxCommit{Records: upsert(2, 20)})); err != nil {
		t.Fatal(err)
	}
	sa, err := snapshot.NewSnapshotManager(sts[0], "").Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := snapshot.NewSnapshotManager(sts[1], "").Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if sa.CommitUser != sb.CommitUser {
		t.Errorf("commit users %q and %q, want the transaction id for both", sa.CommitUser, sb.CommitUser)
	}
	if got := valueOf(t, sts[0], sch[0], 1); got != int32(10) {
		t.Errorf("a: k=1 is %v", got)
	}
	if got := valueOf(t, sts[1], sch[1], 2); got != int32(20) {
		t.Errorf("b: k=2 is %v", got)
	}
	if ids := txRecords(t, wh); len(ids) != 0 {
		t.Errorf("records left: %v", ids)
	}
}

// TestCommitAtomicConflictCommitsNothing is the bug of issue 12: a
// conflict on the second table used to come after the first had committed.
// Now it is found first, nothing commits, and no file is left.
func TestCommitAtomicConflictCommitsNothing(t *testing.T) {
	wh, sts, sch := atomicWarehouse(t)
	ctx := context.Background()
	for i := range sts {
		if _, err := lsmwrite.CommitTransaction(ctx, sts[i], lsmwrite.TxCommit{Schema: sch[i], Records: upsert(1, 1)}); err != nil {
			t.Fatal(err)
		}
	}
	filesA, filesB := dataFiles(t, sts[0]), dataFiles(t, sts[1])
	// The transaction read b's k=1 at snapshot 1; another writer changes it.
	if _, err := lsmwrite.CommitTransaction(ctx, sts[1], lsmwrite.TxCommit{Schema: sch[1], Records: upsert(1, 2)}); err != nil {
		t.Fatal(err)
	}
	filesB = dataFiles(t, sts[1])
	key1 := string(kv.AppendKey(nil, []any{int32(1)}, []int{0}))
	err := lsmwrite.CommitAtomic(ctx, wh, atomicTables(sts, sch,
		lsmwrite.TxCommit{Records: upsert(5, 50)},
		lsmwrite.TxCommit{Records: upsert(1, 99), ReadBase: 1, ReadKey: func(k []byte) bool { return string(k) == key1 }}))
	if !errors.Is(err, lsmwrite.ErrReadConflict) {
		t.Fatalf("err = %v, want ErrReadConflict", err)
	}
	if id := latestID(t, sts[0]); id != 1 {
		t.Errorf("a has snapshot %d after the conflict, want 1", id)
	}
	if got := valueOf(t, sts[0], sch[0], 5); got != nil {
		t.Errorf("a: k=5 is %v after the conflict", got)
	}
	if got := dataFiles(t, sts[0]); strings.Join(got, ",") != strings.Join(filesA, ",") {
		t.Errorf("a's files %v, want %v", got, filesA)
	}
	if got := dataFiles(t, sts[1]); strings.Join(got, ",") != strings.Join(filesB, ",") {
		t.Errorf("b's files %v, want %v", got, filesB)
	}
	if ids := txRecords(t, wh); len(ids) != 0 {
		t.Errorf("records left: %v", ids)
	}
}

// TestRollForward: a crash after the record leaves the tables uncommitted
// (or one committed); RollForward commits the rest, from the record's
// files, also when another writer committed in between (the files are
// written again after its records: the transaction's value wins).
func TestRollForward(t *testing.T) {
	for _, tc := range []struct {
		name string
		// crashAt is the number of the snapshot publish to crash at (1:
		// the first table's).
		crashAt      int64
		crashAfter   bool
		writeBetween bool
	}{
		{"before first table", 1, false, false},
		{"after first table", 1, true, false},
		{"before second table", 2, false, false},
		{"before first table, then a writer", 1, false, true},
		{"after first table, then a writer", 1, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wh, sts, sch := atomicWarehouse(t)
			ctx := context.Background()
			for i := range sts {
				if _, err := lsmwrite.CommitTransaction(ctx, sts[i], lsmwrite.TxCommit{Schema: sch[i], Records: upsert(1, 1)}); err != nil {
					t.Fatal(err)
				}
			}
			in := storage.CrashAt(tc.crashAt, tc.crashAfter, func(op storage.Op) bool {
				return op.Kind == storage.OpCreateIfNotExists && strings.Contains(op.Path, "snapshot/snapshot-")
			})
			fwh := storage.NewFaulty(wh, in)
			fsts := [2]storage.Storage{fwh.Sub("db.db/a"), fwh.Sub("db.db/b")}
			err := lsmwrite.CommitAtomic(ctx, fwh, atomicTables(fsts, sch, lsmwrite.TxCommit{Records: upsert(1, 10)}, lsmwrite.TxCommit{Records: upsert(1, 20)}))
			if !errors.Is(err, lsmwrite.ErrInDoubt) {
				t.Fatalf("err = %v, want ErrInDoubt", err)
			}
			if ids := txRecords(t, wh); len(ids) != 1 {
				t.Fatalf("records after the crash: %v", ids)
			}
			if tc.writeBetween {
				for i := range sts {
					if _, err := lsmwrite.CommitTransaction(ctx, sts[i], lsmwrite.TxCommit{Schema: sch[i], Records: upsert(1, 5)}); err != nil {
						t.Fatal(err)
					}
				}
			}
			res, err := lsmwrite.RollForwardAll(ctx, wh, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Transactions != 1 {
				t.Errorf("rolled forward %+v", res)
			}
			if ids := txRecords(t, wh); len(ids) != 0 {
				t.Errorf("records left: %v", ids)
			}
			wantA, wantB := int32(10), int32(20)
			if tc.writeBetween && tc.crashAfter {
				wantA = 5 // a committed before the crash, the writer after it
			}
			if got := valueOf(t, sts[0], sch[0], 1); got != wantA {
				t.Errorf("a: k=1 is %v, want %d", got, wantA)
			}
			if got := valueOf(t, sts[1], sch[1], 1); got != wantB {
				t.Errorf("b: k=1 is %v, want %d", got, wantB)
			}
			// Idempotent: nothing more to do.
			if res, err := lsmwrite.RollForwardAll(ctx, wh, time.Time{}); err != nil || res.Transactions != 0 {
				t.Errorf("second roll forward: %+v, %v", res, err)
			}
		})
	}
}

// TestRollForwardAllByTheStoresClock: a record's age is judged by the
// store's clock, which stamped it. On a store whose clock is 20 minutes
// behind this host's, a record its writer has just written is young
// (RollForwardAge not reached): the periodic pass leaves it to its writer,
// where the local clock would have found it 20 minutes old; once older
// than the bound by the store's clock, it is rolled forward.
func TestRollForwardAllByTheStoresClock(t *testing.T) {
	wh0, sts, sch := atomicWarehouse(t)
	ctx := context.Background()
	in := storage.CrashAt(1, false, func(op storage.Op) bool {
		return op.Kind == storage.OpCreateIfNotExists && strings.Contains(op.Path, "snapshot/snapshot-")
	})
	fwh := storage.NewFaulty(wh0, in)
	fsts := [2]storage.Storage{fwh.Sub("db.db/a"), fwh.Sub("db.db/b")}
	if err := lsmwrite.CommitAtomic(ctx, fwh, atomicTables(fsts, sch, lsmwrite.TxCommit{Records: upsert(1, 10)}, lsmwrite.TxCommit{Records: upsert(1, 20)})); !errors.Is(err, lsmwrite.ErrInDoubt) {
		t.Fatalf("err = %v, want ErrInDoubt", err)
	}
	wh := storagetest.Skewed{Storage: wh0, Skew: -20 * time.Minute}
	var young bool
	for info, err := range snapshot.ListTxRecords(ctx, wh) {
		if err != nil {
			t.Fatal(err)
		}
		young = time.Now().Add(-lsmwrite.RollForwardAge).Before(info.ModTime)
	}
	if young {
		t.Fatal("the skewed store's record looks young by the local clock: the test proves nothing")
	}
	now := storage.NewClock(wh).Now(ctx)
	if res, err := lsmwrite.RollForwardAll(ctx, wh, now.Add(-lsmwrite.RollForwardAge)); err != nil || res.Transactions != 0 {
		t.Fatalf("a record just written, by the store's clock: rolled forward %+v (%v)", res, err)
	}
	if res, err := lsmwrite.RollForwardAll(ctx, wh, now.Add(time.Second)); err != nil || res.Transactions != 1 {
		t.Fatalf("the record once older than the bound: rolled forward %+v (%v)", res, err)
	}
	if got := valueOf(t, sts[1], sch[1], 1); got != int32(20) {
		t.Errorf("b: k=1 is %v, want 20", got)
	}
}
