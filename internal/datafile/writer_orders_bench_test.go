package datafile_test

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/lakesql/lakesql/internal/datafile"
	"github.com/lakesql/lakesql/internal/schema"
)

// ordersFileColumns is the layout of a data file of the bench's orders
// table (order_id, dt primary key; user_id, status, amount DECIMAL(12,2),
// updated_at TIMESTAMP(3), dt).
func ordersFileColumns() []datafile.Column {
	str := schema.StringType()
	notNull := func(t schema.DataType) schema.DataType { return t.WithNullable(false) }
	return []datafile.Column{
		{ID: datafile.KeyFieldID(0), Name: datafile.KeyFieldPrefix + "order_id", Type: notNull(schema.AtomicType(schema.TypeBigInt))},
		{ID: datafile.KeyFieldID(5), Name: datafile.KeyFieldPrefix + "dt", Type: notNull(str)},
		{ID: datafile.SequenceNumberFieldID, Name: datafile.SequenceNumberName, Type: notNull(schema.AtomicType(schema.TypeBigInt))},
		{ID: datafile.ValueKindFieldID, Name: datafile.ValueKindName, Type: notNull(schema.AtomicType(schema.TypeTinyInt))},
		{ID: 0, Name: "order_id", Type: notNull(schema.AtomicType(schema.TypeBigInt))},
		{ID: 1, Name: "user_id", Type: schema.AtomicType(schema.TypeBigInt)},
		{ID: 2, Name: "status", Type: str},
		{ID: 3, Name: "amount", Type: schema.DecimalType(12, 2)},
		{ID: 4, Name: "updated_at", Type: schema.DataType{Root: schema.TypeTimestamp, Precision: 3, Nullable: true}},
		{ID: 5, Name: "dt", Type: notNull(str)},
	}
}

// writeOrdersFile writes rows orders-shaped rows (one bucket of one
// partition of the bench's orders after full compaction: keys in order,
// users of users, 6 statuses, amounts of 1.00–10000.00) into one file.
func writeOrdersFile(tb testing.TB, rows int, users int64) []byte {
	tb.Helper()
	statuses := []string{"new", "paid", "shipped", "delivered", "cancelled", "returned"}
	rng := rand.New(rand.NewPCG(42, 1))
	var buf bytes.Buffer
	w, err := datafile.NewParquetWriter(&buf, ordersFileColumns(), datafile.WriterOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	row := make([]any, 10)
	for i := range rows {
		id := int64(i)*4 + 1
		row[0], row[1], row[2], row[3] = id, "2026-01-02", int64(i), int8(0)
		row[4], row[5] = id, rng.Int64N(users)
		row[6] = statuses[rng.IntN(len(statuses))]
		row[7] = schema.DecimalFromInt64(100+rng.Int64N(999_900), 2)
		row[8] = schema.Timestamp{Millis: base + id*3000 + rng.Int64N(1000)}
		row[9] = "2026-01-02"
		if err := w.Write(row); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// ordersBenchCPU is the process's CPU time so far.
func ordersBenchCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkOrdersFile writes and reads back one orders-shaped data file of
// the 1M (62.5k rows) and 10M (625k rows) scales' compacted buckets. write
// reports the write's CPU per row and the file's size (and, with -v, each
// column chunk's encodings and compressed bytes); read-amount and
// read-status decode the columns the bench's aggregate and GROUP BY status
// read (NextBatch), CPU per row.
//
//	go test ./internal/datafile/ -run '^$' -bench OrdersFile -benchtime 10x -v
func BenchmarkOrdersFile(b *testing.B) {
	for _, sc := range []struct {
		name  string
		rows  int
		users int64
	}{{"1M", 62_500, 100_000}, {"10M", 625_000, 1_000_000}} {
		var file []byte
		b.Run(sc.name+"/write", func(b *testing.B) {
			cpu0 := ordersBenchCPU()
			for b.Loop() {
				file = writeOrdersFile(b, sc.rows, sc.users)
			}
			b.ReportMetric(float64(ordersBenchCPU()-cpu0)/float64(b.N*sc.rows), "cpu-ns/row")
			b.ReportMetric(float64(len(file)), "file-bytes")
			pf, err := parquet.OpenFile(bytes.NewReader(file), int64(len(file)))
			if err != nil {
				b.Fatal(err)
			}
			for _, c := range pf.Metadata().RowGroups[0].Columns {
				b.Logf("%-20s %-40v %9d bytes", strings.Join(c.MetaData.PathInSchema, "."), c.MetaData.Encoding, c.MetaData.TotalCompressedSize)
			}
		})
		if file == nil {
			file = writeOrdersFile(b, sc.rows, sc.users)
		}
		cols := ordersFileColumns()
		for _, q := range []struct {
			name string
			cols []datafile.Column
		}{{"read-amount", cols[7:8]}, {"read-status", cols[6:8]}} {
			b.Run(sc.name+"/"+q.name, func(b *testing.B) {
				cpu0 := ordersBenchCPU()
				var bt datafile.Batch
				for b.Loop() {
					r, err := datafile.OpenParquet(bytesFile(file), q.cols, datafile.ReadOptions{})
					if err != nil {
						b.Fatal(err)
					}
					n := 0
					for {
						err := r.NextBatch(&bt, 4096)
						if errors.Is(err, io.EOF) {
							break
						}
						if err != nil {
							b.Fatal(err)
						}
						n += bt.Len
					}
					r.Close()
					if n != sc.rows {
						b.Fatalf("read %d rows of %d", n, sc.rows)
					}
				}
				b.ReportMetric(float64(ordersBenchCPU()-cpu0)/float64(b.N*sc.rows), "cpu-ns/row")
			})
		}
	}
}
