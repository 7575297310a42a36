package lsmread_test

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmread"
)

// BenchmarkOneBucketAppendScan reads a 1M-row append table of one bucket
// written in 8 commits (8 files) with the parallel reader the server uses,
// as one split (the files weigh less than 'source.split.target-size', as
// every bucket was read before splits were packed) and packed into 4 and
// 8 splits by a smaller target; wall and CPU ns per row of each, the three
// reads interleaved in every round.
//
//	go test ./lsmread/ -run '^$' -bench OneBucketAppendScan -benchtime 5x
func BenchmarkOneBucketAppendScan(b *testing.B) {
	ctx := context.Background()
	st, err := storage.Open(ctx, "file://"+b.TempDir()+"?fsync=false")
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	writeScanTableOptions(b, ctx, st, scanBenchRows, false, 8, map[string]string{"bucket": "1", "bucket-key": "id"})
	tbl := lsmread.OpenTable(st, "")
	configs := []struct{ name, target string }{{"1split", "128mb"}, {"4splits", "8mb"}, {"8splits", "4mb"}}
	wall := make([]time.Duration, len(configs))
	cpu := make([]time.Duration, len(configs))
	var rows int64
	for b.Loop() {
		// Interleaved: each round reads the table once per configuration.
		for i, c := range configs {
			t0, cpu0 := time.Now(), processCPU(b)
			plan, err := tbl.Plan(ctx, lsmread.ScanSpec{OptionOverrides: map[string]string{"source.split.target-size": c.target}})
			if err != nil {
				b.Fatal(err)
			}
			rd, err := plan.NewReader()
			if err != nil {
				b.Fatal(err)
			}
			it := rd.ReadParallel(ctx, plan.Splits, nil)
			var n int64
			for {
				_, err := it.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
				n++
			}
			if err := it.Close(); err != nil {
				b.Fatal(err)
			}
			if n != scanBenchRows {
				b.Fatalf("read %d rows, want %d", n, scanBenchRows)
			}
			wall[i] += time.Since(t0)
			cpu[i] += processCPU(b) - cpu0
		}
		rows += scanBenchRows
	}
	for i, c := range configs {
		b.ReportMetric(float64(wall[i].Nanoseconds())/float64(rows), c.name+"-wall-ns/row")
		b.ReportMetric(float64(cpu[i].Nanoseconds())/float64(rows), c.name+"-cpu-ns/row")
	}
}
