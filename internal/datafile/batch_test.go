package datafile_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"

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
		checkDict(t, &b)
		for i := range b.Len {
			row := make([]any, len(b.Cols))
			b.Row(i, row)
			out = append(out, row)
		}
	}
}

// checkDict fails unless every string vector of b that carries a
// dictionary has Dict[Idx[i]] == Str[i] for each valid entry i; it returns
// how many vectors carry one.
func checkDict(t testing.TB, b *datafile.Batch) int {
	t.Helper()
	n := 0
	for c := range b.Cols {
		v := &b.Cols[c]
		if v.Dict == nil {
			continue
		}
		n++
		if v.Kind() != datafile.VectorString || len(v.Idx) < b.Len {
			t.Fatalf("column %d: a %v vector of %d rows with a dictionary and %d indexes", c, v.Kind(), b.Len, len(v.Idx))
		}
		for i := range b.Len {
			if v.IsNull(i) {
				continue
			}
			if x := v.Idx[i]; x < 0 || int(x) >= len(v.Dict) || v.Dict[x] != v.Str[i] {
				t.Fatalf("column %d row %d: index %d of a %d-entry dictionary for %q", c, i, x, len(v.Dict), v.Str[i])
			}
		}
	}
	return n
}

// dictRow is a row of TestNextBatchDictionaryPages' file, written by
// parquet-go with every column dictionary-encoded (as Java and Spark write
// them; lakesql only dictionary-encodes columns with few distinct values).
type dictRow struct {
	ID *int64   `parquet:"id,optional,dict"`
	I  *int32   `parquet:"i,optional,dict"`
	F  *float64 `parquet:"f,optional,dict"`
	S  *string  `parquet:"s,optional,dict"`
	D  *int64   `parquet:"d,optional,dict,decimal(2:12)"`
	N  string   `parquet:"n,dict"`
}

// dictRecords makes n rows of dictRow (NULLs in every nullable column)
// and the rows read back should give.
func dictRecords(n int) ([]dictRow, [][]any) {
	rng := rand.New(rand.NewPCG(3, 9))
	var recs []dictRow
	var want [][]any
	for range n {
		k := rng.IntN(40)
		id, i, f, s, d := int64(k*1000), int32(-k), float64(k)/4, fmt.Sprint("s", k%13), int64(k*101-2000)
		rec := dictRow{&id, &i, &f, &s, &d, fmt.Sprint("n", k%3)}
		row := []any{id, i, f, s, schema.Decimal{Compact: d, Scale: 2}, rec.N}
		for c := range 5 {
			if rng.IntN(7) == 0 {
				row[c] = nil
				switch c {
				case 0:
					rec.ID = nil
				case 1:
					rec.I = nil
				case 2:
					rec.F = nil
				case 3:
					rec.S = nil
				case 4:
					rec.D = nil
				}
			}
		}
		recs = append(recs, rec)
		want = append(want, row)
	}
	return recs, want
}

// dictRows is the rows of dictFile(n, ...).
func dictRows(n int) [][]any {
	_, want := dictRecords(n)
	return want
}

// dictFile writes dictRecords(n) with parquet-go, every column
// dictionary-encoded and zstd-compressed, groupRows rows per row group.
func dictFile(tb testing.TB, n, groupRows int) []byte {
	tb.Helper()
	recs, _ := dictRecords(n)
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[dictRow](&buf, parquet.Compression(&zstd.Codec{}), parquet.PageBufferSize(4096), parquet.MaxRowsPerRowGroup(int64(groupRows)))
	if _, err := w.Write(recs); err != nil {
		tb.Fatal(err)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// TestNextBatchDictionaryPages: dictionary-encoded BIGINT, INT, DOUBLE,
// string and DECIMAL columns with NULLs decode into typed vectors as Next
// decodes them, and string vectors carry their dictionary and indexes.
func TestNextBatchDictionaryPages(t *testing.T) {
	typ := func(root schema.TypeRoot, p, s int, null bool) schema.DataType {
		return schema.DataType{Root: root, Nullable: null, Precision: p, Scale: s}
	}
	cols := []datafile.Column{
		{Name: "id", Type: typ(schema.TypeBigInt, 0, 0, true)},
		{Name: "i", Type: typ(schema.TypeInt, 0, 0, true)},
		{Name: "f", Type: typ(schema.TypeDouble, 0, 0, true)},
		{Name: "s", Type: typ(schema.TypeVarChar, 0, 0, true)},
		{Name: "d", Type: typ(schema.TypeDecimal, 12, 2, true)},
		{Name: "n", Type: typ(schema.TypeVarChar, 0, 0, false)},
	}
	want := dictRows(5000)
	data := dictFile(t, 5000, 2000)
	for _, max := range []int{1, 7, 1024, 5000} {
		r, err := datafile.OpenParquet(bytesFile(data), cols, datafile.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var b datafile.Batch
		dicts, at := 0, 0
		for {
			err := r.NextBatch(&b, max)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			dicts += checkDict(t, &b)
			row := make([]any, len(cols))
			for i := range b.Len {
				b.Row(i, row)
				if g, w := renderRow(row), renderRow(want[at+i]); g != w {
					t.Fatalf("batches of %d, row %d:\n got %s\nwant %s", max, at+i, g, w)
				}
			}
			at += b.Len
		}
		r.Close()
		if at != len(want) {
			t.Fatalf("batches of %d: %d rows, want %d", max, at, len(want))
		}
		if dicts == 0 {
			t.Fatalf("batches of %d: no string vector carried its dictionary", max)
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
	f.Add(dictFile(f, 300, 150)) // every column dictionary-encoded, as Java and Spark write them
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
			checkDict(t, &b)
		}
	})
}
