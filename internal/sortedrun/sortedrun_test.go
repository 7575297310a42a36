package sortedrun_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/lakesql/lakesql/internal/datafile"
	"github.com/lakesql/lakesql/internal/dv"
	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/sortedrun"
	"github.com/lakesql/lakesql/internal/storage"
)

// schemas serves fixed schemas by id.
type schemas map[schema.SchemaID]*schema.TableSchema

func (s schemas) Schema(_ context.Context, id schema.SchemaID) (*schema.TableSchema, error) {
	if ts, ok := s[id]; ok {
		return ts, nil
	}
	return nil, fmt.Errorf("no schema %d", id)
}

// countingStore counts Open and ReadAll calls per path.
type countingStore struct {
	storage.Storage
	mu    sync.Mutex
	opens map[string]int
}

func (c *countingStore) count(path string) {
	c.mu.Lock()
	c.opens[path]++
	c.mu.Unlock()
}

func (c *countingStore) Open(ctx context.Context, path string) (storage.File, error) {
	c.count(path)
	return c.Storage.Open(ctx, path)
}

func (c *countingStore) ReadAll(ctx context.Context, path string) ([]byte, error) {
	c.count(path)
	return c.Storage.ReadAll(ctx, path)
}

// writeFile writes a Parquet file of cols at path with row groups of
// groupRows rows.
func writeFile(t *testing.T, st storage.Storage, path string, cols []datafile.Column, rows [][]any, groupRows int) {
	t.Helper()
	var buf bytes.Buffer
	w, err := datafile.NewParquetWriter(&buf, cols, datafile.WriterOptions{RowGroupRows: groupRows})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := st.WriteAll(context.Background(), path, buf.Bytes()); err != nil {
		t.Fatal(err)
	}
}

var (
	bigint = schema.AtomicType(schema.TypeBigInt).WithNullable(false)
	intT   = schema.AtomicType(schema.TypeInt)
	// Schema 0 has id and v INT; schema 1 widens v to BIGINT and adds s.
	schema0 = &schema.TableSchema{ID: 0, Fields: []schema.DataField{
		{ID: 0, Name: "id", Type: bigint}, {ID: 1, Name: "v", Type: intT}}, PrimaryKeys: []string{"id"}}
	schema1 = &schema.TableSchema{ID: 1, Fields: []schema.DataField{
		{ID: 0, Name: "id", Type: bigint}, {ID: 1, Name: "v", Type: schema.AtomicType(schema.TypeBigInt)},
		{ID: 2, Name: "s", Type: schema.StringType()}}, PrimaryKeys: []string{"id"}}
)

func newStore(t *testing.T) *countingStore {
	t.Helper()
	st, err := storage.Open(context.Background(), "mem://sortedrun-"+t.Name())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return &countingStore{Storage: st, opens: map[string]int{}}
}

// TestOpenRows reads a schema-0 file with the schema-1 read schema: v is
// cast to BIGINT, s is NULL, the deletion vector removes rows, and the row
// group filter reads one group, opening the file once.
func TestOpenRows(t *testing.T) {
	ctx := context.Background()
	st := newStore(t)
	cols := []datafile.Column{{ID: 0, Name: "id", Type: bigint}, {ID: 1, Name: "v", Type: intT}}
	var rows [][]any
	for i := range 10 {
		rows = append(rows, []any{int64(i), int32(i * 10)})
	}
	writeFile(t, st, "bucket-0/f.parquet", cols, rows, 5)
	src := sortedrun.Source{Store: st, Schemas: schemas{0: schema0, 1: schema1}}
	r := sortedrun.NewReader(src, schema1.Fields, nil, nil, nil)
	vec := dv.NewBitmapDeletionVector()
	for _, p := range []int64{1, 6, 7} {
		if _, err := vec.Delete(p); err != nil {
			t.Fatal(err)
		}
	}
	second := func(groups []datafile.RowGroupInfo, l *sortedrun.Layout) []int {
		if len(groups) != 2 || l.Src[2] != -1 || l.Cast[1] == nil {
			t.Errorf("groups %d, layout %+v", len(groups), l)
		}
		return []int{1}
	}
	f := &sortedrun.File{Name: "f.parquet", Dir: "bucket-0/", SchemaID: 0}
	for _, c := range []struct {
		groups sortedrun.GroupFilter
		want   []int64
	}{
		{nil, []int64{0, 2, 3, 4, 5, 8, 9}},
		{second, []int64{5, 8, 9}},
	} {
		rr, err := r.OpenRows(ctx, f, vec, c.groups)
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for {
			row, err := rr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			id := row[0].(int64)
			if v, ok := row[1].(int64); !ok || v != id*10 || row[2] != nil {
				t.Fatalf("row %v: want v BIGINT %d and NULL s", row, id*10)
			}
			got = append(got, id)
		}
		if err := rr.Close(); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("ids %v, want %v", got, c.want)
		}
	}
	if n := st.opens["bucket-0/f.parquet"]; n != 2 {
		t.Errorf("two reads opened the file %d times, want once each", n)
	}
}

