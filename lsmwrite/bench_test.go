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

// BenchmarkInsertPK4Buckets inserts 1M rows (BIGINT key, INT, STRING,
// DOUBLE) into a 4-bucket primary-key table on local disk (fsync off) and
// commits. Run with -benchtime=1x; it reports rows/s and the file count.
func BenchmarkInsertPK4Buckets(b *testing.B) {
	const rows = 1_000_000
	ctx := context.Background()
	ts := &schema.TableSchema{
		Version: schema.SchemaVersionCurrent,
		Fields: []schema.DataField{
			{ID: 0, Name: "id", Type: schema.AtomicType(schema.TypeBigInt).WithNullable(false)},
			{ID: 1, Name: "qty", Type: schema.AtomicType(schema.TypeInt)},
			{ID: 2, Name: "name", Type: schema.StringType()},
			{ID: 3, Name: "price", Type: schema.AtomicType(schema.TypeDouble)},
		},
		HighestFieldID: 3,
		PrimaryKeys:    []string{"id"},
		Options:        map[string]string{"bucket": "4"},
	}
	names := make([]string, 1000)
	for i := range names {
		names[i] = fmt.Sprintf("customer-%04d", i)
	}
	for i := 0; i < b.N; i++ {
		st, err := storage.Open(ctx, "file://"+b.TempDir()+"?fsync=false")
		if err != nil {
			b.Fatal(err)
		}
		if err := snapshot.NewSchemaManager(st, "main").Commit(ctx, ts); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		w, err := lsmwrite.NewTableWrite(ctx, st, ts, nil, lsmwrite.Options{})
		if err != nil {
			b.Fatal(err)
		}
		row := make([]any, 4)
		for r := 0; r < rows; r++ {
			id := int64((r * 7919) % rows) // not in key order
			row[0], row[1], row[2], row[3] = id, int32(r%100), names[r%len(names)], float64(r)/10
			if err := w.Write(ctx, kv.Insert, row); err != nil {
				b.Fatal(err)
			}
		}
		s, err := w.Commit(ctx)
		if err != nil {
			b.Fatal(err)
		}
		el := time.Since(start)
		live, err := snapshot.LiveEntries(ctx, st, s, nil)
		if err != nil {
			b.Fatal(err)
		}
		var size int64
		for _, e := range live {
			size += e.File.FileSize
		}
		b.ReportMetric(float64(rows)/el.Seconds(), "rows/s")
		b.ReportMetric(float64(len(live)), "files")
		b.ReportMetric(float64(size)/(1<<20), "MiB")
	}
}

// BenchmarkCompactFull writes 5 commits of 200k upserts each (1M records,
// 400k distinct keys) into a 4-bucket primary-key table on local disk
// (fsync off) and times one full compaction of it (the merge of 5 level-0
// runs per bucket into one run on the max level). Run with -benchtime=1x;
// it reports input records/s and the bytes read and written.
func BenchmarkCompactFull(b *testing.B) {
	const commits, perCommit = 5, 200_000
	ctx := context.Background()
	ts := &schema.TableSchema{
		Version: schema.SchemaVersionCurrent,
		Fields: []schema.DataField{
			{ID: 0, Name: "id", Type: schema.AtomicType(schema.TypeBigInt).WithNullable(false)},
			{ID: 1, Name: "qty", Type: schema.AtomicType(schema.TypeInt)},
			{ID: 2, Name: "name", Type: schema.StringType()},
			{ID: 3, Name: "price", Type: schema.AtomicType(schema.TypeDouble)},
		},
		HighestFieldID: 3,
		PrimaryKeys:    []string{"id"},
		Options:        map[string]string{"bucket": "4"},
	}
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		st, err := storage.Open(ctx, "file://"+b.TempDir()+"?fsync=false")
		if err != nil {
			b.Fatal(err)
		}
		if err := snapshot.NewSchemaManager(st, "main").Commit(ctx, ts); err != nil {
			b.Fatal(err)
		}
		var base *snapshot.Snapshot
		row := make([]any, 4)
		for c := 0; c < commits; c++ {
			w, err := lsmwrite.NewTableWrite(ctx, st, ts, base, lsmwrite.Options{})
			if err != nil {
				b.Fatal(err)
			}
			for r := 0; r < perCommit; r++ {
				id := int64((r*7919 + c*100_003) % 400_000)
				row[0], row[1], row[2], row[3] = id, int32(r%100), fmt.Sprintf("name-%d-%d", c, r%1000), float64(r)/10
				if err := w.Write(ctx, kv.Insert, row); err != nil {
					b.Fatal(err)
				}
			}
			if base, err = w.Commit(ctx); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		start := time.Now()
		out, err := lsmwrite.Compact(ctx, snapshot.OpenTable(st, ""), lsmwrite.CompactRequest{Full: true})
		if err != nil || out.Snapshot == nil {
			b.Fatalf("compact: %v %+v", err, out)
		}
		el := time.Since(start)
		b.ReportMetric(float64(out.Stats.RowsRead)/el.Seconds(), "records/s")
		b.ReportMetric(float64(out.Stats.RowsWritten), "rows-out")
		b.ReportMetric(float64(out.Stats.BytesRead)/(1<<20), "MiB-in")
		b.ReportMetric(float64(out.Stats.BytesWritten)/(1<<20), "MiB-out")
	}
}

