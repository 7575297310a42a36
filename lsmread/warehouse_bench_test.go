package lsmread_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmread"
)

// BenchmarkAggregateWarehouse computes the bench's full aggregate (COUNT(*),
// SUM(amount)) with Plan.Aggregate over the orders tables of a warehouse the
// bench kept (`cd bench && go run . --scale 10M --only agg --keep --work
// DIR`): bench.db/orders_mor (merge on read, 5 sorted runs per bucket),
// orders_mor-nostretch (the same without the column merge's stretches), orders_mow (deletion vectors) and orders_cmp (fully compacted). It reads
// the folder LAKESQL_BENCH_WAREHOUSE names (DIR/warehouse) and does nothing
// without it: a bench-scale table takes minutes to write. cpu-ns/row is the
// process's CPU per row of the table, wall-ns/row the elapsed time per row,
// and cores their ratio (how busy the workers kept the cores).
//
//	LAKESQL_BENCH_WAREHOUSE=/tmp/x/warehouse go test ./lsmread/ -run '^$' -bench AggregateWarehouse -benchtime 5x
func BenchmarkAggregateWarehouse(b *testing.B) {
	wh := os.Getenv("LAKESQL_BENCH_WAREHOUSE")
	if wh == "" {
		b.Skip("LAKESQL_BENCH_WAREHOUSE names no warehouse the bench kept")
	}
	ctx := context.Background()
	spec := lsmread.AggregateSpec{Aggs: []lsmread.AggColumn{{Kind: lsmread.AggCountRows}, {Kind: lsmread.AggSum, Col: 0}}}
	want := ""
	for _, name := range []string{"orders_mor", "orders_mor-nostretch", "orders_mow", "orders_cmp"} {
		b.Run(name, func(b *testing.B) {
			if table, ok := strings.CutSuffix(name, "-nostretch"); ok {
				// The column merge without its stretches (every record
				// through the heap): the baseline in the same run.
				defer lsmread.SetReadStretch(false)()
				name = table
			}
			st, err := storage.Open(ctx, "file://"+filepath.Join(wh, "bench.db", name))
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			tbl := lsmread.OpenTable(st, "")
			cpu0 := processCPU(b)
			var rows int64
			for b.Loop() {
				plan, err := tbl.Plan(ctx, lsmread.ScanSpec{Projection: []string{"amount"}})
				if err != nil {
					b.Fatal(err)
				}
				g, err := plan.Aggregate(ctx, spec)
				if err != nil {
					b.Fatal(err)
				}
				if g.Len() != 1 {
					b.Fatalf("%d groups", g.Len())
				}
				// The three tables hold the same rows.
				n, sum := g.Accum(0, 0).N, g.Accum(0, 1)
				got := fmt.Sprintf("%d rows, sum %d %v", n, sum.Sum, sum.Big)
				if want != "" && got != want {
					b.Fatalf("%s: %s, another table gave %s", name, got, want)
				}
				want = got
				rows += n
			}
			cpu := processCPU(b) - cpu0
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(rows), "cpu-ns/row")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(rows), "wall-ns/row")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.Elapsed().Nanoseconds()), "cores")
		})
	}
}
