package lsmread_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/datafile"
	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmread"
	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/snapshot"
)

// scanBenchRows is the size of the generated tables of BenchmarkFullScan.
const scanBenchRows = 1_000_000

// writeScanTable writes a table of n rows (id BIGINT, qty INT, name STRING,
// price DOUBLE, amount DECIMAL(12,2)) in one commit: an append table when
// pk is false, else a 4-bucket primary-key table on id.
func writeScanTable(tb testing.TB, ctx context.Context, st storage.Storage, n int, pk bool) {
	writeScanTableRuns(tb, ctx, st, n, pk, 1)
}

// writeScanTableRuns is writeScanTable in commits commits: row r goes to
// commit r%commits, so on a primary-key table every commit adds one level-0
// sorted run per bucket spanning the whole key range (merge-on-read merges
// them all).
func writeScanTableRuns(tb testing.TB, ctx context.Context, st storage.Storage, n int, pk bool, commits int) {
	writeScanTableOptions(tb, ctx, st, n, pk, commits, nil)
}

// writeScanTableOptions is writeScanTableRuns with table options set on
// top of the defaults (e.g. one bucket for an append table).
func writeScanTableOptions(tb testing.TB, ctx context.Context, st storage.Storage, n int, pk bool, commits int, opts map[string]string) {
	tb.Helper()
	ts := &schema.TableSchema{
		Version: schema.SchemaVersionCurrent,
		Fields: []schema.DataField{
			{ID: 0, Name: "id", Type: schema.AtomicType(schema.TypeBigInt).WithNullable(false)},
			{ID: 1, Name: "qty", Type: schema.AtomicType(schema.TypeInt)},
			{ID: 2, Name: "name", Type: schema.StringType()},
			{ID: 3, Name: "price", Type: schema.AtomicType(schema.TypeDouble)},
			{ID: 4, Name: "amount", Type: schema.DecimalType(12, 2)},
		},
		HighestFieldID: 4,
		Options:        map[string]string{"bucket": "-1"},
	}
	if pk {
		ts.PrimaryKeys = []string{"id"}
		ts.Options = map[string]string{"bucket": "4"}
	}
	for k, v := range opts {
		ts.Options[k] = v
	}
	if err := snapshot.NewSchemaManager(st, "main").Commit(ctx, ts); err != nil {
		tb.Fatal(err)
	}
	names := make([]string, 1000)
	for i := range names {
		names[i] = fmt.Sprintf("customer-%04d", i)
	}
	row := make([]any, 5)
	var base *snapshot.Snapshot
	for c := range commits {
		w, err := lsmwrite.NewTableWrite(ctx, st, ts, base, lsmwrite.Options{})
		if err != nil {
			tb.Fatal(err)
		}
		for r := c; r < n; r += commits {
			id := int64((r * 7919) % n)
			row[0], row[1], row[2], row[3] = id, int32(r%100), names[r%len(names)], float64(r)/10
			row[4] = schema.DecimalFromInt64(int64(r%1_000_000), 2)
			if r%11 == 0 {
				row[1], row[2] = nil, nil
			}
			if err := w.Write(ctx, kv.Insert, row); err != nil {
				tb.Fatal(err)
			}
		}
		if base, err = w.Commit(ctx); err != nil {
			tb.Fatal(err)
		}
	}
}

// scanAll reads every split of a full scan and returns the row count.
func scanAll(tb testing.TB, ctx context.Context, t *lsmread.Table) int64 {
	return scanAllProjected(tb, ctx, t, nil)
}

// scanAllProjected is scanAll reading the named columns only (nil: all).
func scanAllProjected(tb testing.TB, ctx context.Context, t *lsmread.Table, cols []string) int64 {
	tb.Helper()
	plan, err := t.Plan(ctx, lsmread.ScanSpec{Projection: cols})
	if err != nil {
		tb.Fatal(err)
	}
	rd, err := plan.NewReader()
	if err != nil {
		tb.Fatal(err)
	}
	var n int64
	for _, s := range plan.Splits {
		it, err := rd.Read(ctx, s)
		if err != nil {
			tb.Fatal(err)
		}
		for {
			_, err := it.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				tb.Fatal(err)
			}
			n++
		}
		if err := it.Close(); err != nil {
			tb.Fatal(err)
		}
	}
	return n
}

// scanBatches reads every split of a full scan as column batches and
// returns the row count; it sums the id column from its typed vector, as an
// aggregate would.
func scanBatches(tb testing.TB, ctx context.Context, t *lsmread.Table) (n, sum int64) {
	return scanBatchesProjected(tb, ctx, t, nil)
}

// scanBatchesProjected is scanBatches reading the named columns only (nil:
// all); the first one must be id.
func scanBatchesProjected(tb testing.TB, ctx context.Context, t *lsmread.Table, cols []string) (n, sum int64) {
	tb.Helper()
	plan, err := t.Plan(ctx, lsmread.ScanSpec{Projection: cols})
	if err != nil {
		tb.Fatal(err)
	}
	rd, err := plan.NewReader()
	if err != nil {
		tb.Fatal(err)
	}
	var b datafile.Batch
	for _, s := range plan.Splits {
		it, err := rd.ReadBatches(ctx, s)
		if err != nil {
			tb.Fatal(err)
		}
		for {
			err := it.Next(&b)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				tb.Fatal(err)
			}
			ids := b.Cols[0].Int64
			if b.Sel == nil {
				for _, v := range ids[:b.Len] {
					sum += v
				}
			} else {
				for _, k := range b.Sel {
					sum += ids[k]
				}
			}
			n += int64(b.Rows())
		}
		if err := it.Close(); err != nil {
			tb.Fatal(err)
		}
	}
	return n, sum
}

