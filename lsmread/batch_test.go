package lsmread_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/lakesql/lakesql/internal/datafile"
	"github.com/lakesql/lakesql/lsmread"
)

// readSplitBatches reads a split through ReadBatches, boxing the selected
// rows of each batch.
func readSplitBatches(ctx context.Context, r *lsmread.Reader, split *lsmread.DataSplit) ([][]any, error) {
	it, err := r.ReadBatches(ctx, split)
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var b datafile.Batch
	var rows [][]any
	for {
		if err := it.Next(&b); err != nil {
			if errors.Is(err, io.EOF) {
				return rows, nil
			}
			return nil, err
		}
		for i := range b.Rows() {
			k := i
			if b.Sel != nil {
				k = int(b.Sel[i])
			}
			row := make([]any, len(b.Cols))
			b.Row(k, row)
			rows = append(rows, row)
		}
	}
}

// TestBatchesEqualRows: the columnar read of every split of every fixture
// snapshot equals its row read, for the full scan and for random filters
// with random projections (raw splits decode pages into vectors, merged
// splits collect merged rows).
func TestBatchesEqualRows(t *testing.T) {
	ctx := context.Background()
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(seed, 7))
	var raw, merged int
	for _, s := range fixtureSnapshotReads(t) {
		g := &predicateGen{rng: rng, sch: s.plan.Schema, rows: s.rows}
		for i, f := range s.plan.Schema.Fields {
			if comparableType(&f.Type) {
				g.fields = append(g.fields, i)
			}
		}
		specs := []lsmread.ScanSpec{s.spec()}
		for range 5 {
			spec := s.spec()
			if len(g.fields) > 0 {
				spec.Filter = g.predicate()
			}
			fields := s.plan.Schema.Fields
			for _, j := range rng.Perm(len(fields))[:1+rng.IntN(len(fields))] {
				spec.Projection = append(spec.Projection, fields[j].Name)
			}
			specs = append(specs, spec)
		}
		for _, spec := range specs {
			plan, err := s.plan.Table.Plan(ctx, spec)
			if err != nil {
				t.Fatal(err)
			}
			r, err := plan.NewReader()
			if err != nil {
				t.Fatal(err)
			}
			for _, split := range plan.Splits {
				want, err := readSplit(ctx, r, split)
				if err != nil {
					t.Fatal(err)
				}
				got, err := readSplitBatches(ctx, r, split)
				if err != nil {
					t.Fatalf("%s: %v", s, err)
				}
				what := fmt.Sprintf("%s %s SELECT %v WHERE %v (seed %d)", s, split, spec.Projection, spec.Filter, seed)
				if len(got) != len(want) {
					t.Fatalf("%s: %d rows in batches, %d rows", what, len(got), len(want))
				}
				for i := range want {
					if g, w := canonRow(got[i]), canonRow(want[i]); g != w {
						t.Fatalf("%s: row %d: batch %s, row read %s", what, i, g, w)
					}
				}
				if split.Mode == lsmread.ReadRaw {
					raw++
				} else {
					merged++
				}
			}
		}
	}
	t.Logf("%d raw and %d merged split reads compared (seed %d)", raw, merged, seed)
	if raw == 0 || merged == 0 {
		t.Fatalf("compared %d raw and %d merged split reads; want both", raw, merged)
	}
}
