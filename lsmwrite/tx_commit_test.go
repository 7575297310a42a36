package lsmwrite_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmread"
	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/snapshot"
)

func txTable(t *testing.T) (storage.Storage, *schema.TableSchema) {
	t.Helper()
	st, err := storage.Open(context.Background(), "mem://")
	if err != nil {
		t.Fatal(err)
	}
	ts := &schema.TableSchema{
		Version: schema.SchemaVersionCurrent,
		Fields: []schema.DataField{
			{ID: 0, Name: "k", Type: schema.AtomicType(schema.TypeInt).WithNullable(false)},
			{ID: 1, Name: "v", Type: schema.AtomicType(schema.TypeInt)},
		},
		HighestFieldID: 1,
		PrimaryKeys:    []string{"k"},
		Options:        schema.Options{"bucket": "2", "commit.min-retry-wait": "1 ms", "commit.max-retry-wait": "20 ms", "commit.max-retries": "100"},
	}
	if err := snapshot.NewSchemaManager(st, "").Commit(context.Background(), ts); err != nil {
		t.Fatal(err)
	}
	return st, ts
}

func valueOf(t *testing.T, st storage.Storage, ts *schema.TableSchema, k int32) any {
	t.Helper()
	row, _, err := lsmread.OpenTable(st, "").LookupKey(context.Background(), ts, []any{k, nil})
	if err != nil {
		t.Fatal(err)
	}
	if row == nil {
		return nil
	}
	return row[1]
}

// TestCommitTransactionLaterCommitWins: transactions racing for one key
// each commit (files written again on the newer base when they lose a
// race), and the key ends with the value of the last snapshot's writer.
func TestCommitTransactionLaterCommitWins(t *testing.T) {
	st, ts := txTable(t)
	ctx := context.Background()
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = lsmwrite.CommitTransaction(ctx, st, lsmwrite.TxCommit{
				Schema:  ts,
				Records: []kv.KeyValue{{Kind: kv.Insert, Value: []any{int32(1), int32(i)}}},
				Options: lsmwrite.Options{CommitUser: fmt.Sprintf("user-%d", i)},
			})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("writer %d: %v", i, err)
		}
	}
	latest, err := snapshot.NewSnapshotManager(st, "").Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if latest.ID != n {
		t.Fatalf("%d snapshots, want %d", latest.ID, n)
	}
	var last int32
	if _, err := fmt.Sscanf(latest.CommitUser, "user-%d", &last); err != nil {
		t.Fatal(err)
	}
	if got := valueOf(t, st, ts, 1); got != last {
		t.Errorf("k=1 has %v, want %d, the value of the last snapshot's writer", got, last)
	}
}

// TestCommitTransactionReadConflict: a commit after the transaction's read
// base that writes a key the transaction read fails it with
// ErrReadConflict, and nothing of it is committed; a key it did not read
// does not.
func TestCommitTransactionReadConflict(t *testing.T) {
	st, ts := txTable(t)
	ctx := context.Background()
	write := func(k, v int32, tx lsmwrite.TxCommit) error {
		tx.Schema = ts
		tx.Records = []kv.KeyValue{{Kind: kv.Insert, Value: []any{k, v}}}
		_, err := lsmwrite.CommitTransaction(ctx, st, tx)
		return err
	}
	if err := write(1, 10, lsmwrite.TxCommit{}); err != nil {
		t.Fatal(err)
	}
	// The transaction read k=1 at snapshot 1; another writer changes k=2,
	// then k=1.
	read1 := func(key []byte) bool { return string(key) == string(kv.AppendKey(nil, []any{int32(1)}, []int{0})) }
	if err := write(2, 20, lsmwrite.TxCommit{}); err != nil {
		t.Fatal(err)
	}
	if err := write(1, 11, lsmwrite.TxCommit{ReadBase: 1, ReadKey: read1}); err != nil {
		t.Fatalf("k=2 changed after the read of k=1: %v", err)
	}
	if err := write(1, 12, lsmwrite.TxCommit{}); err != nil {
		t.Fatal(err)
	}
	err := write(1, 13, lsmwrite.TxCommit{ReadBase: 3, ReadKey: read1})
	if !errors.Is(err, lsmwrite.ErrReadConflict) || !errors.Is(err, snapshot.ErrConflict) {
		t.Fatalf("k=1 changed after the read: %v, want ErrReadConflict", err)
	}
	if got := valueOf(t, st, ts, 1); got != int32(12) {
		t.Errorf("after the conflict k=1 has %v, want 12", got)
	}
	if err := write(1, 14, lsmwrite.TxCommit{ReadBase: 4, ReadKey: read1}); err != nil {
		t.Errorf("read at the latest snapshot: %v", err)
	}
}
