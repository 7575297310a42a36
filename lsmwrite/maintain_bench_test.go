package lsmwrite_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/snapshot"
)

// BenchmarkCommitAndMaintain measures one single-row commit to a 4-bucket
// primary-key table on local disk (fsync off) and the maintenance that
// follows it (Maintainer.AfterCommit with the default options: nothing to
// expire within snapshot.time-retained), reported apart as commit-ns and
// maintain-ns per commit. In expire-each-commit, snapshot.num-retained.max
// is 20, so every commit also expires one snapshot; with 300-tags the table
// has 300 tags with a retention (read once, then only listed).
func BenchmarkCommitAndMaintain(b *testing.B) {
	for _, c := range []struct {
		name string
		opts map[string]string
		tags int
	}{
		{"default", map[string]string{"bucket": "4"}, 0},
		{"expire-each-commit", map[string]string{"bucket": "4", "snapshot.num-retained.min": "1", "snapshot.num-retained.max": "20"}, 0},
		{"300-tags", map[string]string{"bucket": "4"}, 300},
	} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			ts := &schema.TableSchema{
				Version: schema.SchemaVersionCurrent,
				Fields: []schema.DataField{
					{ID: 0, Name: "id", Type: schema.AtomicType(schema.TypeBigInt).WithNullable(false)},
					{ID: 1, Name: "v", Type: schema.AtomicType(schema.TypeInt)},
				},
				HighestFieldID: 1,
				PrimaryKeys:    []string{"id"},
				Options:        c.opts,
			}
			st, err := storage.Open(ctx, "file://"+b.TempDir()+"?fsync=false")
			if err != nil {
				b.Fatal(err)
			}
			if err := snapshot.NewSchemaManager(st, "main").Commit(ctx, ts); err != nil {
				b.Fatal(err)
			}
			tbl := snapshot.OpenTable(st, "")
			m := lsmwrite.NewMaintainer()
			var commit, maintain time.Duration
			var base *snapshot.Snapshot
			for i := 0; i < c.tags; i++ {
				w, err := lsmwrite.NewTableWrite(ctx, st, ts, base, lsmwrite.Options{})
				if err != nil {
					b.Fatal(err)
				}
				if err := w.Write(ctx, kv.Insert, []any{int64(-i - 1), int32(i)}); err != nil {
					b.Fatal(err)
				}
				if base, err = w.Commit(ctx); err != nil {
					b.Fatal(err)
				}
				keep := 30 * 24 * time.Hour
				if _, err := tbl.CreateTag(ctx, fmt.Sprintf("tag-%d", i), nil, &keep, time.Now()); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				w, err := lsmwrite.NewTableWrite(ctx, st, ts, base, lsmwrite.Options{})
				if err != nil {
					b.Fatal(err)
				}
				if err := w.Write(ctx, kv.Insert, []any{int64(i), int32(i)}); err != nil {
					b.Fatal(err)
				}
				if base, err = w.Commit(ctx); err != nil {
					b.Fatal(err)
				}
				mid := time.Now()
				if _, err := m.AfterCommit(ctx, tbl, ts); err != nil {
					b.Fatal(err)
				}
				commit += mid.Sub(start)
				maintain += time.Since(mid)
			}
			b.ReportMetric(float64(commit.Nanoseconds())/float64(b.N), "commit-ns")
			b.ReportMetric(float64(maintain.Nanoseconds())/float64(b.N), "maintain-ns")
		})
	}
}
