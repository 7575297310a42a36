package lsmwrite_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmread"
	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/snapshot"
)

// A statement's TableWrite (WriteStatement) flushes full buffers in a
// goroutine while its rows keep coming (flush_background.go).
// TestBackgroundFlushEqualsSyncFlush writes the same random rows — keys
// repeated across many flushes, NULLs, deletes for the engines that take
// them — through a statement's TableWrite and through an ordinary one
// (which flushes in Write) into twin tables of every merge engine, fixed
// and dynamic buckets, partitioned or not, and reads both back: the rows
// must be equal, and the buffered bytes (those in flight included) never
// pass write-buffer-size.

func backgroundTable(t *testing.T, st storage.Storage, engine string, bucket string, part bool) *schema.TableSchema {
	t.Helper()
	ts := &schema.TableSchema{
		Version: schema.SchemaVersionCurrent,
		Fields: []schema.DataField{
			{ID: 0, Name: "k", Type: schema.AtomicType(schema.TypeInt).WithNullable(false)},
			{ID: 1, Name: "p", Type: schema.AtomicType(schema.TypeInt).WithNullable(false)},
			{ID: 2, Name: "v", Type: schema.AtomicType(schema.TypeBigInt)},
			{ID: 3, Name: "s", Type: schema.StringType()},
		},
		HighestFieldID: 3,
		PrimaryKeys:    []string{"k", "p"},
		Options:        schema.Options{"bucket": bucket, "write-buffer-size": "8 kb", "merge-engine": engine, "dynamic-bucket.target-row-num": "100"},
	}
	if engine == "aggregation" {
		ts.Options["fields.v.aggregate-function"] = "sum"
		ts.Options["fields.s.aggregate-function"] = "last_non_null_value"
	}
	if part {
		ts.PartitionKeys = []string{"p"}
	}
	if err := snapshot.NewSchemaManager(st, "").Commit(context.Background(), ts); err != nil {
		t.Fatal(err)
	}
	return ts
}

func TestBackgroundFlushEqualsSyncFlush(t *testing.T) {
	seed := randomSeed(t)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	ctx := context.Background()
	for trial := 0; trial < 24; trial++ {
		engine := []string{"deduplicate", "partial-update", "aggregation", "first-row"}[rng.IntN(4)]
		bucket := []string{"1", "4", "-1"}[rng.IntN(3)]
		part := rng.IntN(2) == 0
		name := fmt.Sprintf("trial %d (%s, bucket %s, partitioned %v)", trial, engine, bucket, part)
		stBG, stSync := memStorage(t), memStorage(t)
		tsBG, tsSync := backgroundTable(t, stBG, engine, bucket, part), backgroundTable(t, stSync, engine, bucket, part)
		wBG, err := lsmwrite.WriteStatement(ctx, stBG, tsBG, lsmwrite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		wSync, err := lsmwrite.NewTableWrite(ctx, stSync, tsSync, nil, lsmwrite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		limit := int64(8 << 10)
		keys := 20 + rng.IntN(300)
		for j := range 500 + rng.IntN(4000) {
			k, p := int32(rng.IntN(keys)), int32(0)
			if part {
				p = int32(rng.IntN(3))
			}
			var v, s any = int64(rng.IntN(1000)), fmt.Sprintf("s%d", j)
			if rng.IntN(5) == 0 {
				v = nil
			}
			if rng.IntN(4) == 0 {
				s = nil
			}
			kind := kv.Insert
			if engine == "deduplicate" && rng.IntN(8) == 0 {
				kind = kv.Delete
			}
			for _, w := range []*lsmwrite.TableWrite{wBG, wSync} {
				if err := w.Write(ctx, kind, []any{k, p, v, s}); err != nil {
					t.Fatalf("%s: row %d: %v", name, j, err)
				}
			}
			if got := lsmwrite.BufferedBytes(wBG); got > limit {
				t.Fatalf("%s: row %d: %d bytes buffered, write-buffer-size is %d", name, j, got, limit)
			}
		}
		if wBG.FilesWritten() == 0 {
			t.Fatalf("%s: no file written before the commit", name)
		}
		sBG, err := lsmwrite.CommitTransaction(ctx, stBG, lsmwrite.TxCommit{Schema: tsBG, Written: wBG})
		if err != nil {
			t.Fatal(err)
		}
		sSync, err := wSync.Commit(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got := readAll(ctx, t, lsmread.OpenTable(stBG, ""), sBG.ID)
		want := readAll(ctx, t, lsmread.OpenTable(stSync, ""), sSync.ID)
		slices.Sort(got)
		slices.Sort(want)
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Fatalf("%s (seed %d): background flush %d rows, flush in Write %d rows:\n%s", name, seed, len(got), len(want), diffRows(got, want))
		}
	}
}

// TestBackgroundFlushFailure: a background flush that fails (its data
// file cannot be created) fails a later Write or the commit with its
// error, and the aborted statement leaves no data file behind.
func TestBackgroundFlushFailure(t *testing.T) {
	ctx := context.Background()
	var creates atomic.Int64
	in := &storage.Injector{Decide: func(op storage.Op) storage.Fault {
		if op.Kind == storage.OpCreate && strings.HasSuffix(op.Path, ".parquet") && creates.Add(1) > 3 {
			return storage.FailBefore
		}
		return storage.NoFault
	}}
	st := storage.NewFaulty(memStorage(t), in)
	ts := backgroundTable(t, st, "deduplicate", "4", false)
	w, err := lsmwrite.WriteStatement(ctx, st, ts, lsmwrite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for k := range int32(20000) {
		if err = w.Write(ctx, kv.Insert, []any{k, int32(0), int64(k), "x"}); err != nil {
			break
		}
	}
	if err == nil {
		_, err = lsmwrite.CommitTransaction(ctx, st, lsmwrite.TxCommit{Schema: ts, Written: w})
	} else if err2 := w.Abort(ctx); err2 != nil {
		t.Fatal(err2)
	}
	if !errors.Is(err, storage.ErrInjected) {
		t.Fatalf("statement with a failing flush: %v, want the injected error", err)
	}
	for info, err := range st.List(ctx, "") {
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(info.Path, ".parquet") {
			t.Errorf("file %s left by the failed statement", info.Path)
		}
	}
}
