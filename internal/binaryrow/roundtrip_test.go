package binaryrow_test

import (
	"bytes"
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/schema"
)

var scalarTypes = []schema.DataType{
	ty(schema.TypeBoolean), ty(schema.TypeTinyInt), ty(schema.TypeSmallInt), ty(schema.TypeInt),
	ty(schema.TypeBigInt), ty(schema.TypeFloat), ty(schema.TypeDouble), ty(schema.TypeDate),
	ty(schema.TypeTime), tString, tBytes, {Root: schema.TypeChar, Length: 3}, {Root: schema.TypeBinary, Length: 9},
	dec(1, 0), dec(5, 2), dec(18, 4), dec(19, 0), dec(30, 20), dec(38, 10),
	ts(0), ts(3), ts(6), ts(9), ltz(0), ltz(3), ltz(6), ltz(9),
}

func randType(r *rand.Rand, depth int) schema.DataType {
	if depth > 0 {
		switch r.IntN(8) {
		case 0:
			return arrayOf(randType(r, depth-1))
		case 1:
			return mapOf(randType(r, depth-1), randType(r, depth-1))
		case 2:
			e := randType(r, depth-1)
			return schema.DataType{Root: schema.TypeMultiset, Elem: &e}
		case 3:
			n := r.IntN(4)
			fs := make([]schema.DataType, n)
			for i := range fs {
				fs[i] = randType(r, depth-1)
			}
			return rowOf(fs...)
		}
	}
	return scalarTypes[r.IntN(len(scalarTypes))]
}

func randBytes(r *rand.Rand) []byte {
	n := r.IntN(20)
	if r.IntN(4) == 0 {
		n = r.IntN(300)
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func randValue(r *rand.Rand, dt schema.DataType) any {
	if r.IntN(6) == 0 {
		return nil
	}
	switch dt.Root {
	case schema.TypeBoolean:
		return r.IntN(2) == 1
	case schema.TypeTinyInt:
		return int8(r.Uint32())
	case schema.TypeSmallInt:
		return int16(r.Uint32())
	case schema.TypeInt:
		return int32(r.Uint32())
	case schema.TypeDate:
		return schema.Date(r.Int32N(200000) - 100000)
	case schema.TypeTime:
		return schema.Time(r.Int32N(86400000))
	case schema.TypeBigInt:
		return int64(r.Uint64())
	case schema.TypeFloat:
		switch r.IntN(5) {
		case 0:
			return math.Float32frombits(0x7f800000 | r.Uint32()&0x7fffff | 1) // NaN payloads
		case 1:
			return float32(math.Copysign(0, -1))
		}
		return math.Float32frombits(r.Uint32())
	case schema.TypeDouble:
		if r.IntN(5) == 0 {
			return math.Float64frombits(0xfff0000000000000 | r.Uint64()&0xfffffffffffff | 1)
		}
		return math.Float64frombits(r.Uint64())
	case schema.TypeChar, schema.TypeVarChar:
		return string(randBytes(r))
	case schema.TypeBinary, schema.TypeVarBinary:
		return randBytes(r)
	case schema.TypeDecimal:
		n := 1 + r.IntN(dt.Precision)
		digits := make([]byte, n)
		for i := range digits {
			digits[i] = byte('0' + r.IntN(10))
		}
		x, _ := new(big.Int).SetString(string(digits), 10)
		if r.IntN(2) == 0 {
			x.Neg(x)
		}
		if x.IsInt64() {
			return schema.Decimal{Compact: x.Int64(), Scale: int32(dt.Scale)}
		}
		return schema.Decimal{Big: x, Scale: int32(dt.Scale)}
	case schema.TypeTimestamp, schema.TypeLocalZonedTimestamp:
		v := schema.Timestamp{Millis: r.Int64N(1<<45) - 1<<44}
		if dt.Precision > 3 {
			v.NanoOfMilli = r.Int32N(1_000_000)
		}
		return v
	case schema.TypeArray:
		out := make([]any, r.IntN(40))
		for i := range out {
			out[i] = randValue(r, *dt.Elem)
		}
		return out
	case schema.TypeMap, schema.TypeMultiset:
		n := r.IntN(6)
		m := schema.Map{Keys: make([]any, n), Values: make([]any, n)}
		for i := 0; i < n; i++ {
			if dt.Root == schema.TypeMultiset {
				m.Keys[i], m.Values[i] = randValue(r, *dt.Elem), r.Int32()
			} else {
				m.Keys[i], m.Values[i] = randValue(r, *dt.Key), randValue(r, *dt.Value)
			}
		}
		return m
	case schema.TypeRow:
		out := make([]any, len(dt.Fields))
		for i := range out {
			out[i] = randValue(r, dt.Fields[i].Type)
		}
		return out
	}
	panic("unreachable")
}

func TestRandomRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 3000; iter++ {
		n := r.IntN(10)
		if iter%50 == 0 {
			n = 50 + r.IntN(80) // wide headers
		}
		types := make([]schema.DataType, n)
		for i := range types {
			types[i] = randType(r, 2)
		}
		codec, err := binaryrow.NewCodec(types)
		if err != nil {
			t.Fatal(err)
		}
		row := make([]any, n)
		for i := range row {
			row[i] = randValue(r, types[i])
		}
		data, err := codec.Encode(row)
		if err != nil {
			t.Fatalf("iter %d: encode %s: %v", iter, binaryrow.Format(types, row), err)
		}
		if len(data)%8 != 0 {
			t.Fatalf("iter %d: row size %d not a multiple of 8", iter, len(data))
		}
		back, err := codec.Decode(data)
		if err != nil {
			t.Fatalf("iter %d: decode: %v", iter, err)
		}
		// Raw float bits survive in rows; NaNs inside arrays are canonical.
		if !equalRows(back, row, true) {
			t.Fatalf("iter %d:\n got %s\nwant %s", iter, binaryrow.Format(types, back), binaryrow.Format(types, row))
		}
		again, err := codec.Encode(back)
		if err != nil || !bytes.Equal(again, data) {
			t.Fatalf("iter %d: re-encoding differs (%v)", iter, err)
		}
		// Every strict prefix is rejected as corrupt (or decodes when the
		// cut only removes padding), and never panics.
		for cut := 0; cut < len(data); cut += 1 + cut/3 {
			if _, err := codec.Decode(data[:cut]); err != nil && !errors.Is(err, binaryrow.ErrCorrupt) {
				t.Fatalf("iter %d cut %d: %v is not ErrCorrupt", iter, cut, err)
			}
		}
		ser, err := codec.AppendSerialized(nil, row)
		if err != nil {
			t.Fatal(err)
		}
		back, err = codec.DecodeSerialized(ser)
		if err != nil || !equalRows(back, row, true) {
			t.Fatalf("iter %d: serialized round trip: %v", iter, err)
		}
	}
}

func TestWriterReuseIsCanonical(t *testing.T) {
	// A reused writer must not leak bytes of a previous, longer row.
	types := []schema.DataType{tString, ty(schema.TypeInt), dec(30, 2)}
	w, err := binaryrow.NewWriter(types)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Encode([]any{"a long string that goes to the var part", int32(-1), schema.Decimal{Compact: -5, Scale: 2}}); err != nil {
		t.Fatal(err)
	}
	got, err := w.Encode([]any{"abc", nil, nil})
	if err != nil {
		t.Fatal(err)
	}
	want, err := binaryrow.Encode(types, []any{"abc", nil, nil})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("reused writer:\n got %x\nwant %x", got, want)
	}
}

