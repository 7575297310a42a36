package binaryrow_test

import (
	"testing"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/schema"
)

func arrayOf(e schema.DataType) schema.DataType {
	return schema.DataType{Root: schema.TypeArray, Nullable: true, Elem: &e}
}

func mapOf(k, v schema.DataType) schema.DataType {
	return schema.DataType{Root: schema.TypeMap, Nullable: true, Key: &k, Value: &v}
}

func rowOf(ts ...schema.DataType) schema.DataType {
	fs := make([]schema.DataField, len(ts))
	for i, t := range ts {
		fs[i] = schema.DataField{ID: i, Name: string(rune('a' + i)), Type: t}
	}
	return schema.DataType{Root: schema.TypeRow, Nullable: true, Fields: fs}
}

// The expected bytes follow Java's BinaryArrayWriter / BinaryMap.valueOf /
// RowHelper layouts: array = [size int][null bits in 4-byte words][elements of
// their natural width, rounded to 8][var part]; map = [key array bytes int]
// [key array][value array]; nested rows are plain BinaryRows. Each is one
// var-part chunk of its parent, padded to 8.
func TestNestedLayouts(t *testing.T) {
	for _, c := range []struct {
		name string
		dt   schema.DataType
		v    any
		want string
	}{
		{"array<int>", arrayOf(ty(schema.TypeInt)), []any{int32(1), nil, int32(3)},
			"1800000010000000" + "03000000 02000000 01000000 00000000 03000000 00000000"},
		{"array<string>", arrayOf(tString), []any{"abc", "a longer string"},
			"2800000010000000" + "02000000 00000000" + "6162630000000083" + "0f00000018000000" +
				"61206c6f6e67657220737472696e6700"},
		{"array<decimal(20,2)>", arrayOf(dec(20, 2)), []any{nil, schema.Decimal{Compact: 100, Scale: 2}},
			"2800000010000000" + "02000000 01000000" + "0000000000000000" + "0100000018000000" +
				"6400000000000000 0000000000000000"},
		{"array<boolean>", arrayOf(ty(schema.TypeBoolean)), []any{true, false, nil},
			"1000000010000000" + "03000000 04000000 010000 0000000000"},
		{"map<string,int>", mapOf(tString, ty(schema.TypeInt)), schema.Map{Keys: []any{"a"}, Values: []any{int32(1)}},
			"2400000010000000" + "10000000" + "01000000 00000000 6100000000000081" +
				"01000000 00000000 01000000 00000000" + "00000000"},
		{"row<int,string>", rowOf(ty(schema.TypeInt), tString), []any{int32(5), "hello world!"},
			"2800000010000000" + "0000000000000000 0500000000000000 0c00000018000000" +
				"68656c6c6f20776f726c642100000000"},
		{"row<decimal(20,2)> null field", rowOf(dec(20, 2)), []any{nil},
			"2000000010000000" + "0001000000000000 0000000010000000 0000000000000000 0000000000000000"},
		{"multiset<string>", schema.DataType{Root: schema.TypeMultiset, Elem: &tString},
			schema.Map{Keys: []any{"x"}, Values: []any{int32(2)}},
			"2400000010000000" + "10000000" + "01000000 00000000 7800000000000081" +
				"01000000 00000000 02000000 00000000" + "00000000"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := encode(t, []schema.DataType{c.dt}, c.v)
			want := h(t, "0000000000000000"+c.want)
			if len(want)%8 != 0 {
				want = append(want, make([]byte, 8-len(want)%8)...)
			}
			if string(got) != string(want) {
				t.Errorf("\n got %x\nwant %x", got, want)
			}
		})
	}
}

func TestUnsupportedTypes(t *testing.T) {
	for _, dt := range []schema.DataType{
		{Root: schema.TypeVariant}, {Root: schema.TypeBlob}, arrayOf(schema.DataType{Root: schema.TypeVariant}),
		dec(39, 0), {Root: schema.TypeArray},
	} {
		if _, err := binaryrow.NewCodec([]schema.DataType{dt}); err == nil {
			t.Errorf("%v accepted", dt.Root)
		}
	}
}
