package lsmread_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmread"
)

// TestColumnMergeRepeatedKeys: sorted runs that hold a key more than once
// (written directly in Java's KeyValue layout: lakesql and Java writers
// never do, a run holds a key once) are merged over column batches as the
// row merge merges them: every record of a key counts, in sequence order,
// across batch boundaries (runs of 3000 records, batches of 1024), with
// retractions and NULLs.
func TestColumnMergeRepeatedKeys(t *testing.T) {
	ctx := context.Background()
	seed := testSeed(t)
	for round := range 4 {
		rng := rand.New(rand.NewPCG(seed, uint64(round)))
		st, err := storage.Open(ctx, "file://"+t.TempDir()+"?fsync=false")
		if err != nil {
			t.Fatal(err)
		}
		if err := writeBigTableSchema(ctx, st); err != nil {
			t.Fatal(err)
		}
		var seq int64
		var gens []func(emit func(kvRecord) error) error
		for range 2 + rng.IntN(3) {
			// Keys ascend; a key repeats up to 3 times with ascending
			// sequence numbers (each file's range of its own).
			n := 3000
			lo := rng.Int64N(2000)
			recs := make([]kvRecord, 0, n)
			for k := lo; len(recs) < n; k += 1 + rng.Int64N(2) {
				for range 1 + rng.IntN(3) {
					if len(recs) == n {
						break
					}
					r := kvRecord{KeyID: k, Seq: seq, Kind: []int8{0, 0, 2, 3, 1}[rng.IntN(5)], ID: k}
					seq++
					if rng.IntN(4) > 0 {
						s := fmt.Sprintf("v%d", rng.IntN(100))
						r.Name = &s
					}
					a := float64(rng.IntN(1000))
					r.Amount = &a
					recs = append(recs, r)
				}
			}
			gens = append(gens, func(emit func(kvRecord) error) error {
				for _, r := range recs {
					if err := emit(r); err != nil {
						return err
					}
				}
				return nil
			})
		}
		if _, _, err := writeKVSnapshot(ctx, st, gens); err != nil {
			t.Fatal(err)
		}
		tbl := lsmread.OpenTable(st, "")
		read := func(columns bool) ([][]any, [][]any) {
			defer lsmread.SetReadColumnMerge(columns)()
			plan, err := tbl.Plan(ctx, lsmread.ScanSpec{})
			if err != nil {
				t.Fatal(err)
			}
			rows, err := readPlan(ctx, plan)
			if err != nil {
				t.Fatal(err)
			}
			batches, err := readPlanBatches(ctx, plan)
			if err != nil {
				t.Fatal(err)
			}
			return rows, batches
		}
		col0 := lsmread.ColumnMergedSections()
		colRows, colBatches := read(true)
		if lsmread.ColumnMergedSections() == col0 {
			t.Fatal("the column merge did not merge the bucket")
		}
		rows, _ := read(false)
		if len(rows) == 0 {
			t.Fatal("no row merged")
		}
		what := fmt.Sprintf("seed %d round %d", seed, round)
		sameMultiset(t, what+": column-merged rows vs merged rows", colRows, rows)
		sameMultiset(t, what+": column-merged batches vs merged rows", colBatches, rows)
	}
}