// BenchmarkFullScan reads a generated 1M-row table through lsmread, one
// split after another, and reports rows/s: an append table (raw read) and a
// 4-bucket primary-key table written in one commit (merge-on-read of one
// sorted run per bucket), as rows (Reader.Read) and as column batches
// (Reader.ReadBatches, summing the id vector).
func BenchmarkFullScan(b *testing.B) {
	const wantSum = int64(scanBenchRows) * (scanBenchRows - 1) / 2
	for _, pk := range []bool{false, true} {
		name := "append"
		if pk {
			name = "pk"
		}
		for _, batches := range []bool{false, true} {
			sub := name
			if batches {
				sub += "-batches"
			}
			b.Run(sub, func(b *testing.B) {
				ctx := context.Background()
				st, err := storage.Open(ctx, "file://"+b.TempDir()+"?fsync=false")
				if err != nil {
					b.Fatal(err)
				}
				defer st.Close()
				writeScanTable(b, ctx, st, scanBenchRows, pk)
				tbl := lsmread.OpenTable(st, "")
				var rows int64
				b.ResetTimer()
				for b.Loop() {
					if batches {
						if n, sum := scanBatches(b, ctx, tbl); n != scanBenchRows || sum != wantSum {
							b.Fatalf("read %d rows summing to %d, want %d and %d", n, sum, scanBenchRows, wantSum)
						}
					} else if n := scanAll(b, ctx, tbl); n != scanBenchRows {
						b.Fatalf("read %d rows, want %d", n, scanBenchRows)
					}
					rows += scanBenchRows
				}
				b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
			})
		}
	}
}

// BenchmarkScanKinds reads 1M-row tables of each kind issue 9 measures
// through lsmread, one split after another, and reports rows/s:
//
//   - append: an append table written in one commit;
//   - pk-compacted: a 4-bucket primary-key table written in 5 commits and
//     fully compacted (one file per bucket on the top level);
//   - pk-5runs: the same table before compaction (5 overlapping level-0
//     sorted runs per bucket, merged on read over column batches);
//   - pk-5runs-rowmerge: the same table merged row by row (the column
//     merge off), the baseline of the column merge.
//
// Each is read as rows (Reader.Read) and as column batches
// (Reader.ReadBatches), with every column (all) and with two (id, qty);
// besides rows/s, cpu-ns/row is the process's CPU time per row.
//
//	go test ./lsmread/ -run '^$' -bench ScanKinds -benchtime 3x
func BenchmarkScanKinds(b *testing.B) {
	const wantSum = int64(scanBenchRows) * (scanBenchRows - 1) / 2
	ctx := context.Background()
	open := func(pk bool, commits int, full bool) *lsmread.Table {
		st, err := storage.Open(ctx, "file://"+b.TempDir()+"?fsync=false")
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		writeScanTableRuns(b, ctx, st, scanBenchRows, pk, commits)
		if full {
			if _, err := lsmwrite.Compact(ctx, snapshot.OpenTable(st, ""), lsmwrite.CompactRequest{Full: true}); err != nil {
				b.Fatal(err)
			}
		}
		return lsmread.OpenTable(st, "")
	}
	var runs *lsmread.Table
	fiveRuns := func() *lsmread.Table {
		if runs == nil {
			runs = open(true, 5, false)
		}
		return runs
	}
	kinds := []struct {
		name     string
		tbl      func() *lsmread.Table
		rowMerge bool
	}{
		{"append", func() *lsmread.Table { return open(false, 1, false) }, false},
		{"pk-compacted", func() *lsmread.Table { return open(true, 5, true) }, false},
		{"pk-5runs", fiveRuns, false},
		{"pk-5runs-rowmerge", fiveRuns, true},
	}
	for _, k := range kinds {
		var tbl *lsmread.Table
		for _, cols := range []struct {
			name string
			cols []string
		}{{"all", nil}, {"id-qty", []string{"id", "qty"}}} {
			for _, batches := range []bool{false, true} {
				sub := k.name + "/" + cols.name + "/rows"
				if batches {
					sub = k.name + "/" + cols.name + "/batches"
				}
				b.Run(sub, func(b *testing.B) {
					if tbl == nil {
						tbl = k.tbl()
					}
					if k.rowMerge {
						defer lsmread.SetReadColumnMerge(false)()
					}
					cpu0 := processCPU(b)
					var rows int64
					for b.Loop() {
						if batches {
							if n, sum := scanBatchesProjected(b, ctx, tbl, cols.cols); n != scanBenchRows || sum != wantSum {
								b.Fatalf("read %d rows summing to %d, want %d and %d", n, sum, scanBenchRows, wantSum)
							}
						} else if n := scanAllProjected(b, ctx, tbl, cols.cols); n != scanBenchRows {
							b.Fatalf("read %d rows, want %d", n, scanBenchRows)
						}
						rows += scanBenchRows
					}
					cpu := processCPU(b) - cpu0
					b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
					b.ReportMetric(float64(cpu.Nanoseconds())/float64(rows), "cpu-ns/row")
				})
			}
		}
	}
}

// processCPU is the CPU time (user and system) the process has used: less
// disturbed by a loaded machine than the wall clock.
func processCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
