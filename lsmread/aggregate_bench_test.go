package lsmread_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmread"
	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/snapshot"
)

// aggBenchRows is the size of BenchmarkAggregate's tables.
const aggBenchRows = 1_000_000

// writeOrdersTable writes an orders-like table of n rows (order_id BIGINT
// key, user_id BIGINT of n/10 users, status STRING of 6 values, amount
// DECIMAL(12,2) of random cents) into 16 buckets (the bench's 4 partitions of 4) and fully compacts it;
// with dv the table has deletion vectors and a later commit upserts 5% of
// the keys and deletes 0.25%, compacted (minor) into deletion vectors.
func writeOrdersTable(tb testing.TB, ctx context.Context, st storage.Storage, n int, dv bool) {
	tb.Helper()
	ts := &schema.TableSchema{
		Version: schema.SchemaVersionCurrent,
		Fields: []schema.DataField{
			{ID: 0, Name: "order_id", Type: schema.AtomicType(schema.TypeBigInt).WithNullable(false)},
			{ID: 1, Name: "user_id", Type: schema.AtomicType(schema.TypeBigInt)},
			{ID: 2, Name: "status", Type: schema.StringType()},
			{ID: 3, Name: "amount", Type: schema.DecimalType(12, 2)},
		},
		HighestFieldID: 3,
		PrimaryKeys:    []string{"order_id"},
		Options:        map[string]string{"bucket": "16"},
	}
	if dv {
		ts.Options["deletion-vectors.enabled"] = "true"
	}
	if err := snapshot.NewSchemaManager(st, "main").Commit(ctx, ts); err != nil {
		tb.Fatal(err)
	}
	statuses := []string{"new", "paid", "shipped", "delivered", "cancelled", "returned"}
	rng := rand.New(rand.NewPCG(42, 42))
	row := make([]any, 4)
	order := func(id int64) []any {
		row[0], row[1] = id, rng.Int64N(int64(n/10))
		row[2] = statuses[rng.IntN(len(statuses))]
		row[3] = schema.DecimalFromInt64(100+rng.Int64N(999_900), 2)
		return row
	}
	commit := func(base *snapshot.Snapshot, write func(w *lsmwrite.TableWrite)) *snapshot.Snapshot {
		w, err := lsmwrite.NewTableWrite(ctx, st, ts, base, lsmwrite.Options{})
		if err != nil {
			tb.Fatal(err)
		}
		write(w)
		s, err := w.Commit(ctx)
		if err != nil {
			tb.Fatal(err)
		}
		return s
	}
	commit(nil, func(w *lsmwrite.TableWrite) {
		for id := range int64(n) {
			if err := w.Write(ctx, kv.Insert, order(id)); err != nil {
				tb.Fatal(err)
			}
		}
	})
	compact := func(full bool) {
		if _, err := lsmwrite.Compact(ctx, snapshot.OpenTable(st, ""), lsmwrite.CompactRequest{Full: full}); err != nil {
			tb.Fatal(err)
		}
	}
	compact(true)
	if !dv {
		return
	}
	latest, err := snapshot.OpenTable(st, "").Snapshots().Latest(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	commit(latest, func(w *lsmwrite.TableWrite) {
		for range n / 20 {
			if err := w.Write(ctx, kv.Insert, order(rng.Int64N(int64(n)))); err != nil {
				tb.Fatal(err)
			}
		}
		for range n / 400 {
			row[0] = rng.Int64N(int64(n))
			if err := w.Write(ctx, kv.Delete, row); err != nil {
				tb.Fatal(err)
			}
		}
	})
	compact(false)
}

// BenchmarkAggregate runs Plan.Aggregate over 1M-row orders-like tables,
// fully compacted and with deletion vectors, and reports rows/s and the
// process's CPU time per row:
//
//   - sum: COUNT(*), SUM(amount);
//
//   - groupby-low: GROUP BY status (6 strings), COUNT(*), SUM(amount);
//
//   - groupby-high: GROUP BY user_id (100k users), COUNT(*), SUM(amount).
//
//     go test ./lsmread/ -run '^$' -bench Aggregate -benchtime 5x
func BenchmarkAggregate(b *testing.B) {
	ctx := context.Background()
	for _, kind := range []string{"compacted", "mow"} {
		var tbl *lsmread.Table
		dir := b.TempDir() // the sub-benchmarks' own are removed after each
		for _, q := range []struct {
			name string
			cols []string
			keys []int
		}{
			{"sum", []string{"amount"}, nil},
			{"groupby-low", []string{"status", "amount"}, []int{0}},
			{"groupby-high", []string{"user_id", "amount"}, []int{0}},
		} {
			b.Run(kind+"/"+q.name, func(b *testing.B) {
				if tbl == nil {
					st, err := storage.Open(ctx, "file://"+dir+"?fsync=false")
					if err != nil {
						b.Fatal(err)
					}
					b.Cleanup(func() { st.Close() })
					writeOrdersTable(b, ctx, st, aggBenchRows, kind == "mow")
					tbl = lsmread.OpenTable(st, "")
					plan, err := tbl.Plan(ctx, lsmread.ScanSpec{})
					if err != nil {
						b.Fatal(err)
					}
					dvs := 0
					for _, s := range plan.Splits {
						for _, d := range s.DeletionFiles {
							if d != nil {
								dvs++
							}
						}
					}
					if (dvs > 0) != (kind == "mow") {
						b.Fatalf("%s table has %d deletion vectors", kind, dvs)
					}
				}
				am := len(q.cols) - 1
				spec := lsmread.AggregateSpec{Keys: q.keys, Aggs: []lsmread.AggColumn{{Kind: lsmread.AggCountRows}, {Kind: lsmread.AggSum, Col: am}}}
				cpu0 := processCPU(b)
				var rows int64
				for b.Loop() {
					plan, err := tbl.Plan(ctx, lsmread.ScanSpec{Projection: q.cols})
					if err != nil {
						b.Fatal(err)
					}
					g, err := plan.Aggregate(ctx, spec)
					if err != nil {
						b.Fatal(err)
					}
					var n int64
					for i := range g.Len() {
						n += g.N(i, 0)
					}
					if n < aggBenchRows*99/100 || n > aggBenchRows {
						b.Fatalf("counted %d rows of %d", n, aggBenchRows)
					}
					rows += n
				}
				cpu := processCPU(b) - cpu0
				b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(rows), "cpu-ns/row")
			})
		}
	}
}
