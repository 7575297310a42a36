package lsmread_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmread"
	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/snapshot"
)

// writeOrdersCDC writes the bench's orders shape (order_id BIGINT primary
// key, user_id BIGINT, status STRING, amount DECIMAL(12,2); 4 buckets): n
// rows in one commit, then cdc commits each upserting 5% of the keys and
// deleting 0.25% (the bench's merge-on-read table: 1 + cdc sorted runs per
// bucket, the later ones small).
func writeOrdersCDC(tb testing.TB, ctx context.Context, st storage.Storage, n, cdc int) {
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
		Options:        map[string]string{"bucket": "4", "write-only": "true"},
	}
	if err := snapshot.NewSchemaManager(st, "main").Commit(ctx, ts); err != nil {
		tb.Fatal(err)
	}
	statuses := []string{"new", "paid", "shipped", "done", "cancelled"}
	rng := rand.New(rand.NewPCG(42, 0))
	row := make([]any, 4)
	set := func(id int64) {
		row[0], row[1] = id, rng.Int64N(int64(n/10)+1)
		row[2] = statuses[rng.IntN(len(statuses))]
		row[3] = schema.DecimalFromInt64(rng.Int64N(100_000), 2)
	}
	var base *snapshot.Snapshot
	for c := range cdc + 1 {
		w, err := lsmwrite.NewTableWrite(ctx, st, ts, base, lsmwrite.Options{})
		if err != nil {
			tb.Fatal(err)
		}
		write := func(kind kv.RowKind) {
			if err := w.Write(ctx, kind, row); err != nil {
				tb.Fatal(err)
			}
		}
		if c == 0 {
			for id := range int64(n) {
				set(id)
				write(kv.Insert)
			}
		} else {
			for range n / 20 {
				set(rng.Int64N(int64(n)))
				write(kv.Insert)
			}
			for range n / 400 {
				set(rng.Int64N(int64(n)))
				write(kv.Delete)
			}
		}
		if base, err = w.Commit(ctx); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkAggregateMOR computes the bench's aggregates with Plan.Aggregate
// over 1M-row orders tables: mor (1 + 4 CDC sorted runs per bucket, merged
// over column batches), mor-rowmerge (the same merged row by row: the
// baseline of the column merge) and compacted (fully compacted copy). The
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
		writeOrdersCDC(b, ctx, st, rows, 4)
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
	}{
		{"mor", func() *lsmread.Table {
			if mor == nil {
				mor = open(false)
			}
			return mor
		}, false, false},
		{"mor-rowmerge", func() *lsmread.Table { return mor }, true, false},
		{"mor-nostretch", func() *lsmread.Table { return mor }, false, true},
		{"compacted", func() *lsmread.Table {
			if cmp == nil {
				cmp = open(true)
			}
			return cmp
		}, false, false},
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
					for i := range g.Keys {
						total += g.Acc[i*2].N
						sum += g.Acc[i*2+1].Sum
					}
					got := fmt.Sprintf("%d groups, %d rows, sum %d", len(g.Keys), total, sum)
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
