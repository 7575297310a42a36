package lsmread_test

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmread"
)

// BenchmarkOneBucketAppendScan reads a 1M-row append table of one bucket
// written in 8 commits (8 files) with the parallel reader the server uses,
// as one split (the files weigh less than 'source.split.target-size', as
// every bucket was read before splits were packed) and packed into 4 and
// 8 splits by a smaller target; wall and CPU ns per row, interleaved in one
// run.
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
	for _, c := range []struct{ name, target string }{{"1-split", "128mb"}, {"4-splits", "8mb"}, {"8-splits", "4mb"}} {
		b.Run(c.name, func(b *testing.B) {
			cpu0 := processCPU(b)
			var rows int64
			for b.Loop() {
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
				rows += n
				b.ReportMetric(float64(len(plan.Splits)), "splits")
			}
			cpu := processCPU(b) - cpu0
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(rows), "wall-ns/row")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(rows), "cpu-ns/row")
		})
	}
}
