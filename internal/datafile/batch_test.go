package datafile_test

import (
	"errors"
	"io"
	"path/filepath"
	"testing"

	"github.com/lakesql/lakesql/internal/datafile"
	"github.com/lakesql/lakesql/internal/testutil"
)

// readBatches reads every row through NextBatch, boxing rows at the end.
func readBatches(t testing.TB, r *datafile.ParquetReader, max int) [][]any {
	t.Helper()
	var b datafile.Batch
	var out [][]any
	for {
		err := r.NextBatch(&b, max)
		if errors.Is(err, io.EOF) {
			if b.Len != 0 {
				t.Fatalf("EOF with %d rows", b.Len)
			}
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		for i := range b.Len {
			row := make([]any, len(b.Cols))
			b.Row(i, row)
			out = append(out, row)
		}
	}
}

// TestNextBatchEqualsNext: every Java-written fixture data file reads the
// same, row for row, through column batches as through Next.
func TestNextBatchEqualsNext(t *testing.T) {
	typed := 0
	for _, p := range fixtureDataFiles(t) {
		rel, _ := filepath.Rel(testutil.FixturesDir(t), p)
		r1, cols := openFixture(t, p, datafile.ReadOptions{})
		want := readAll(t, r1, 100)
		r2, _ := openFixture(t, p, datafile.ReadOptions{})
		got := readBatches(t, r2, 7)
		if len(got) != len(want) {
			t.Fatalf("%s: %d rows through batches, %d through Next", rel, len(got), len(want))
		}
		for i := range want {
			if g, w := renderRow(got[i]), renderRow(want[i]); g != w {
				t.Fatalf("%s row %d:\n batch %s\n  next %s", rel, i, g, w)
			}
		}
		for _, c := range cols {
			if datafile.KindOf(&c.Type) != datafile.VectorAny {
				typed++
			}
		}
	}
	if typed == 0 {
		t.Fatal("no fixture column read into a typed vector")
	}
}

// TestNextBatchNested: nested columns and NULLs (the synthetic file) read
// the same through batches.
func TestNextBatchNested(t *testing.T) {
	recs, want := makeNested(1000)
	data := writeNested(t, recs, 300)
	r, err := datafile.OpenParquet(bytesFile(data), nestedCols(), datafile.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := readBatches(t, r, 37)
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if g, w := renderRow(got[i]), renderRow(want[i]); g != w {
			t.Fatalf("row %d:\n got %s\nwant %s", i, g, w)
		}
	}
}
