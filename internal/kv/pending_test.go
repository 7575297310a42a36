package kv_test

import (
	"bytes"
	"math/big"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
)

// TestAppendKeyEqualExactlyWhenValuesEqual: over random values of every
// key type, two encodings are equal exactly when schema.Compare says the
// values are equal (a Decimal held as a big.Int that fits an int64 encodes
// like the compact one).
func TestAppendKeyEqualExactlyWhenValuesEqual(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	types := []schema.DataType{
		schema.AtomicType(schema.TypeBoolean), schema.AtomicType(schema.TypeTinyInt), schema.AtomicType(schema.TypeInt),
		schema.AtomicType(schema.TypeBigInt), schema.AtomicType(schema.TypeDouble), schema.StringType(), schema.BytesType(),
		schema.DecimalType(10, 2), schema.DecimalType(38, 0), schema.AtomicType(schema.TypeDate), schema.TimestampType(9),
	}
	gen := func(t *schema.DataType) any {
		if rng.IntN(6) == 0 {
			return nil
		}
		n := rng.Int64N(5) - 2
		switch t.Root {
		case schema.TypeBoolean:
			return n > 0
		case schema.TypeTinyInt:
			return int8(n)
		case schema.TypeInt:
			return int32(n)
		case schema.TypeBigInt:
			return n
		case schema.TypeDouble:
			return float64(n) / 2
		case schema.TypeVarChar:
			return string(rune('a' + n + 2))
		case schema.TypeVarBinary:
			return []byte{byte(n)}
		case schema.TypeDecimal:
			if t.Precision > 18 {
				if rng.IntN(2) == 0 {
					return schema.Decimal{Big: new(big.Int).Lsh(big.NewInt(n), 70), Scale: 0}
				}
				return schema.Decimal{Big: big.NewInt(n), Scale: 0}
			}
			return schema.Decimal{Compact: n, Scale: int32(t.Scale)}
		case schema.TypeDate:
			return schema.Date(n)
		case schema.TypeTimestamp:
			return schema.Timestamp{Millis: n, NanoOfMilli: int32(rng.IntN(2))}
		}
		return nil
	}
	for range 5000 {
		ty := &types[rng.IntN(len(types))]
		a, b := []any{gen(ty)}, []any{gen(ty)}
		equal := (a[0] == nil) == (b[0] == nil) && (a[0] == nil || schema.Compare(ty, a[0], b[0]) == 0)
		ka, kb := kv.AppendKey(nil, a, []int{0}), kv.AppendKey(nil, b, []int{0})
		if bytes.Equal(ka, kb) != equal {
			t.Fatalf("%s: %v vs %v: encodings equal %v, values equal %v", ty, a[0], b[0], bytes.Equal(ka, kb), equal)
		}
	}
	// Field boundaries are unambiguous.
	if bytes.Equal(kv.AppendKey(nil, []any{"ab", "c"}, []int{0, 1}), kv.AppendKey(nil, []any{"a", "bc"}, []int{0, 1})) {
		t.Error("('ab','c') and ('a','bc') encode alike")
	}
}