// BenchmarkUpsertLargeTable measures one 1,000-row upsert statement (keys
// spread over the whole table) into a 1-bucket table of 500,000 rows on
// local disk, fully compacted beforehand: merge-on-read (only the level-0
// file and its commit) against merge-on-write (the lookup compaction of the
// level-0 file, its deletion vectors and the COMPACT snapshot too). The
// first merge-on-write statement builds the lookup files of the table's
// files; later ones reuse them. Reports rows/s.
//
//	go test -run '^$' -bench UpsertLargeTable -benchtime 20x ./lsmwrite/
func BenchmarkUpsertLargeTable(b *testing.B) {
	const tableRows, stmtRows = 500_000, 1000
	for _, mode := range []struct{ name, opt, val string }{{"MOR", "", ""}, {"MOW", "deletion-vectors.enabled", "true"}} {
		b.Run(mode.name, func(b *testing.B) {
			ctx := context.Background()
			ts := &schema.TableSchema{
				Version: schema.SchemaVersionCurrent,
				Fields: []schema.DataField{
					{ID: 0, Name: "id", Type: schema.AtomicType(schema.TypeBigInt).WithNullable(false)},
					{ID: 1, Name: "qty", Type: schema.AtomicType(schema.TypeInt)},
					{ID: 2, Name: "name", Type: schema.StringType()},
				},
				HighestFieldID: 2,
				PrimaryKeys:    []string{"id"},
				Options:        map[string]string{"bucket": "1", "write-only": "true"},
			}
			st, err := storage.Open(ctx, "file://"+b.TempDir()+"?fsync=false")
			if err != nil {
				b.Fatal(err)
			}
			if err := snapshot.NewSchemaManager(st, "main").Commit(ctx, ts); err != nil {
				b.Fatal(err)
			}
			w, err := lsmwrite.NewTableWrite(ctx, st, ts, nil, lsmwrite.Options{})
			if err != nil {
				b.Fatal(err)
			}
			row := make([]any, 3)
			for r := 0; r < tableRows; r++ {
				row[0], row[1], row[2] = int64(r), int32(r%100), "initial"
				if err := w.Write(ctx, kv.Insert, row); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := w.Commit(ctx); err != nil {
				b.Fatal(err)
			}
			tbl := snapshot.OpenTable(st, "")
			if _, err := lsmwrite.Compact(ctx, tbl, lsmwrite.CompactRequest{Full: true}); err != nil {
				b.Fatal(err)
			}
			// From now on the table is written in its mode.
			ts = ts.Copy()
			ts.ID = 1
			delete(ts.Options, "write-only")
			if mode.opt != "" {
				ts.Options[mode.opt] = mode.val
			}
			if err := snapshot.NewSchemaManager(st, "main").Commit(ctx, ts); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				base, err := tbl.Snapshots().Latest(ctx)
				if err != nil {
					b.Fatal(err)
				}
				w, err := lsmwrite.NewTableWrite(ctx, st, ts, base, lsmwrite.Options{})
				if err != nil {
					b.Fatal(err)
				}
				for r := 0; r < stmtRows; r++ {
					row[0], row[1], row[2] = int64((i*7919+r*4999)%tableRows), int32(i), "updated"
					if err := w.Write(ctx, kv.Insert, row); err != nil {
						b.Fatal(err)
					}
				}
				if _, err := w.Commit(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*stmtRows)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
