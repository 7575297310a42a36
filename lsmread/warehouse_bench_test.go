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

// BenchmarkAggregateWarehouse computes the bench's aggregates (COUNT(*),
// SUM(amount); GROUP BY status; GROUP BY user_id) with Plan.Aggregate over
// the orders tables of a warehouse the bench kept (`cd bench && go run .
// --scale 10M --only agg --keep --work DIR`): bench.db/orders_mor (merge on read, 5 sorted runs per bucket),
// orders_mor-nostretch (the same without the column merge's stretches),
// orders_mor-general (on the column merge's general heap instead of its
// heap of integer keys), orders_mow (deletion vectors) and orders_cmp
// (fully compacted). It reads the folder LAKESQL_BENCH_WAREHOUSE names (DIR/warehouse) and does nothing
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
	queries := []struct {
		name string
		cols []string
		spec lsmread.AggregateSpec
	}{
		{"agg", []string{"amount"}, lsmread.AggregateSpec{Aggs: []lsmread.AggColumn{{Kind: lsmread.AggCountRows}, {Kind: lsmread.AggSum, Col: 0}}}},
		{"groupby-low", []string{"status", "amount"}, lsmread.AggregateSpec{Keys: []int{0},
			Aggs: []lsmread.AggColumn{{Kind: lsmread.AggCountRows}, {Kind: lsmread.AggSum, Col: 1}}}},
		{"groupby-high", []string{"user_id", "amount"}, lsmread.AggregateSpec{Keys: []int{0},
			Aggs: []lsmread.AggColumn{{Kind: lsmread.AggCountRows}, {Kind: lsmread.AggSum, Col: 1}}}},
	}
	want := map[string]string{}
	for _, table := range []string{"orders_mor", "orders_mor-nostretch", "orders_mor-general", "orders_mow", "orders_cmp"} {
		for _, q := range queries {
			benchWarehouseAggregate(b, ctx, wh, table, q.name, q.cols, q.spec, want)
		}
	}
}

// benchWarehouseAggregate runs one aggregate of BenchmarkAggregateWarehouse
// over one table; want holds each query's result, which every table gives.
func benchWarehouseAggregate(b *testing.B, ctx context.Context, wh, name, query string, cols []string, spec lsmread.AggregateSpec, want map[string]string) {
	b.Run(name+"/"+query, func(b *testing.B) {
		if table, ok := strings.CutSuffix(name, "-nostretch"); ok {
			// The column merge without its stretches (every record
			// through the heap): the baseline in the same run.
			defer lsmread.SetReadStretch(false)()
			name = table
		}
		if table, ok := strings.CutSuffix(name, "-general"); ok {
			// The column merge's general heap instead of its heap of
			// integer keys.
			defer lsmread.SetReadIntMerge(false)()
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
			plan, err := tbl.Plan(ctx, lsmread.ScanSpec{Projection: cols})
			if err != nil {
				b.Fatal(err)
			}
			g, err := plan.Aggregate(ctx, spec)
			if err != nil {
				b.Fatal(err)
			}
			// The tables hold the same rows.
			var n, sum int64
			for i := range g.Len() {
				n += g.N(i, 0)
				sum += g.Accum(i, 1).Sum
			}
			got := fmt.Sprintf("%d groups, %d rows, sum %d", g.Len(), n, sum)
			if w, ok := want[query]; ok && got != w {
				b.Fatalf("%s: %s, another table gave %s", name, got, w)
			}
			want[query] = got
			rows += n
		}
		cpu := processCPU(b) - cpu0
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(rows), "cpu-ns/row")
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(rows), "wall-ns/row")
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.Elapsed().Nanoseconds()), "cores")
	})
}
