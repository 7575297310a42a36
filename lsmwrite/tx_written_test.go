package lsmwrite_test

import (
	"context"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/snapshot"
)

// liveFiles lists the data files of the latest snapshot.
func liveFiles(t *testing.T, st storage.Storage) []string {
	t.Helper()
	ctx := context.Background()
	s, err := snapshot.NewSnapshotManager(st, "").Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	live, err := snapshot.LiveEntries(ctx, st, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range live {
		out = append(out, lsmwrite.BucketDir(e.Bucket)+"/"+e.File.FileName)
	}
	slices.Sort(out)
	return out
}

// TestWrittenFilesCommit: a statement's rows written as files while it
// runs (WriteStatement, several flushes with keys repeated across them)
// commit as they are when nothing committed since their snapshot, and are
// written again on the latest snapshot when another writer committed in
// between (their rows still win: they commit later), the files written
// first deleted; either way the table holds the model's rows and no file
// outside the snapshot. An aborted statement leaves no file.
func TestWrittenFilesCommit(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	ctx := context.Background()
	for _, between := range []bool{false, true} {
		st, ts := txTable(t)
		model := map[int32]int32{}
		commit := func(recs map[int32]int32) {
			var kvs []kv.KeyValue
			for k, v := range recs {
				kvs = append(kvs, kv.KeyValue{Kind: kv.Insert, Value: []any{k, v}})
				model[k] = v
			}
			if _, err := lsmwrite.CommitTransaction(ctx, st, lsmwrite.TxCommit{Schema: ts, Records: kvs}); err != nil {
				t.Fatal(err)
			}
		}
		commit(map[int32]int32{1: -1, 2: -2, 500: -500})

		// An aborted statement deletes its files.
		before := dataFiles(t, st)
		w, err := lsmwrite.WriteStatement(ctx, st, ts, lsmwrite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for k := range int32(50) {
			if err := w.Write(ctx, kv.Insert, []any{k, int32(7)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if err := w.Abort(ctx); err != nil {
			t.Fatal(err)
		}
		if got := dataFiles(t, st); !slices.Equal(got, before) {
			t.Fatalf("after an aborted statement: files %v, want %v", got, before)
		}

		w, err = lsmwrite.WriteStatement(ctx, st, ts, lsmwrite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		stmt := map[int32]int32{}
		for flush := 0; flush < 4; flush++ {
			for range 30 + r.Intn(30) {
				k, v := int32(r.Intn(60)), int32(r.Intn(1000))
				if err := w.Write(ctx, kv.Insert, []any{k, v}); err != nil {
					t.Fatal(err)
				}
				stmt[k] = v
			}
			if err := w.Flush(ctx); err != nil {
				t.Fatal(err)
			}
		}
		for range 20 { // left in the buffer for the commit
			k, v := int32(r.Intn(60)), int32(r.Intn(1000))
			if err := w.Write(ctx, kv.Insert, []any{k, v}); err != nil {
				t.Fatal(err)
			}
			stmt[k] = v
		}
		if between {
			other := map[int32]int32{}
			for range 40 {
				other[int32(r.Intn(80))] = int32(2000 + r.Intn(1000))
			}
			commit(other)
		}
		if _, err := lsmwrite.CommitTransaction(ctx, st, lsmwrite.TxCommit{Schema: ts, Written: w}); err != nil {
			t.Fatal(err)
		}
		for k, v := range stmt {
			model[k] = v
		}
		for k := int32(0); k <= 500; k++ {
			want, ok := model[k]
			got := valueOf(t, st, ts, k)
			if !ok && got != nil || ok && got != want {
				t.Fatalf("between=%v: key %d = %v, want %v (present %v)", between, k, got, want, ok)
			}
		}
		s, err := snapshot.NewSnapshotManager(st, "").Latest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		live := liveFiles(t, st)
		if got := dataFiles(t, st); !slices.Equal(got, live) {
			t.Errorf("between=%v: files %v, snapshot %d holds %v", between, got, s.ID, live)
		}
	}
}
