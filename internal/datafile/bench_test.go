package datafile_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/parquet-go/parquet-go"

	"github.com/lakesql/lakesql/internal/datafile"
	"github.com/lakesql/lakesql/internal/schema"
)

// benchRow is a primary-key data file row: _KEY_id, _SEQUENCE_NUMBER,
// _VALUE_KIND, then the table columns id, v, d, amt DECIMAL(18,2) and a
// nullable note.
type benchRow struct {
	KeyID string  `parquet:"_KEY_id,id(1073741823)"`
	Seq   int64   `parquet:"_SEQUENCE_NUMBER,id(2147483646)"`
	Kind  int8    `parquet:"_VALUE_KIND,id(2147483645)"`
	ID    string  `parquet:"id,id(0)"`
	V     int64   `parquet:"v,id(1)"`
	D     float64 `parquet:"d,id(2)"`
	Amt   int64   `parquet:"amt,id(3),decimal(2:18)"`
	Note  *string `parquet:"note,id(4),optional"`
}

const benchRows = 1 << 20

var benchFile = sync.OnceValues(func() ([]byte, error) {
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[benchRow](&buf, parquet.Compression(&parquet.Zstd), parquet.MaxRowsPerRowGroup(256*1024))
	rows := make([]benchRow, 0, 4096)
	for i := range benchRows {
		key := fmt.Sprintf("key-%09d", i)
		r := benchRow{KeyID: key, Seq: int64(i), ID: key, V: int64(i) * 7919 % 1000003, D: float64(i) / 3, Amt: int64(i)*13 - 500000}
		if i%3 != 0 {
			s := fmt.Sprintf("note %d", i%1000)
			r.Note = &s
		}
		rows = append(rows, r)
		if len(rows) == cap(rows) {
			if _, err := w.Write(rows); err != nil {
				return nil, err
			}
			rows = rows[:0]
		}
	}
	if _, err := w.Write(rows); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
})

var benchCols = []datafile.Column{
	{ID: 1073741823, Name: "_KEY_id", Type: schema.DataType{Root: schema.TypeVarChar, Length: schema.MaxLength}},
	{ID: 2147483646, Name: "_SEQUENCE_NUMBER", Type: schema.DataType{Root: schema.TypeBigInt}},
	{ID: 2147483645, Name: "_VALUE_KIND", Type: schema.DataType{Root: schema.TypeTinyInt}},
	{ID: 0, Name: "id", Type: schema.DataType{Root: schema.TypeVarChar, Length: schema.MaxLength}},
	{ID: 1, Name: "v", Type: schema.DataType{Root: schema.TypeBigInt}},
	{ID: 2, Name: "d", Type: schema.DataType{Root: schema.TypeDouble}},
	{ID: 3, Name: "amt", Type: schema.DataType{Root: schema.TypeDecimal, Precision: 18, Scale: 2}},
	{ID: 4, Name: "note", Type: schema.DataType{Root: schema.TypeVarChar, Length: schema.MaxLength, Nullable: true}},
}

// projected: the key, one BIGINT and the decimal.
var benchProjection = []int{0, 4, 6}

func loadBenchFile(b *testing.B) []byte {
	data, err := benchFile()
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkReadParquetGo reads rows of the value model with this package
// (parquet-go page-level typed decoding).
func BenchmarkReadParquetGo(b *testing.B) {
	data := loadBenchFile(b)
	for _, tc := range []struct {
		name string
		cols []datafile.Column
	}{
		{"full", benchCols},
		{"projected", []datafile.Column{benchCols[0], benchCols[4], benchCols[6]}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			rows := make([][]any, 1024)
			for b.Loop() {
				r, err := datafile.OpenParquet(bytesFile(data), tc.cols, datafile.ReadOptions{})
				if err != nil {
					b.Fatal(err)
				}
				total := 0
				for {
					n, err := r.Next(rows)
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					total += n
				}
				r.Close()
				if total != benchRows {
					b.Fatalf("read %d rows", total)
				}
			}
		})
	}
}

// BenchmarkReadPqarrow reads the same file with arrow-go pqarrow: "records"
// decodes into Arrow record batches only; "rows" also converts them to rows
// of the value model, which is what the read path needs.
func BenchmarkReadPqarrow(b *testing.B) {
	data := loadBenchFile(b)
	for _, tc := range []struct {
		name string
		cols []int
	}{
		{"full", []int{0, 1, 2, 3, 4, 5, 6, 7}},
		{"projected", benchProjection},
	} {
		for _, toRows := range []bool{false, true} {
			name := tc.name + "/records"
			if toRows {
				name = tc.name + "/rows"
			}
			b.Run(name, func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				rows := make([][]any, 0, 64*1024)
				for b.Loop() {
					pr, err := file.NewParquetReader(bytes.NewReader(data))
					if err != nil {
						b.Fatal(err)
					}
					fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{BatchSize: 64 * 1024}, memory.DefaultAllocator)
					if err != nil {
						b.Fatal(err)
					}
					rr, err := fr.GetRecordReader(context.Background(), tc.cols, nil)
					if err != nil {
						b.Fatal(err)
					}
					total := 0
					for rr.Next() {
						rec := rr.RecordBatch()
						n := int(rec.NumRows())
						total += n
						if toRows {
							rows = arrowToRows(b, rec, rows[:0])
						}
					}
					if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
						b.Fatal(err)
					}
					rr.Release()
					pr.Close()
					if total != benchRows {
						b.Fatalf("read %d rows", total)
					}
				}
			})
		}
	}
}

// arrowToRows converts a record batch to rows of the value model, with the
// same per-value boxing as the parquet-go path.
func arrowToRows(b *testing.B, rec arrow.RecordBatch, rows [][]any) [][]any {
	n := int(rec.NumRows())
	nc := int(rec.NumCols())
	for i := range n {
		if i < cap(rows) && i < len(rows[:cap(rows)]) && cap(rows[:cap(rows)][i]) >= nc {
			rows = append(rows, rows[:cap(rows)][i][:nc])
		} else {
			rows = append(rows, make([]any, nc))
		}
	}
	for c := range nc {
		col := rec.Column(c)
		switch a := col.(type) {
		case *array.String:
			for i := range n {
				if a.IsNull(i) {
					rows[i][c] = nil
				} else {
					rows[i][c] = strings.Clone(a.Value(i))
				}
			}
		case *array.Int64:
			for i, v := range a.Int64Values() {
				rows[i][c] = v
			}
		case *array.Int8:
			for i, v := range a.Int8Values() {
				rows[i][c] = v
			}
		case *array.Float64:
			for i, v := range a.Float64Values() {
				rows[i][c] = v
			}
		case *array.Decimal128:
			for i := range n {
				v := a.Value(i)
				rows[i][c] = schema.Decimal{Compact: int64(v.LowBits()), Scale: 2}
			}
		default:
			b.Fatalf("unexpected arrow column %T", col)
		}
	}
	return rows
}