func TestBucketerDoesNotAllocate(t *testing.T) {
	types := []schema.DataType{ty(schema.TypeInt), tString, dec(30, 2), ts(9), dec(10, 2)}
	b, err := binaryrow.NewBucketer(types, []int{3, 1, 2, 4}, 16, binaryrow.BucketFunctionDefault)
	if err != nil {
		t.Fatal(err)
	}
	big30 := parseDecimal(t, "-3121800083643799333438540749.27")
	row := []any{int32(1), "a string longer than seven bytes", big30, schema.Timestamp{Millis: 5, NanoOfMilli: 7}, schema.Decimal{Compact: 12345, Scale: 2}}
	if _, err := b.Bucket(row); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(200, func() {
		if _, err := b.Bucket(row); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Bucketer.Bucket allocates %.1f times per row", allocs)
	}
}

func TestFormat(t *testing.T) {
	types := []schema.DataType{ty(schema.TypeInt), tString, tString, dec(5, 2), ty(schema.TypeDate), ts(3), tBytes,
		arrayOf(ty(schema.TypeInt)), mapOf(tString, ty(schema.TypeBoolean)), rowOf(ty(schema.TypeBigInt), dec(30, 2)), ts(9)}
	row := []any{int32(10), "abc", nil, schema.Decimal{Compact: -1, Scale: 2}, schema.Date(19753),
		schema.Timestamp{Millis: -1}, []byte{0xca, 0xfe}, []any{int32(1), nil}, schema.Map{Keys: []any{"k"}, Values: []any{true}},
		[]any{int64(-5), parseDecimal(t, "-3121800083643799333438540749.27")}, schema.Timestamp{Millis: 1, NanoOfMilli: 500}}
	want := "(10, 'abc', NULL, -0.01, '2024-01-31', '1969-12-31 23:59:59.999', X'cafe', [1, NULL], {'k': TRUE}, " +
		"(-5, -3121800083643799333438540749.27), '1970-01-01 00:00:00.001000500')"
	if got := binaryrow.Format(types, row); got != want {
		t.Errorf("Format:\n got %s\nwant %s", got, want)
	}
	if got := binaryrow.Format(nil, []any{"it's", float64(1.5), schema.Decimal{Compact: 5, Scale: 3}}); got != "('it''s', 1.5, 0.005)" {
		t.Errorf("untyped Format: %s", got)
	}
}

func BenchmarkWriterEncode(b *testing.B) {
	types := []schema.DataType{ty(schema.TypeInt), tString, dec(30, 2), ts(9), ty(schema.TypeBigInt)}
	w, _ := binaryrow.NewWriter(types)
	row := []any{int32(1), "a string longer than seven bytes", schema.Decimal{Compact: 123456, Scale: 2}, schema.Timestamp{Millis: 5}, int64(9)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := w.Encode(row); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBucketer(b *testing.B) {
	types := []schema.DataType{ty(schema.TypeBigInt), tString}
	bk, _ := binaryrow.NewBucketer(types, []int{0}, 16, binaryrow.BucketFunctionDefault)
	row := []any{int64(42), "x"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := bk.Bucket(row); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	types := []schema.DataType{ty(schema.TypeInt), tString, dec(30, 2), ts(9), ty(schema.TypeBigInt)}
	c, _ := binaryrow.NewCodec(types)
	data, _ := c.Encode([]any{int32(1), "a string longer than seven bytes", schema.Decimal{Compact: 123456, Scale: 2}, schema.Timestamp{Millis: 5}, int64(9)})
	dst := make([]any, len(types))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.DecodeInto(dst, data); err != nil {
			b.Fatal(err)
		}
	}
}