// TestOpenKeyValues reads a KeyValue-layout file as a sorted run.
func TestOpenKeyValues(t *testing.T) {
	ctx := context.Background()
	st := newStore(t)
	cols := []datafile.Column{
		{ID: datafile.KeyFieldID(0), Name: "_KEY_id", Type: bigint},
		{ID: datafile.SequenceNumberFieldID, Name: datafile.SequenceNumberName, Type: bigint},
		{ID: datafile.ValueKindFieldID, Name: datafile.ValueKindName, Type: schema.AtomicType(schema.TypeTinyInt).WithNullable(false)},
		{ID: 0, Name: "id", Type: bigint}, {ID: 1, Name: "v", Type: intT}}
	var rows [][]any
	for i := range 2500 { // more than one batch
		rows = append(rows, []any{int64(i), int64(100 + i), int8(i % 4), int64(i), int32(i)})
	}
	writeFile(t, st, "bucket-0/kv.parquet", cols, rows, 0)
	src := sortedrun.Source{Store: st, Schemas: schemas{0: schema0}}
	r := sortedrun.NewReader(src, schema0.Fields, nil, []int{0}, nil)
	rr, err := r.OpenKeyValues(ctx, &sortedrun.File{Name: "kv.parquet", Dir: "bucket-0/", Level: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Close()
	var kept []kv.KeyValue
	for i := 0; ; i++ {
		rec, ok, err := rr.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			if i != len(rows) {
				t.Fatalf("read %d records, want %d", i, len(rows))
			}
			break
		}
		if rec.Key[0] != int64(i) || rec.Seq != kv.SeqNum(100+i) || rec.Kind != kv.RowKind(i%4) || rec.Level != 3 || rec.Value[1] != int32(i) {
			t.Fatalf("record %d: %+v", i, rec)
		}
		kept = append(kept, rec)
	}
	// Records stay valid after later batches (the RecordReader contract).
	for i, rec := range kept {
		if rec.Key[0] != int64(i) || rec.Value[0] != int64(i) {
			t.Fatalf("kept record %d changed: %+v", i, rec)
		}
	}
}

// TestDVCacheReadsIndexFileOnce loads many deletion vectors of one index
// file from several goroutines: the file is read once.
func TestDVCacheReadsIndexFileOnce(t *testing.T) {
	ctx := context.Background()
	st := newStore(t)
	var named []dv.NamedDV
	for i := range 20 {
		v := dv.NewBitmapDeletionVector()
		if _, err := v.Delete(int64(i)); err != nil {
			t.Fatal(err)
		}
		named = append(named, dv.NamedDV{FileName: fmt.Sprintf("data-%d.parquet", i), DV: v})
	}
	data, ranges, err := dv.WriteIndexFile(named, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.WriteAll(ctx, "index/index-0", data); err != nil {
		t.Fatal(err)
	}
	c := sortedrun.NewDVCache(sortedrun.Source{Store: st})
	var wg sync.WaitGroup
	var bad atomic.Int32
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, rg := range ranges {
				v, err := c.Load(ctx, &sortedrun.DeletionFile{Path: "index/index-0", Offset: int64(rg.Offset), Length: int64(rg.Length)})
				if err != nil || !v.IsDeleted(int64(i)) || v.Cardinality() != 1 {
					bad.Add(1)
					t.Errorf("goroutine %d, vector %d: %v, %v", g, i, v, err)
				}
			}
		}()
	}
	wg.Wait()
	if n := st.opens["index/index-0"]; n != 1 || c.IndexFilesRead() != 1 {
		t.Errorf("index file read %d times (cache says %d), want once", n, c.IndexFilesRead())
	}
	if _, err := c.Load(ctx, &sortedrun.DeletionFile{Path: "index/missing"}); !errors.Is(err, storage.ErrNotExist) {
		t.Errorf("missing index file: %v, want ErrNotExist", err)
	}
}
