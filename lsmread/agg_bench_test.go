package lsmread_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmread"
	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/snapshot"
)

// BenchmarkAggregateMOR computes the bench's aggregates with Plan.Aggregate
// over 1M-row orders tables: mor (1 + 4 CDC sorted runs per bucket, merged
// over column batches), mor-rowmerge (the same merged row by row: the
// baseline of the column merge), mor-nostretch (without the stretches),
// mor-general (the column merge's general heap instead of its heap of
// integer keys) and compacted (fully compacted copy). The
// aggregates are COUNT(*), SUM(amount); GROUP BY status (5 groups); GROUP
// BY user_id (100k groups). cpu-ns/row is the process's CPU time per row
// of the table.
//
//	go test ./lsmread/ -run '^$' -bench AggregateMOR -benchtime 5x
func BenchmarkAggregateMOR(b *testing.B) {
	ctx := context.Background()
	const rows = scanBenchRows
	open := func(full bool) *lsmread.Table {
		st, err := storage.Open(ctx, "file://"+b.TempDir()+"?fsync=false")
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		writeOrders(b, ctx, st, ordersCDC(rows, 4))
		if full {
			if _, err := lsmwrite.Compact(ctx, snapshot.OpenTable(st, ""), lsmwrite.CompactRequest{Full: true}); err != nil {
				b.Fatal(err)
			}
		}
		return lsmread.OpenTable(st, "")
	}
	var mor, cmp *lsmread.Table
	tables := []struct {
		name      string
		tbl       func() *lsmread.Table
		rowMerge  bool
		noStretch bool
		noInts    bool
	}{
		{"mor", func() *lsmread.Table {
			if mor == nil {
				mor = open(false)
			}
			return mor
		}, false, false, false},
		{"mor-rowmerge", func() *lsmread.Table { return mor }, true, false, false},
		{"mor-nostretch", func() *lsmread.Table { return mor }, false, true, false},
		{"mor-general", func() *lsmread.Table { return mor }, false, false, true},
		{"compacted", func() *lsmread.Table {
			if cmp == nil {
				cmp = open(true)
			}
			return cmp
		}, false, false, false},
	}
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
	for _, tb := range tables {
		for _, q := range queries {
			b.Run(tb.name+"/"+q.name, func(b *testing.B) {
				tbl := tb.tbl()
				if tb.rowMerge {
					defer lsmread.SetReadColumnMerge(false)()
				}
				if tb.noStretch {
					defer lsmread.SetReadStretch(false)()
				}
				if tb.noInts {
					defer lsmread.SetReadIntMerge(false)()
				}
				cpu0 := processCPU(b)
				var n int64
				for b.Loop() {
					plan, err := tbl.Plan(ctx, lsmread.ScanSpec{Projection: q.cols})
					if err != nil {
						b.Fatal(err)
					}
					g, err := plan.Aggregate(ctx, q.spec)
					if err != nil {
						b.Fatal(err)
					}
					// Every table holds the same rows: the results agree.
					var total, sum int64
					for i := range g.Len() {
						total += g.N(i, 0)
						sum += g.Accum(i, 1).Sum
					}
					got := fmt.Sprintf("%d groups, %d rows, sum %d", g.Len(), total, sum)
					if w, ok := want[q.name]; ok && w != got {
						b.Fatalf("%s: %s, another table gave %s", tb.name, got, w)
					}
					want[q.name] = got
					n += rows
				}
				cpu := processCPU(b) - cpu0
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(n), "cpu-ns/row")
			})
		}
	}
}
