package binaryrow_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/schema"
)

// fuzzTypeSets are the row types FuzzDecode decodes every input with: a wide
// one covering every type, and small nested ones so that short inputs reach
// the array/map/row decoders.
var fuzzTypeSets = [][]schema.DataType{
	{
		ty(schema.TypeBoolean), ty(schema.TypeTinyInt), ty(schema.TypeSmallInt), ty(schema.TypeInt),
		ty(schema.TypeBigInt), ty(schema.TypeFloat), ty(schema.TypeDouble), ty(schema.TypeDate),
		ty(schema.TypeTime), tString, tBytes, dec(5, 2), dec(30, 2), ts(3), ts(9), ltz(6),
		arrayOf(tString), mapOf(ty(schema.TypeInt), dec(20, 2)),
		rowOf(tString, arrayOf(ts(6))), {Root: schema.TypeMultiset, Elem: &tBytes},
	},
	{arrayOf(mapOf(tString, rowOf(dec(20, 0), ts(9), ty(schema.TypeFloat))))},
	{tString, dec(38, 5)},
}

func FuzzDecode(f *testing.F) {
	codecs := make([]*binaryrow.Codec, len(fuzzTypeSets))
	for i, types := range fuzzTypeSets {
		c, err := binaryrow.NewCodec(types)
		if err != nil {
			f.Fatal(err)
		}
		codecs[i] = c
	}
	r := rand.New(rand.NewPCG(7, 8))
	for i, types := range fuzzTypeSets {
		for j := 0; j < 8; j++ {
			row := make([]any, len(types))
			if j > 0 {
				for k := range row {
					row[k] = randValue(r, types[k])
				}
			}
			b, err := codecs[i].Encode(row)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
			if s, err := codecs[i].AppendSerialized(nil, row); err == nil {
				f.Add(s)
			}
		}
	}
	f.Add([]byte{})
	f.Add(binaryrow.EmptySerialized)
	f.Fuzz(func(t *testing.T, data []byte) {
		binaryrow.HashCode(data)
		for i, c := range codecs {
			if _, err := c.DecodeSerialized(data); err != nil && !errors.Is(err, binaryrow.ErrCorrupt) {
				t.Fatalf("DecodeSerialized: %v is not ErrCorrupt", err)
			}
			if vals, arity, err := binaryrow.DecodeSerializedPrefix(fuzzTypeSets[i], data); err != nil && !errors.Is(err, binaryrow.ErrCorrupt) {
				t.Fatalf("DecodeSerializedPrefix: %v is not ErrCorrupt", err)
			} else if err == nil && (len(vals) != len(fuzzTypeSets[i]) || arity > len(vals)) {
				t.Fatalf("DecodeSerializedPrefix: %d values of arity %d for %d types", len(vals), arity, len(fuzzTypeSets[i]))
			}
			row, err := c.Decode(data)
			if err != nil {
				if !errors.Is(err, binaryrow.ErrCorrupt) {
					t.Fatalf("Decode: %v is not ErrCorrupt", err)
				}
				continue
			}
			kind, err := binaryrow.RowKindOf(data)
			if err != nil {
				t.Fatalf("decoded row has no valid kind: %v", err)
			}
			b1, err := c.Append(nil, kind, row)
			if err != nil {
				t.Fatalf("set %d: re-encode of decoded %s: %v", i, binaryrow.Format(fuzzTypeSets[i], row), err)
			}
			row2, err := c.Decode(b1)
			if err != nil {
				t.Fatalf("set %d: decode of re-encoded row: %v", i, err)
			}
			if !equalRows(row, row2, true) {
				t.Fatalf("set %d: unstable:\n first %s\nsecond %s", i, binaryrow.Format(fuzzTypeSets[i], row), binaryrow.Format(fuzzTypeSets[i], row2))
			}
			b2, err := c.Append(nil, kind, row2)
			if err != nil || !bytes.Equal(b1, b2) {
				t.Fatalf("set %d: canonical bytes not a fixed point (%v)", i, err)
			}
			if !equalRows(row2, mustDecode(t, c, b2), false) {
				t.Fatalf("set %d: canonical decode differs", i)
			}
		}
	})
}

func mustDecode(t *testing.T, c *binaryrow.Codec, b []byte) []any {
	t.Helper()
	row, err := c.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	return row
}

// FuzzInt64At: the unboxed BIGINT decode never panics and agrees with
// Decode (value and null) wherever Decode reads the row of BIGINT fields.
func FuzzInt64At(f *testing.F) {
	for _, arity := range []int{1, 2, 3} {
		types := make([]schema.DataType, arity)
		for i := range types {
			types[i] = ty(schema.TypeBigInt)
		}
		c, err := binaryrow.NewCodec(types)
		if err != nil {
			f.Fatal(err)
		}
		row := make([]any, arity)
		for i := range row {
			row[i] = int64(-7 * (i + 1) << 40)
		}
		if arity > 1 {
			row[1] = nil
		}
		b, err := c.Encode(row)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint8(arity), uint8(0))
		f.Add(b, uint8(arity), uint8(1))
	}
	f.Fuzz(func(t *testing.T, data []byte, arity, pos uint8) {
		n, p := int(arity%4), int(pos%5)
		v, ok, err := binaryrow.Int64At(data, n, p)
		if n == 0 || p >= n {
			if err == nil {
				t.Fatalf("field %d of arity %d: no error", p, n)
			}
			return
		}
		types := make([]schema.DataType, n)
		for i := range types {
			types[i] = ty(schema.TypeBigInt)
		}
		want, derr := binaryrow.Decode(types, data)
		if derr != nil {
			return
		}
		if err != nil {
			t.Fatalf("Decode reads the row, Int64At fails: %v", err)
		}
		if ok != (want[p] != nil) || ok && v != want[p].(int64) {
			t.Fatalf("Int64At = %d %v, Decode %v", v, ok, want[p])
		}
	})
}
