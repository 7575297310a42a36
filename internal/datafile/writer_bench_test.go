package datafile_test

import (
	"fmt"
	"io"
	"testing"

	"github.com/lakesql/lakesql/internal/datafile"
	"github.com/lakesql/lakesql/internal/schema"
)

// pkBenchColumns is a primary-key layout: a string key, the system columns,
// then key, BIGINT, DOUBLE, DECIMAL(18,2) and a nullable string.
func pkBenchColumns() []datafile.Column {
	str := schema.DataType{Root: schema.TypeVarChar, Length: schema.MaxLength}
	strN := str
	strN.Nullable = true
	return []datafile.Column{
		{ID: datafile.KeyFieldID(0), Name: "_KEY_k", Type: str},
		{ID: datafile.SequenceNumberFieldID, Name: datafile.SequenceNumberName, Type: schema.DataType{Root: schema.TypeBigInt}},
		{ID: datafile.ValueKindFieldID, Name: datafile.ValueKindName, Type: schema.DataType{Root: schema.TypeTinyInt}},
		{ID: 0, Name: "k", Type: str},
		{ID: 1, Name: "n", Type: schema.DataType{Root: schema.TypeBigInt, Nullable: true}},
		{ID: 2, Name: "x", Type: schema.DataType{Root: schema.TypeDouble, Nullable: true}},
		{ID: 3, Name: "amt", Type: schema.DataType{Root: schema.TypeDecimal, Precision: 18, Scale: 2, Nullable: true}},
		{ID: 4, Name: "s", Type: strN},
	}
}

type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// BenchmarkWriterPK1M writes a 1M-row primary-key file; it reports rows/s
// and the file size.
func BenchmarkWriterPK1M(b *testing.B) {
	const rows = 1_000_000
	cols := pkBenchColumns()
	keys := make([]string, rows)
	for i := range keys {
		keys[i] = fmt.Sprintf("key-%09d", i)
	}
	vals := []string{"alpha", "beta", "gamma", "a somewhat longer value string"}
	modes := []string{"truncate(128)", "truncate(128)", "truncate(128)", "", "", "", "", ""}
	for _, codec := range []string{"zstd", "snappy", "none"} {
		b.Run(codec, func(b *testing.B) {
			var size int64
			row := make([]any, len(cols))
			for b.Loop() {
				cw := &countingWriter{}
				w, err := datafile.NewParquetWriter(cw, cols, datafile.WriterOptions{Compression: codec, StatsModes: modes})
				if err != nil {
					b.Fatal(err)
				}
				for i := 0; i < rows; i++ {
					row[0] = keys[i]
					row[1] = int64(i)
					row[2] = int8(0)
					row[3] = keys[i]
					row[4] = int64(i * 7)
					row[5] = float64(i) * 0.5
					row[6] = schema.Decimal{Compact: int64(i%100000) * 3, Scale: 2}
					if i%5 == 0 {
						row[7] = nil
					} else {
						row[7] = vals[i%len(vals)]
					}
					if err := w.Write(row); err != nil {
						b.Fatal(err)
					}
				}
				if _, err := w.Close(); err != nil {
					b.Fatal(err)
				}
				size = cw.n
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(size), "file-bytes")
		})
	}
}

var _ io.Writer = (*countingWriter)(nil)