// TestPendingWritesModel runs random statements of adds, completed or
// discarded, against a model: OfKey, Records, Each and ReadKey agree with
// it, with and without a memory limit that spills records to a file (the
// records kept in memory never exceed the limit).
func TestPendingWritesModel(t *testing.T) {
	sch := &schema.TableSchema{
		Fields: []schema.DataField{
			{ID: 0, Name: "k", Type: schema.AtomicType(schema.TypeInt).WithNullable(false)},
			{ID: 1, Name: "v", Type: schema.AtomicType(schema.TypeInt)},
		},
		PrimaryKeys: []string{"k"},
		Options:     schema.Options{"bucket": "1"},
	}
	type rec struct {
		kind kv.RowKind
		k, v int32
	}
	// One record's estimated size: the limits spill after a few records.
	one := kv.KVOverhead + kv.RowSize([]any{int32(0), int32(0)})
	for seed := range uint64(60) {
		rng := rand.New(rand.NewPCG(seed, 1))
		p := kv.NewPendingWrites(sch)
		// Small key spaces and limits, and (seeds 40 on) larger ones:
		// runs of hundreds of records, index blocks of 64 entries.
		keys, perStmt, maxLimit := int32(6), 5, int64(8)
		if seed >= 40 {
			keys, perStmt, maxLimit = 300, 60, 400
		}
		limit := int64(0)
		if seed%2 == 1 {
			limit = one * (1 + rng.Int64N(maxLimit))
			p.SetLimit(limit)
		}
		var model []rec
		read := map[int32]bool{}
		ofKey := func(k int32) {
			t.Helper()
			var want []int32
			for _, r := range model {
				if r.k == k {
					want = append(want, r.v)
				}
			}
			recs, err := p.OfKey([]any{k, nil})
			if err != nil {
				t.Fatal(err)
			}
			var got []int32
			for _, r := range recs {
				if r.Value[0] != k {
					t.Fatalf("seed %d: OfKey(%d) gave a record of key %v", seed, k, r.Value[0])
				}
				got = append(got, r.Value[1].(int32))
			}
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d (spilled %v): OfKey(%d) = %v, model %v", seed, p.Spilled(), k, got, want)
			}
		}
		for range 30 {
			start := len(model)
			for range rng.IntN(perStmt) {
				r := rec{kind: []kv.RowKind{kv.Insert, kv.UpdateAfter, kv.Delete}[rng.IntN(3)], k: rng.Int32N(keys), v: rng.Int32N(100)}
				readKey := rng.IntN(3) == 0
				if err := p.Add(r.kind, []any{r.k, r.v}, readKey); err != nil {
					t.Fatal(err)
				}
				// The accounting: what stays in memory never exceeds the limit.
				if limit > 0 && p.Bytes() > limit {
					t.Fatalf("seed %d: %d bytes in memory, limit %d", seed, p.Bytes(), limit)
				}
				model = append(model, r)
				if readKey {
					read[r.k] = true
				}
				if rng.IntN(4) == 0 {
					ofKey(rng.Int32N(keys))
				}
			}
			if rng.IntN(3) == 0 {
				if err := p.DiscardStatement(); err != nil {
					t.Fatal(err)
				}
				model = model[:start]
			} else {
				p.StatementDone()
			}
			ofKey(rng.Int32N(keys))
		}
		if p.Len() != len(model) {
			t.Fatalf("seed %d: %d records, model %d", seed, p.Len(), len(model))
		}
		if limit > 0 && len(model) > 10 && !p.Spilled() {
			t.Fatalf("seed %d: %d records under a limit of %d bytes did not spill", seed, len(model), limit)
		}
		var got []kv.KeyValue
		if err := p.Each(func(r kv.KeyValue) error { got = append(got, r); return nil }); err != nil {
			t.Fatal(err)
		}
		if !p.Spilled() && !slices.EqualFunc(got, p.Records(), func(a, b kv.KeyValue) bool { return a.Kind == b.Kind && slices.Equal(a.Value, b.Value) }) {
			t.Fatalf("seed %d: Each and Records differ", seed)
		}
		if len(got) != len(model) {
			t.Fatalf("seed %d: Each gave %d records, model %d", seed, len(got), len(model))
		}
		for i, r := range got {
			if r.Kind != model[i].kind || r.Value[0] != model[i].k || r.Value[1] != model[i].v {
				t.Fatalf("seed %d: record %d = %v %v, model %+v", seed, i, r.Kind, r.Value, model[i])
			}
		}
		for k := range keys {
			if got := p.ReadKey(kv.AppendKey(nil, []any{k}, []int{0})); got != read[k] {
				t.Fatalf("seed %d: ReadKey(%d) = %v, model %v", seed, k, got, read[k])
			}
			ofKey(k)
		}
		if err := p.Close(); err != nil || p.Len() != 0 {
			t.Fatalf("seed %d: Close: %v, %d records left", seed, err, p.Len())
		}
	}
}

// TestPendingWritesMerge: the merge folds a committed row with the records
// of its key through the table's merge engine.
func TestPendingWritesMerge(t *testing.T) {
	sch := &schema.TableSchema{
		Fields: []schema.DataField{
			{ID: 0, Name: "k", Type: schema.AtomicType(schema.TypeInt).WithNullable(false)},
			{ID: 1, Name: "a", Type: schema.AtomicType(schema.TypeInt)},
			{ID: 2, Name: "b", Type: schema.AtomicType(schema.TypeInt)},
		},
		PrimaryKeys: []string{"k"},
		Options:     schema.Options{"bucket": "1", "merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true"},
	}
	p := kv.NewPendingWrites(sch)
	p.Add(kv.Insert, []any{int32(1), nil, int32(20)}, false)
	recs, _ := p.OfKey([]any{int32(1)})
	row, ok, err := p.Merge([]any{int32(1), int32(1), int32(2)}, recs)
	if err != nil || !ok || row[1] != int32(1) || row[2] != int32(20) {
		t.Errorf("partial update over a committed row: %v %v %v", row, ok, err)
	}
	p.Add(kv.Delete, []any{int32(1), nil, nil}, true)
	recs, _ = p.OfKey([]any{int32(1)})
	if row, ok, err := p.Merge([]any{int32(1), int32(1), int32(2)}, recs); err != nil || ok {
		t.Errorf("after a delete: %v %v %v", row, ok, err)
	}
}

// TestPendingWritesCloseReleasesMemory: a closed buffer whose records
// spilled holds no memory of them, though something still refers to it
// (the record array of a write-buffer-size worth of records was kept).
func TestPendingWritesCloseReleasesMemory(t *testing.T) {
	sch := &schema.TableSchema{
		Fields: []schema.DataField{
			{ID: 0, Name: "k", Type: schema.AtomicType(schema.TypeBigInt).WithNullable(false)},
			{ID: 1, Name: "v", Type: schema.AtomicType(schema.TypeBigInt)},
		},
		PrimaryKeys: []string{"k"},
	}
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()
	p := kv.NewPendingWrites(sch)
	p.SetLimit(32 << 20)
	for k := int64(0); !p.Spilled(); k++ {
		if err := p.Add(kv.Insert, []any{k, k}, false); err != nil {
			t.Fatal(err)
		}
	}
	filled := heap()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	after := heap()
	if after > before+(filled-before)/8 {
		t.Errorf("heap %d MB before, %d MB full, %d MB after Close (the buffer is still referenced)", before>>20, filled>>20, after>>20)
	}
	runtime.KeepAlive(p)
}
