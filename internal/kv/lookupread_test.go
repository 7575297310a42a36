package kv_test

import (
	"testing"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
)

// TestLookupReaderTakesLowestHighLevel: a Java lookup compaction of level 0
// into level 2 writes the key's merged state (its level-0 sum plus the
// level-3 record it looked up), leaving the level-3 record in place. Java
// reads such tables through LookupMergeFunction, so the read is the level-2
// value; a plain merge would add the level-3 value a second time. Found by
// TestInteropJavaWritesLakesqlReads (aggregation, dynamic bucket,
// changelog-producer=lookup): lakesql read -2239 where Java read -1829.
func TestLookupReaderTakesLowestHighLevel(t *testing.T) {
	fields := []schema.DataField{
		{ID: 0, Name: "k", Type: schema.DataType{Root: schema.TypeInt}},
		{ID: 1, Name: "v", Type: schema.DataType{Root: schema.TypeBigInt, Nullable: true}},
	}
	opts := schema.Options{"merge-engine": "aggregation", "fields.v.aggregate-function": "sum", "changelog-producer": "lookup"}
	f, err := kv.NewMergeFunctionFactory(opts, fields, []string{"k"})
	if err != nil {
		t.Fatal(err)
	}
	rec := func(seq int64, v int64, level int) kv.KeyValue {
		return kv.KeyValue{Key: []any{int32(0)}, Seq: kv.SeqNum(seq), Kind: kv.Insert, Value: []any{int32(0), v}, Level: level}
	}
	runs := func() []kv.RecordReader {
		return []kv.RecordReader{
			kv.NewSliceReader([]kv.KeyValue{rec(2, -410, 3)}),
			kv.NewSliceReader([]kv.KeyValue{rec(6, -1829, 2)}),
			kv.NewSliceReader([]kv.KeyValue{rec(7, 5, 0)}),
		}
	}
	keyCmp := kv.NewKeyComparator([]schema.DataType{fields[0].Type})
	for _, c := range []struct {
		name string
		r    *kv.SortMergeReader
		want int64
	}{
		{"lookup", f.NewLookupReader(runs(), keyCmp), -1829 + 5},
		{"plain", f.NewReader(runs(), keyCmp), -410 - 1829 + 5},
	} {
		got, ok, err := c.r.Next()
		if err != nil || !ok {
			t.Fatalf("%s: %v %v", c.name, ok, err)
		}
		if got.Value[1] != c.want {
			t.Errorf("%s read: v = %v, want %d", c.name, got.Value[1], c.want)
		}
		c.r.Close()
	}
}
