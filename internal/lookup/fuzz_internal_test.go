package lookup

import (
	"os"
	"testing"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
)

// FuzzFind decodes arbitrary bytes as a lookup file's block: Find returns a
// record, no record, or an error, and never panics.
func FuzzFind(f *testing.F) {
	l := &Layout{
		KeyTypes:   []schema.DataType{schema.AtomicType(schema.TypeBigInt)},
		ValueTypes: []schema.DataType{schema.AtomicType(schema.TypeBigInt), {Root: schema.TypeVarChar, Length: schema.MaxLength, Nullable: true}},
	}
	cs, err := l.codecs()
	if err != nil {
		f.Fatal(err)
	}
	var kvs []kv.KeyValue
	for i := range 5 {
		kvs = append(kvs, kv.KeyValue{Key: []any{int64(i * 10)}, Seq: kv.SeqNum(i), Kind: kv.Insert, Value: []any{int64(i * 10), "v"}})
	}
	good, err := build(cs, kv.NewSliceReader(kvs), 0, 1<<20, "")
	if err != nil {
		f.Fatal(err)
	}
	seed := make([]byte, good.size)
	if _, err := good.f.ReadAt(seed, 0); err != nil {
		f.Fatal(err)
	}
	good.f.Close()
	f.Add(seed, int64(20))
	f.Add(seed[:len(seed)/2], int64(0))
	f.Fuzz(func(t *testing.T, data []byte, key int64) {
		tmp, err := os.CreateTemp(t.TempDir(), "block")
		if err != nil {
			t.Fatal(err)
		}
		defer tmp.Close()
		tmp.Write(data)
		file := &File{c: cs, f: tmp, size: int64(len(data)), blocks: []block{{first: []any{int64(-1 << 62)}, off: 0, n: int32(len(data))}}}
		if rec, ok, err := file.Find([]any{key}); err == nil && ok && len(rec.Value) != 2 {
			t.Fatalf("record of %d values", len(rec.Value))
		}
	})
}
