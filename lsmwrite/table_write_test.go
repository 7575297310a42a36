package lsmwrite_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

func memStorage(t *testing.T) storage.Storage {
	t.Helper()
	st, err := storage.Open(context.Background(), "mem://")
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func decodeStats(t *testing.T, types []schema.DataType, s manifest.SimpleStats) (mins, maxs []any, nulls string) {
	t.Helper()
	var err error
	if mins, err = binaryrow.DecodeSerialized(types, s.MinValues); err != nil {
		t.Fatal(err)
	}
	if maxs, err = binaryrow.DecodeSerialized(types, s.MaxValues); err != nil {
		t.Fatal(err)
	}
	var parts []string
	for _, n := range s.NullCounts {
		if n == nil {
			parts = append(parts, "null")
		} else {
			parts = append(parts, fmt.Sprint(*n))
		}
	}
	return mins, maxs, strings.Join(parts, ",")
}

// TestDataFileMeta checks every DataFileMeta field of a flushed
// primary-key file and its changelog-producer=input companion.
func TestDataFileMeta(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2025, 3, 4, 5, 6, 7, 8_000_000, time.UTC)
	ts := &schema.TableSchema{
		Version: schema.SchemaVersionCurrent,
		ID:      3,
		Fields: []schema.DataField{
			{ID: 0, Name: "k", Type: schema.AtomicType(schema.TypeInt).WithNullable(false)},
			{ID: 1, Name: "s", Type: schema.StringType()},
			{ID: 2, Name: "n", Type: schema.AtomicType(schema.TypeBigInt)},
		},
		HighestFieldID: 2,
		PrimaryKeys:    []string{"k"},
		Options:        map[string]string{"bucket": "1", "fields.n.stats-mode": "none", "changelog-producer": "input"},
	}
	st := memStorage(t)
	w, err := lsmwrite.NewTableWrite(ctx, st, ts, nil, lsmwrite.Options{Now: func() time.Time { return now }, CommitUser: "u1"})
	if err != nil {
		t.Fatal(err)
	}
	long := "a string longer than sixteen code points"
	for _, x := range []struct {
		kind kv.RowKind
		row  []any
	}{
		{kv.Insert, []any{int32(2), long, int64(5)}},
		{kv.Insert, []any{int32(1), "zz" + long, nil}},
		{kv.Delete, []any{int32(3), "c", int64(1)}},
		{kv.UpdateAfter, []any{int32(2), "x", int64(7)}},
	} {
		if err := w.Write(ctx, x.kind, x.row); err != nil {
			t.Fatal(err)
		}
	}
	ch, err := w.Prepare(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(ctx, kv.Insert, []any{int32(9), nil, nil}); !errors.Is(err, lsmwrite.ErrClosed) {
		t.Fatalf("write after Prepare: %v", err)
	}
	if ch.CommitUser != "u1" || len(ch.Entries) != 1 || len(ch.ChangelogEntries) != 1 || len(ch.IndexChanges) != 0 {
		t.Fatalf("changes: %+v", ch)
	}
	e := ch.Entries[0]
	f := e.File
	if e.Kind != manifest.FileKindAdd || e.Bucket != 0 || e.TotalBuckets != 1 || string(e.Partition) != string(binaryrow.EmptySerialized) {
		t.Errorf("entry: kind %v bucket %d total %d partition %x", e.Kind, e.Bucket, e.TotalBuckets, e.Partition)
	}
	uuid, n, format, ok := lsmwrite.ParseDataFileName("data-", f.FileName)
	cuuid, cn, _, cok := lsmwrite.ParseDataFileName("changelog-", ch.ChangelogEntries[0].File.FileName)
	if !ok || !cok || format != "parquet" || uuid != cuuid || cn != 0 || n != 1 {
		t.Errorf("names %s, %s: one uuid and counter per bucket writer, changelog first", f.FileName, ch.ChangelogEntries[0].File.FileName)
	}
	data, err := st.ReadAll(ctx, "bucket-0/"+f.FileName)
	if err != nil {
		t.Fatal(err)
	}
	if f.FileSize != int64(len(data)) || string(data[:4]) != "PAR1" {
		t.Errorf("file size %d, on disk %d", f.FileSize, len(data))
	}
	// Merged: keys 1 (seq 1), 2 (seq 3, +U), 3 (seq 2, -D).
	if f.RowCount != 3 || f.MinSequenceNumber != 1 || f.MaxSequenceNumber != 3 || *f.DeleteRowCount != 1 {
		t.Errorf("rows %d seq %d..%d deletes %d", f.RowCount, f.MinSequenceNumber, f.MaxSequenceNumber, *f.DeleteRowCount)
	}
	if f.SchemaID != 3 || f.Level != 0 || f.ExtraFiles == nil || len(f.ExtraFiles) != 0 || *f.FileSource != manifest.FileSourceAppend ||
		*f.CreationTime != now.UnixMilli() || f.EmbeddedIndex != nil || f.ExternalPath != nil || f.FirstRowID != nil || f.WriteCols != nil {
		t.Errorf("meta: %+v", f)
	}
	keyT := []schema.DataType{schema.AtomicType(schema.TypeInt)}
	if k, _ := binaryrow.DecodeSerialized(keyT, f.MinKey); fmt.Sprint(k) != "[1]" {
		t.Errorf("min key %v", k)
	}
	if k, _ := binaryrow.DecodeSerialized(keyT, f.MaxKey); fmt.Sprint(k) != "[3]" {
		t.Errorf("max key %v", k)
	}
	if mins, maxs, nulls := decodeStats(t, keyT, f.KeyStats); fmt.Sprint(mins, maxs) != "[1] [3]" || nulls != "0" {
		t.Errorf("key stats %v %v %s", mins, maxs, nulls)
	}
	// Dense value stats: n has stats-mode none and is left out.
	if fmt.Sprint(f.ValueStatsCols) != "[k s]" {
		t.Errorf("value stats cols %v", f.ValueStatsCols)
	}
	valT := []schema.DataType{schema.AtomicType(schema.TypeInt), schema.StringType()}
	mins, maxs, nulls := decodeStats(t, valT, f.ValueStats)
	if fmt.Sprint(mins) != "[1 c]" || fmt.Sprint(maxs) != "[3 zza string longf]" || nulls != "0,0" {
		t.Errorf("value stats %q %q %s", mins, maxs, nulls)
	}
	// The changelog file holds the raw input, sorted by key then sequence.
	c := ch.ChangelogEntries[0].File
	if c.RowCount != 4 || c.MinSequenceNumber != 0 || c.MaxSequenceNumber != 3 || *c.DeleteRowCount != 1 {
		t.Errorf("changelog: rows %d seq %d..%d deletes %d", c.RowCount, c.MinSequenceNumber, c.MaxSequenceNumber, *c.DeleteRowCount)
	}
	if err := w.Abort(ctx); err != nil {
		t.Fatal(err)
	}
	for obj, err := range st.List(ctx, "") {
		if err != nil {
			t.Fatal(err)
		}
		t.Errorf("left after Abort: %s", obj.Path)
	}
}

func TestWriteRejectsBadRows(t *testing.T) {
	ctx := context.Background()
	pk := testSchema([]string{"k"}, nil, map[string]string{"bucket": "2"})
	w, err := lsmwrite.NewTableWrite(ctx, memStorage(t), pk, nil, lsmwrite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range [][]any{
		{int32(1), int32(2)},
		{nil, int32(1), "x"},
		{int32(1), nil, "x"},
	} {
		if err := w.Write(ctx, kv.Insert, row); !errors.Is(err, lsmwrite.ErrInvalidRow) {
			t.Errorf("row %v: %v", row, err)
		}
	}
	if err := w.Write(ctx, kv.RowKind(9), []any{int32(1), int32(1), "x"}); !errors.Is(err, lsmwrite.ErrInvalidRow) {
		t.Errorf("bad row kind: %v", err)
	}
	app := testSchema(nil, nil, map[string]string{})
	w, err = lsmwrite.NewTableWrite(ctx, memStorage(t), app, nil, lsmwrite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(ctx, kv.Delete, []any{int32(1), int32(1), "x"}); !errors.Is(err, lsmwrite.ErrInvalidRow) {
		t.Errorf("delete on an append table: %v", err)
	}
	ch, err := w.Prepare(ctx)
	if err != nil || len(ch.Entries) != 0 || ch.Kind.String() != "APPEND" {
		t.Fatalf("empty prepare: %+v %v", ch, err)
	}
}

// TestWriteBufferFlushes checks that a small write-buffer-size flushes
// several level-0 files per bucket, each holding every key once, with
// consecutive sequence ranges.
func TestWriteBufferFlushes(t *testing.T) {
	ctx := context.Background()
	ts := testSchema([]string{"k"}, nil, map[string]string{"bucket": "2", "write-buffer-size": "16 kb"})
	w, err := lsmwrite.NewTableWrite(ctx, memStorage(t), ts, nil, lsmwrite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const n = 3000
	for i := 0; i < n; i++ {
		if err := w.Write(ctx, kv.Insert, []any{int32(i % 500), int32(i), "v"}); err != nil {
			t.Fatal(err)
		}
	}
	ch, err := w.Prepare(ctx)
	if err != nil {
		t.Fatal(err)
	}
	next := map[manifest.Bucket]int64{}
	rows := int64(0)
	for _, e := range ch.Entries {
		f := e.File
		if f.MinSequenceNumber < next[e.Bucket] {
			t.Errorf("bucket %d: file %s starts at %d, after %d", e.Bucket, f.FileName, f.MinSequenceNumber, next[e.Bucket])
		}
		next[e.Bucket] = f.MaxSequenceNumber + 1
		if f.RowCount > 500 {
			t.Errorf("file %s has %d rows for 500 keys", f.FileName, f.RowCount)
		}
		rows += f.RowCount
	}
	if len(ch.Entries) < 4 || rows < 500 || next[0]+next[1] != n {
		t.Errorf("%d files, %d rows, sequence ends %v", len(ch.Entries), rows, next)
	}
}
