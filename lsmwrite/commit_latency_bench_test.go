package lsmwrite_test

import (
	"context"
	"slices"
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
