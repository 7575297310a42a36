package lsmwrite_test

import (
	"context"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/snapshot"
)

// BenchmarkSmallCommitLatency commits single-row transactions
// (CommitTransaction, the path of an autocommit INSERT) to two 4-bucket
// partitioned primary-key tables on local disk, one with fsync on and one
// opened fsync=false, alternately (so a busy machine slows both alike),
// and reports the p50 and p99 latency of each in ms. Automatic compaction
// and maintenance are not part of it.
func BenchmarkSmallCommitLatency(b *testing.B) {
	ctx := context.Background()
	ts := &schema.TableSchema{
		Version: schema.SchemaVersionCurrent,
		Fields: []schema.DataField{
			{ID: 0, Name: "id", Type: schema.AtomicType(schema.TypeBigInt).WithNullable(false)},
			{ID: 1, Name: "v", Type: schema.AtomicType(schema.TypeInt)},
			{ID: 2, Name: "dt", Type: schema.StringType().WithNullable(false)},
		},
		HighestFieldID: 2,
		PrimaryKeys:    []string{"id", "dt"},
		PartitionKeys:  []string{"dt"},
		Options:        map[string]string{"bucket": "4", "write-only": "true"},
	}
	var sts [2]storage.Storage
	for i, q := range []string{"", "?fsync=false"} {
		st, err := storage.Open(ctx, "file://"+b.TempDir()+q)
		if err != nil {
			b.Fatal(err)
		}
		if err := snapshot.NewSchemaManager(st, "main").Commit(ctx, ts); err != nil {
			b.Fatal(err)
		}
		sts[i] = st
	}
	var lat [2][]float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k, st := range sts {
			start := time.Now()
			_, err := lsmwrite.CommitTransaction(ctx, st, lsmwrite.TxCommit{
				Schema:  ts,
				Records: []kv.KeyValue{{Kind: kv.Insert, Value: []any{int64(i), int32(i), "2026-01-01"}}},
			})
			if err != nil {
				b.Fatal(err)
			}
			lat[k] = append(lat[k], float64(time.Since(start).Microseconds())/1000)
		}
	}
	for k, name := range []string{"fsync", "nosync"} {
		l := lat[k]
		slices.Sort(l)
		b.ReportMetric(l[len(l)/2], name+"-p50-ms")
		b.ReportMetric(l[min(len(l)-1, len(l)*99/100)], name+"-p99-ms")
	}
}

// BenchmarkStatementCommit commits 1,000-row statements written ahead
// (WriteStatement, TxCommit.Written: the path of an autocommit INSERT …
// VALUES) to a table of the bench's orders shape (7 dt partitions × 4
// buckets: 28 level-0 files a statement) on local disk with fsync, and
// reports the p50 and p99 latency (write, flush and commit) in ms and the
// process CPU per statement. Automatic compaction is off (write-only).
func BenchmarkStatementCommit(b *testing.B) {
	ctx := context.Background()
	ts := &schema.TableSchema{
		Version: schema.SchemaVersionCurrent,
		Fields: []schema.DataField{
			{ID: 0, Name: "order_id", Type: schema.AtomicType(schema.TypeBigInt).WithNullable(false)},
			{ID: 1, Name: "user_id", Type: schema.AtomicType(schema.TypeBigInt)},
			{ID: 2, Name: "status", Type: schema.StringType()},
			{ID: 3, Name: "amount", Type: schema.DecimalType(12, 2)},
			{ID: 4, Name: "updated_at", Type: schema.TimestampType(3)},
			{ID: 5, Name: "dt", Type: schema.StringType().WithNullable(false)},
		},
		HighestFieldID: 5,
		PrimaryKeys:    []string{"order_id", "dt"},
		PartitionKeys:  []string{"dt"},
		Options:        map[string]string{"bucket": "4", "write-only": "true"},
	}
	st, err := storage.Open(ctx, "file://"+b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	if err := snapshot.NewSchemaManager(st, "main").Commit(ctx, ts); err != nil {
		b.Fatal(err)
	}
	const per = 1000
	statuses := []string{"new", "paid", "shipped"}
	days := []string{"2024-05-01", "2024-05-02", "2024-05-03", "2024-05-04", "2024-05-05", "2024-05-06", "2024-05-07"}
	var lat []float64
	var cpu time.Duration
	row := make([]any, 6)
	next := int64(0)
	b.ResetTimer()
	for range b.N {
		c0, start := cpuTime(b), time.Now()
		w, err := lsmwrite.WriteStatement(ctx, st, ts, lsmwrite.Options{})
		if err != nil {
			b.Fatal(err)
		}
		for range per {
			next++
			row[0], row[1], row[2] = next, next%10007, statuses[next%3]
			row[3] = schema.DecimalFromInt64(next%10000000, 2)
			row[4] = schema.Timestamp{Millis: 1714521600000 + next*1000}
			row[5] = days[next%7]
			if err := w.Write(ctx, kv.Insert, row); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := lsmwrite.CommitTransaction(ctx, st, lsmwrite.TxCommit{Schema: ts, Written: w}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, float64(time.Since(start).Microseconds())/1000)
		cpu += cpuTime(b) - c0
	}
	slices.Sort(lat)
	b.ReportMetric(lat[len(lat)/2], "p50-ms")
	b.ReportMetric(lat[min(len(lat)-1, len(lat)*99/100)], "p99-ms")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/stmt")
}

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
