package lsmread_test

import (
	"context"
	"testing"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmread"
)

// aggBenchRows is the size of BenchmarkAggregate's tables.
const aggBenchRows = 1_000_000

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
					writeOrders(b, ctx, st, ordersCompacted(aggBenchRows, kind == "mow"))
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
