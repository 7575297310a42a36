package datafile_test

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/lakesql/lakesql/internal/datafile"
	"github.com/lakesql/lakesql/internal/schema"
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

// FuzzNextBatch: corrupt bytes of a data file with BIGINT, INT, DOUBLE,
// string and DECIMAL columns (decoded into typed vectors: DECIMAL(12,2) as
// unscaled int64) give errors from the columnar decoder, not panics.
func FuzzNextBatch(f *testing.F) {
	typ := func(root schema.TypeRoot, p, s int) schema.DataType {
		return schema.DataType{Root: root, Nullable: true, Precision: p, Scale: s}
	}
	cols := []datafile.Column{
		{ID: 1, Name: "id", Type: typ(schema.TypeBigInt, 0, 0)},
		{ID: 2, Name: "i", Type: typ(schema.TypeInt, 0, 0)},
		{ID: 3, Name: "f", Type: typ(schema.TypeDouble, 0, 0)},
		{ID: 4, Name: "s", Type: schema.DataType{Root: schema.TypeVarChar, Nullable: true, Length: 10}},
		{ID: 5, Name: "d", Type: typ(schema.TypeDecimal, 12, 2)},
		{ID: 6, Name: "w", Type: typ(schema.TypeDecimal, 30, 6)},
	}
	var rows [][]any
	for k := range 300 {
		row := []any{int64(k), int32(-k), float64(k) / 4, fmt.Sprint("s", k%7),
			schema.Decimal{Compact: int64(k*101 - 5000), Scale: 2}, schema.Decimal{Compact: int64(k), Scale: 6}}
		if k%5 == 0 {
			row[k%6] = nil
		}
		rows = append(rows, row)
	}
	data, _ := writeRows(f, cols, datafile.WriterOptions{}, rows)
	f.Add(data)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<20 {
			return
		}
		r, err := datafile.OpenParquet(bytesFile(data), cols, datafile.ReadOptions{})
		if err != nil {
			return
		}
		defer r.Close()
		var b datafile.Batch
		for range 10000 {
			if err := r.NextBatch(&b, 64); err != nil {
				return
			}
			for i := range b.Len {
				for c := range b.Cols {
					b.Cols[c].Value(i)
				}
			}
		}
	})
}
