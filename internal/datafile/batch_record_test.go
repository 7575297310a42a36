package datafile_test

import (
	"math/big"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lakesql/lakesql/internal/datafile"
	"github.com/lakesql/lakesql/internal/schema"
)

// randomValue is a value of the value model for t.
func arrowTestValue(r *rand.Rand, t *schema.DataType) any {
	switch t.Root {
	case schema.TypeBoolean:
		return r.IntN(2) == 0
	case schema.TypeTinyInt:
		return int8(r.IntN(256) - 128)
	case schema.TypeSmallInt:
		return int16(r.IntN(65536) - 32768)
	case schema.TypeInt:
		return r.Int32()
	case schema.TypeBigInt:
		return r.Int64() - r.Int64()
	case schema.TypeFloat:
		return float32(r.NormFloat64())
	case schema.TypeDouble:
		return r.NormFloat64()
	case schema.TypeDecimal:
		if r.IntN(2) == 0 {
			return schema.Decimal{Compact: r.Int64N(1e15) - 5e14, Scale: int32(t.Scale)}
		}
		b := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t.Precision-1)), nil)
		return schema.Decimal{Big: b.Sub(b, big.NewInt(r.Int64N(1000))), Scale: int32(t.Scale)}
	case schema.TypeVarChar:
		return string([]byte{byte('a' + r.IntN(26)), byte('a' + r.IntN(26))})[:r.IntN(3)]
	case schema.TypeVarBinary:
		return []byte{byte(r.IntN(256))}
	case schema.TypeDate:
		return schema.Date(r.IntN(40000) - 20000)
	case schema.TypeTime:
		return schema.Time(r.IntN(86400000))
	case schema.TypeTimestamp, schema.TypeLocalZonedTimestamp:
		return schema.Timestamp{Millis: r.Int64N(4e12) - 2e12, NanoOfMilli: int32(r.IntN(1000) * 1000)}
	}
	return nil
}

// arrowOf is the value an Arrow array should hold for a model value.
func arrowOf(v any) any {
	switch x := v.(type) {
	case bool:
		if x {
			return int8(1)
		}
		return int8(0)
	case schema.Decimal:
		u := x.Big
		if u == nil {
			u = big.NewInt(x.Compact)
		}
		return u.String()
	case schema.Date:
		return arrow.Date32(x)
	case schema.Time:
		return arrow.Time64(int64(x) * 1000)
	case schema.Timestamp:
		return arrow.Timestamp(x.Millis*1000 + int64(x.NanoOfMilli)/1000)
	case []byte:
		return string(x)
	}
	return v
}

func arrowValue(a arrow.Array, i int) any {
	switch a := a.(type) {
	case *array.Int8:
		return a.Value(i)
	case *array.Int16:
		return a.Value(i)
	case *array.Int32:
		return a.Value(i)
	case *array.Int64:
		return a.Value(i)
	case *array.Float32:
		return a.Value(i)
	case *array.Float64:
		return a.Value(i)
	case *array.Decimal128:
		return a.Value(i).BigInt().String()
	case *array.String:
		return a.Value(i)
	case *array.Binary:
		return string(a.Value(i))
	case *array.Date32:
		return a.Value(i)
	case *array.Time64:
		return a.Value(i)
	case *array.Timestamp:
		return a.Value(i)
	}
	return nil
}

// TestArrowRecordAgainstModel: random batches of every scalar type, with
// NULLs and a random selection, become Arrow records holding exactly the
// selected rows' values, in their Arrow types, independent of the batch's
// buffers (the batch is overwritten before the record is checked).
func TestArrowRecordAgainstModel(t *testing.T) {
	seed := time.Now().UnixNano()
	r := rand.New(rand.NewPCG(uint64(seed), 5))
	t.Logf("seed %d", seed)
	types := []schema.DataType{
		schema.AtomicType(schema.TypeBoolean), schema.AtomicType(schema.TypeTinyInt), schema.AtomicType(schema.TypeSmallInt),
		schema.AtomicType(schema.TypeInt), schema.AtomicType(schema.TypeBigInt), schema.AtomicType(schema.TypeFloat),
		schema.AtomicType(schema.TypeDouble), {Root: schema.TypeDecimal, Precision: 20, Scale: 4, Nullable: true},
		schema.StringType(), {Root: schema.TypeVarBinary, Length: 100, Nullable: true}, schema.AtomicType(schema.TypeDate),
		{Root: schema.TypeTime, Precision: 3, Nullable: true}, {Root: schema.TypeTimestamp, Precision: 6, Nullable: true},
		{Root: schema.TypeLocalZonedTimestamp, Precision: 3, Nullable: true},
	}
	var fields []schema.DataField
	for i, ty := range types {
		fields = append(fields, schema.DataField{ID: i, Name: string(rune('a' + i)), Type: ty})
	}
	sc, ok := datafile.ArrowSchema(fields)
	if !ok {
		t.Fatal("no Arrow schema for scalar types")
	}
	for round := range 50 {
		n := r.IntN(300)
		var b datafile.Batch
		b.Len = n
		b.Cols = make([]datafile.Vector, len(types))
		model := make([][]any, n)
		for i := range model {
			model[i] = make([]any, len(types))
		}
		for c, ty := range types {
			b.Cols[c].Reset(ty, n)
			for i := range n {
				var v any
				if r.IntN(6) > 0 {
					v = arrowTestValue(r, &types[c])
				}
				model[i][c] = v
				if v == nil {
					b.Cols[c].SetNull(i)
				} else if err := b.Cols[c].Set(i, v); err != nil {
					t.Fatal(err)
				}
			}
		}
		if r.IntN(2) == 0 {
			for i := range n {
				if r.IntN(3) > 0 {
					b.Sel = append(b.Sel, int32(i))
				}
			}
			if b.Sel == nil {
				b.Sel = []int32{}
			}
		}
		rec, err := b.ArrowRecord(sc, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		// Overwrite the batch: the record must not share its buffers.
		for c := range types {
			b.Cols[c].Reset(types[c], n)
		}
		rows := make([]int, 0, n)
		if b.Sel != nil {
			for _, k := range b.Sel {
				rows = append(rows, int(k))
			}
		} else {
			for i := range n {
				rows = append(rows, i)
			}
		}
		if int(rec.NumRows()) != len(rows) {
			t.Fatalf("round %d: %d rows, want %d", round, rec.NumRows(), len(rows))
		}
		for j, i := range rows {
			for c := range types {
				a := rec.Column(c)
				want := model[i][c]
				if want == nil {
					if !a.IsNull(j) {
						t.Fatalf("round %d row %d col %s: %v, want NULL", round, i, fields[c].Name, arrowValue(a, j))
					}
					continue
				}
				if a.IsNull(j) || arrowValue(a, j) != arrowOf(want) {
					t.Fatalf("round %d row %d col %s (%s): %v, want %v", round, i, fields[c].Name, a.DataType(), arrowValue(a, j), arrowOf(want))
				}
			}
		}
		rec.Release()
	}
}
