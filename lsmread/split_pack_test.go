package lsmread_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmread"
	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/snapshot"
)

// TestTinySplitTargetChangesNothing: on every snapshot of every readable
// Java fixture, a split target of one byte (every file that needs no merge,
// and every section of a bucket that merges, a split of its own) reads the
// same rows as one split per bucket; it fails if no bucket of either kind
// was ever cut.
func TestTinySplitTargetChangesNothing(t *testing.T) {
	var rawCut, mergeCut int
	for _, s := range fixtureSnapshotReads(t) {
		spec := s.spec()
		spec.OptionOverrides = map[string]string{"source.split.target-size": "1b"}
		plan, got := mustRead(t, s.plan.Table, spec)
		sameMultiset(t, s.String()+" target 1b", got, s.rows)
		if len(plan.Splits) < len(s.plan.Splits) {
			t.Fatalf("%s: %d splits with a tiny target, %d without", s, len(plan.Splits), len(s.plan.Splits))
		}
		pieces := map[string]int{}
		for _, sp := range plan.Splits {
			pieces[fmt.Sprint(sp.Partition, sp.Bucket)]++
		}
		for _, sp := range s.plan.Splits {
			if pieces[fmt.Sprint(sp.Partition, sp.Bucket)] < 2 {
				continue
			}
			switch sp.Mode {
			case lsmread.ReadRaw:
				rawCut++
			case lsmread.ReadMerge:
				mergeCut++
			}
		}
	}
	t.Logf("buckets cut: %d read as they are, %d merged", rawCut, mergeCut)
	if rawCut == 0 || mergeCut == 0 {
		t.Fatalf("no bucket cut: %d raw, %d merged", rawCut, mergeCut)
	}
}

// TestTinySplitTargetRandomHistories: random histories of a one-bucket
// table per merge engine (commits of key windows, deletes, flushes inside a
// commit, full and normal compactions) read after every commit with a
// 1-byte split target, as rows and as column batches, equal the read as one
// split per bucket; it fails if no merged bucket is ever cut between its
// sections.
func TestTinySplitTargetRandomHistories(t *testing.T) {
	seed := testSeed(t)
	ctx := context.Background()
	mergeCut := 0
	for ei, engine := range []map[string]string{
		{}, {"merge-engine": "partial-update"},
		{"merge-engine": "aggregation", "fields.v.aggregate-function": "sum"},
		{"merge-engine": "first-row"}, {"deletion-vectors.enabled": "true"},
	} {
		rng := rand.New(rand.NewPCG(seed, uint64(ei)))
		st, err := storage.Open(ctx, "file://"+t.TempDir()+"?fsync=false")
		if err != nil {
			t.Fatal(err)
		}
		opts := map[string]string{"bucket": "1", "write-only": "true"}
		for k, v := range engine {
			opts[k] = v
		}
		ts := &schema.TableSchema{
			Version: schema.SchemaVersionCurrent,
			Fields: []schema.DataField{
				{ID: 0, Name: "k", Type: schema.AtomicType(schema.TypeInt).WithNullable(false)},
				{ID: 1, Name: "v", Type: schema.AtomicType(schema.TypeBigInt)},
			},
			HighestFieldID: 1,
			PrimaryKeys:    []string{"k"},
			Options:        opts,
		}
		if err := snapshot.NewSchemaManager(st, "main").Commit(ctx, ts); err != nil {
			t.Fatal(err)
		}
		tbl := lsmread.OpenTable(st, "")
		var base *snapshot.Snapshot
		deletes := engine["merge-engine"] == ""
		for step := range 12 {
			w, err := lsmwrite.NewTableWrite(ctx, st, ts, base, lsmwrite.Options{})
			if err != nil {
				t.Fatal(err)
			}
			lo, width := rng.IntN(300), 1+rng.IntN(40)
			for range 1 + rng.IntN(40) {
				kind := kv.Insert
				if deletes && rng.IntN(5) == 0 {
					kind = kv.Delete
				}
				if err := w.Write(ctx, kind, []any{int32(lo + rng.IntN(width)), int64(rng.IntN(100))}); err != nil {
					t.Fatal(err)
				}
				if rng.IntN(15) == 0 {
					if err := w.Flush(ctx); err != nil {
						t.Fatal(err)
					}
				}
			}
			if base, err = w.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			if rng.IntN(5) == 0 {
				if _, err := lsmwrite.Compact(ctx, snapshot.OpenTable(st, ""), lsmwrite.CompactRequest{Full: rng.IntN(2) == 0}); err != nil {
					t.Fatal(err)
				}
			}
			what := fmt.Sprintf("seed %d engine %v step %d", seed, engine, step)
			one, want := mustRead(t, tbl, lsmread.ScanSpec{})
			spec := lsmread.ScanSpec{OptionOverrides: map[string]string{"source.split.target-size": "1b"}}
			cut, got := mustRead(t, tbl, spec)
			sameMultiset(t, what+": rows", got, want)
			batches, err := readPlanBatches(ctx, cut)
			if err != nil {
				t.Fatal(err)
			}
			sameMultiset(t, what+": batches", batches, want)
			if len(one.Splits) == 1 && one.Splits[0].Mode == lsmread.ReadMerge && len(cut.Splits) > 1 {
				mergeCut++
			}
		}
		st.Close()
	}
	t.Logf("seed %d: %d reads of a merged bucket cut between sections", seed, mergeCut)
	if mergeCut == 0 {
		t.Fatalf("seed %d: no merged bucket was cut", seed)
	}
}
