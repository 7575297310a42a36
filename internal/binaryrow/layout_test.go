package binaryrow_test

import (
	"encoding/hex"
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/schema"
)

func h(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func encode(t testing.TB, types []schema.DataType, row ...any) []byte {
	t.Helper()
	b, err := binaryrow.Encode(types, row)
	if err != nil {
		t.Fatal(err)
	}
	back, err := binaryrow.Decode(types, b)
	if err != nil {
		t.Fatalf("decode own encoding: %v", err)
	}
	if !equalRows(back, row, false) {
		t.Fatalf("round trip: got %s, want %s", binaryrow.Format(types, back), binaryrow.Format(types, row))
	}
	return b
}

func TestBitSetWidth(t *testing.T) {
	for _, c := range []struct{ arity, want int }{{0, 8}, {1, 8}, {56, 8}, {57, 16}, {120, 16}, {121, 24}} {
		if got := binaryrow.BitSetWidthInBytes(c.arity); got != c.want {
			t.Errorf("arity %d: width %d, want %d", c.arity, got, c.want)
		}
	}
}

func TestSerializedExamples(t *testing.T) {
	got, err := binaryrow.EncodeSerialized(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := h(t, "00000000 0000000000000000"); string(got) != string(want) {
		t.Errorf("empty row: %x, want %x", got, want)
	}
	if string(got) != string(binaryrow.EmptySerialized) {
		t.Errorf("EmptySerialized differs")
	}
	types := []schema.DataType{ty(schema.TypeInt)}
	got, err = binaryrow.EncodeSerialized(types, []any{int32(10)})
	if err != nil {
		t.Fatal(err)
	}
	if want := h(t, "00000001 0000000000000000 0a00000000000000"); string(got) != string(want) {
		t.Errorf("INT 10: %x, want %x", got, want)
	}
	row, err := binaryrow.DecodeSerialized(types, got)
	if err != nil || len(row) != 1 || row[0] != int32(10) {
		t.Fatalf("decode: %v %v", row, err)
	}
	if _, err := binaryrow.DecodeSerialized([]schema.DataType{ty(schema.TypeInt), ty(schema.TypeInt)}, got); !errors.Is(err, binaryrow.ErrCorrupt) {
		t.Errorf("arity mismatch: err %v", err)
	}
	w, err := binaryrow.NewWriter(types)
	if err != nil {
		t.Fatal(err)
	}
	got2, err := w.EncodeSerialized([]any{int32(10)})
	if err != nil || string(got2) != string(got) {
		t.Errorf("Writer.EncodeSerialized: %x %v", got2, err)
	}
}

func TestInlineStrings(t *testing.T) {
	types := []schema.DataType{tString}
	for _, c := range []struct {
		s    string
		slot string
	}{
		{"Alice", "41 6c 69 63 65 00 00 85"},
		{"", "00 00 00 00 00 00 00 80"},
		{"1234567", "31 32 33 34 35 36 37 87"},
		{"héllo", "68 c3 a9 6c 6c 6f 00 86"},
	} {
		got := encode(t, types, c.s)
		want := h(t, "0000000000000000"+c.slot)
		if string(got) != string(want) {
			t.Errorf("%q: %x, want %x", c.s, got, want)
		}
	}
	// Binaries are laid out the same way.
	got := encode(t, []schema.DataType{tBytes}, []byte{1, 2, 3})
	if want := h(t, "0000000000000000 0102030000000083"); string(got) != string(want) {
		t.Errorf("binary: %x, want %x", got, want)
	}
}

func TestVarPartStrings(t *testing.T) {
	long := strings.Repeat("Two roads diverged in a wood, and I took the one less traveled by..", 2)[:104]
	types := []schema.DataType{ty(schema.TypeInt), tString}
	got := encode(t, types, int32(7), long)
	if len(got) != 24+104 {
		t.Fatalf("size %d, want 128", len(got))
	}
	if want := h(t, "68 00 00 00 18 00 00 00"); string(got[16:24]) != string(want) {
		t.Errorf("slot %x, want %x", got[16:24], want)
	}
	if string(got[24:]) != long {
		t.Errorf("var part differs")
	}
	// 8 bytes: var part, no padding; 9 bytes: padded to 16 with zeros.
	got = encode(t, []schema.DataType{tString, tString}, "12345678", "123456789")
	want := h(t, "0000000000000000 0800000018000000 0900000020000000 3132333435363738 3132333435363738 3900000000000000")
	if string(got) != string(want) {
		t.Errorf("8/9 bytes:\n got %x\nwant %x", got, want)
	}
}

func TestDecimals(t *testing.T) {
	// Compact: unscaled long at the declared scale.
	types := []schema.DataType{dec(5, 2)}
	for _, c := range []struct {
		d    schema.Decimal
		want string
	}{
		{schema.Decimal{Compact: 3495, Scale: 2}, "a70d000000000000"},
		{schema.Decimal{Compact: -1, Scale: 2}, "ffffffffffffffff"},
		{schema.Decimal{Compact: 35, Scale: 1}, "5e01000000000000"},     // 3.5 → 350
		{schema.Decimal{Compact: 12345, Scale: 3}, "d304000000000000"},  // 12.345 → 12.35 (HALF_UP)
		{schema.Decimal{Compact: -12345, Scale: 3}, "2dfbffffffffffff"}, // -12.345 → -12.35
	} {
		got, err := binaryrow.Encode(types, []any{c.d})
		if err != nil {
			t.Fatal(err)
		}
		if string(got[8:]) != string(h(t, c.want)) {
			t.Errorf("%s: slot %x, want %s", c.d.String(), got[8:], c.want)
		}
	}
	if _, err := binaryrow.Encode(types, []any{schema.Decimal{Compact: 100000, Scale: 2}}); !errors.Is(err, binaryrow.ErrValue) {
		t.Errorf("1000.00 in DECIMAL(5,2): err %v", err)
	}

	// Non-compact: BigInteger.toByteArray() in a 16-byte chunk.
	two63 := new(big.Int).Lsh(big.NewInt(1), 63)
	max38 := new(big.Int).Sub(new(big.Int).Exp(big.NewInt(10), big.NewInt(38), nil), big.NewInt(1))
	wide := []schema.DataType{dec(38, 0)}
	for _, c := range []struct {
		d     schema.Decimal
		bytes string
	}{
		{schema.Decimal{Compact: 0}, "00"},
		{schema.Decimal{Compact: 127}, "7f"},
		{schema.Decimal{Compact: 128}, "0080"},
		{schema.Decimal{Compact: -1}, "ff"},
		{schema.Decimal{Compact: -128}, "80"},
		{schema.Decimal{Compact: -129}, "ff7f"},
		{schema.Decimal{Compact: 255}, "00ff"},
		{schema.Decimal{Compact: -256}, "ff00"},
		{schema.Decimal{Compact: math.MinInt64}, "8000000000000000"},
		{schema.Decimal{Compact: math.MaxInt64}, "7fffffffffffffff"},
		{schema.Decimal{Big: two63}, "008000000000000000"},
		{schema.Decimal{Big: new(big.Int).Sub(new(big.Int).Neg(two63), big.NewInt(1))}, "ff7fffffffffffffff"},
		{schema.Decimal{Big: max38}, "4b3b4ca85a86c47a098a223fffffffff"},
		{schema.Decimal{Big: new(big.Int).Neg(max38)}, "b4c4b357a5793b85f675ddc000000001"},
	} {
		got, err := binaryrow.Encode(wide, []any{c.d})
		if err != nil {
			t.Fatalf("%s: %v", c.d.String(), err)
		}
		want := h(t, c.bytes)
		if len(got) != 32 {
			t.Fatalf("size %d", len(got))
		}
		slot := h(t, "0000000010000000")
		slot[0] = byte(len(want))
		if string(got[8:16]) != string(slot) {
			t.Errorf("%s: slot %x, want %x", c.d.String(), got[8:16], slot)
		}
		chunk := make([]byte, 16)
		copy(chunk, want)
		if string(got[16:]) != string(chunk) {
			t.Errorf("%s: chunk %x, want %x", c.d.String(), got[16:], chunk)
		}
		back, err := binaryrow.Decode(wide, got)
		if err != nil || !equalValue(back[0], c.d, false) {
			t.Errorf("%s: decoded %v %v", c.d.String(), back, err)
		}
	}
	// The doc's 30-digit example.
	d30 := []schema.DataType{dec(30, 2)}
	v := parseDecimal(t, "-3121800083643799333438540749.27")
	got := encode(t, d30, v)
	want := new(big.Int)
	want.SetString("-312180008364379933343854074927", 10)
	n := int(got[8])
	gotInt := new(big.Int).SetBytes(got[16 : 16+n])
	if got[16]&0x80 != 0 {
		gotInt.Sub(gotInt, new(big.Int).Lsh(big.NewInt(1), uint(8*n)))
	}
	if gotInt.Cmp(want) != 0 || n != (want.BitLen()/8+1) {
		t.Errorf("30-digit decimal: %x", got)
	}
}

func TestFloatBits(t *testing.T) {
	types := []schema.DataType{ty(schema.TypeFloat), ty(schema.TypeDouble)}
	negZero32 := float32(math.Copysign(0, -1))
	got := encode(t, types, negZero32, math.Copysign(0, -1))
	if want := h(t, "0000000000000000 0000008000000000 0000000000000080"); string(got) != string(want) {
		t.Errorf("-0.0: %x, want %x", got, want)
	}
	pos := encode(t, types, float32(0), float64(0))
	if binaryrow.HashCode(pos) == binaryrow.HashCode(got) {
		t.Errorf("-0.0 and +0.0 hash alike")
	}
	nan32 := math.Float32frombits(0x7fc00000)
	odd32 := math.Float32frombits(0x7f800001)
	odd64 := math.Float64frombits(0x7ff0000000000001)
	// Java's Double.NaN; Go's math.NaN() is 0x7ff8000000000001 and would hash
	// differently.
	got = encode(t, types, nan32, math.Float64frombits(0x7ff8000000000000))
	if want := h(t, "0000000000000000 0000c07f00000000 000000000000f87f"); string(got) != string(want) {
		t.Errorf("NaN: %x, want %x", got, want)
	}
	got = encode(t, types, odd32, odd64)
	if want := h(t, "0000000000000000 0100807f00000000 010000000000f07f"); string(got) != string(want) {
		t.Errorf("NaN payloads must be kept raw in a row: %x, want %x", got, want)
	}
	// BinaryArrayWriter canonicalizes NaN elements.
	arr := []schema.DataType{{Root: schema.TypeArray, Elem: &schema.DataType{Root: schema.TypeFloat}}}
	b, err := binaryrow.Encode(arr, []any{[]any{odd32}})
	if err != nil {
		t.Fatal(err)
	}
	if want := h(t, "0000000000000000 1000000010000000 0100000000000000 0000c07f00000000"); string(b) != string(want) {
		t.Errorf("array NaN: %x, want %x", b, want)
	}
}

func TestTimestamps(t *testing.T) {
	// 1969-12-31T23:59:59.9995 → millis -1, nano-of-milli 500000.
	v := tsFromNanos(-500_000)
	if v.Millis != -1 || v.NanoOfMilli != 500000 {
		t.Fatalf("tsFromNanos: %+v", v)
	}
	for _, dt := range []schema.DataType{ts(6), ltz(6), ts(9), ltz(4)} {
		got := encode(t, []schema.DataType{dt}, v)
		if want := h(t, "0000000000000000 20a1070010000000 ffffffffffffffff"); string(got) != string(want) {
			t.Errorf("%v(%d): %x, want %x", dt.Root, dt.Precision, got, want)
		}
	}
	for _, dt := range []schema.DataType{ts(0), ts(3), ltz(0), ltz(3)} {
		got, err := binaryrow.Encode([]schema.DataType{dt}, []any{schema.Timestamp{Millis: -1}})
		if err != nil {
			t.Fatal(err)
		}
		if want := h(t, "0000000000000000 ffffffffffffffff"); string(got) != string(want) {
			t.Errorf("compact %d: %x, want %x", dt.Precision, got, want)
		}
	}
	// The doc's fixture: TIMESTAMP(6) 1 µs as the 8th field → slot e8030000 48000000.
	types := make([]schema.DataType, 8)
	row := make([]any, 8)
	for i := range types {
		types[i] = ty(schema.TypeInt)
		row[i] = int32(i)
	}
	types[7], row[7] = ts(6), schema.Timestamp{NanoOfMilli: 1000}
	got := encode(t, types, row...)
	if string(got[64:72]) != string(h(t, "e803000048000000")) || string(got[72:]) != string(make([]byte, 8)) {
		t.Errorf("1 µs: %x", got[64:])
	}
	if _, err := binaryrow.Encode([]schema.DataType{ts(6)}, []any{schema.Timestamp{NanoOfMilli: 1_000_000}}); !errors.Is(err, binaryrow.ErrValue) {
		t.Errorf("bad nano: %v", err)
	}
}

func TestAllNullRowReservesNonCompact(t *testing.T) {
	types := []schema.DataType{ty(schema.TypeInt), dec(20, 2), ts(6), tString, dec(5, 2), ts(3), ltz(9)}
	got := encode(t, types, nil, nil, nil, nil, nil, nil, nil)
	want := h(t, "007f000000000000"+ // 7 null bits
		"0000000000000000"+ // INT
		"0000000040000000"+ // DECIMAL(20,2): offset 64, length 0
		"0000000050000000"+ // TIMESTAMP(6): offset 80
		"0000000000000000"+ // STRING
		"0000000000000000"+ // DECIMAL(5,2)
		"0000000000000000"+ // TIMESTAMP(3)
		"0000000058000000"+ // TIMESTAMP_LTZ(9): offset 88
		strings.Repeat("00", 16+8+8))
	if string(got) != string(want) {
		t.Errorf("all null:\n got %x\nwant %x", got, want)
	}
}

func TestWideArity(t *testing.T) {
	const n = 61
	types := make([]schema.DataType, n)
	row := make([]any, n)
	for i := range types {
		types[i] = ty(schema.TypeBigInt)
		row[i] = int64(i)
	}
	row[56], row[60] = nil, nil
	got := encode(t, types, row...)
	if len(got) != 16+8*n {
		t.Fatalf("size %d", len(got))
	}
	// Field 56 is bit 64 (byte 8, bit 0), field 60 is byte 8 bit 4.
	if want := h(t, "0000000000000000 1100000000000000"); string(got[:16]) != string(want) {
		t.Errorf("header %x, want %x", got[:16], want)
	}
	if got[16+8*5] != 5 {
		t.Errorf("slot 5 = %d", got[16+8*5])
	}
	if null, err := binaryrow.IsNullAt(got, n, 60); err != nil || !null {
		t.Errorf("IsNullAt(60) = %v %v", null, err)
	}
}

func TestFixedWidthAndKind(t *testing.T) {
	types := []schema.DataType{
		ty(schema.TypeBoolean), ty(schema.TypeTinyInt), ty(schema.TypeSmallInt), ty(schema.TypeInt),
		ty(schema.TypeDate), ty(schema.TypeTime), ty(schema.TypeBigInt),
	}
	row := []any{true, int8(-2), int16(-3), int32(-4), schema.Date(-5), schema.Time(6), int64(-7)}
	w, err := binaryrow.NewWriter(types)
	if err != nil {
		t.Fatal(err)
	}
	got, err := w.EncodeKind(3, row)
	if err != nil {
		t.Fatal(err)
	}
	want := h(t, "0300000000000000"+
		"0100000000000000"+"fe00000000000000"+"fdff000000000000"+"fcffffff00000000"+
		"fbffffff00000000"+"0600000000000000"+"f9ffffffffffffff")
	if string(got) != string(want) {
		t.Errorf("\n got %x\nwant %x", got, want)
	}
	if k, err := binaryrow.RowKindOf(got); err != nil || k != 3 {
		t.Errorf("RowKindOf = %d %v", k, err)
	}
	if _, err := w.EncodeKind(4, row); !errors.Is(err, binaryrow.ErrValue) {
		t.Errorf("kind 4: %v", err)
	}
	if _, err := w.Encode([]any{int32(1)}); !errors.Is(err, binaryrow.ErrValue) {
		t.Errorf("arity: %v", err)
	}
	row[3] = 4 // int, not int32
	if _, err := w.Encode(row); !errors.Is(err, binaryrow.ErrValue) {
		t.Errorf("wrong Go type: %v", err)
	}
}

func TestBucketArithmetic(t *testing.T) {
	for _, c := range []struct {
		hash int32
		n    int
		want int
	}{
		{17, 5, 2}, {-17, 5, 2}, {math.MinInt32, 12345, int(-(int64(math.MinInt32) % 12345))}, {math.MinInt32, 2, 0},
		{-1, 12345, 1}, {math.MaxInt32, 7, math.MaxInt32 % 7},
	} {
		if got := binaryrow.Bucket(c.hash, c.n); got != c.want || got < 0 {
			t.Errorf("Bucket(%d, %d) = %d, want %d", c.hash, c.n, got, c.want)
		}
	}
	for _, c := range []struct {
		key  int64
		n    int
		want int
	}{{17, 5, 2}, {-3, 5, 2}, {5, 5, 0}, {math.MinInt64, 7, 6}} {
		if got := binaryrow.ModBucket(c.key, c.n); got != c.want {
			t.Errorf("ModBucket(%d, %d) = %d, want %d", c.key, c.n, got, c.want)
		}
	}
	types := []schema.DataType{tString, ty(schema.TypeBigInt)}
	b, err := binaryrow.NewBucketer(types, []int{1}, 5, binaryrow.BucketFunctionMod)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := b.Bucket([]any{"x", int64(-3)}); err != nil || got != 2 {
		t.Errorf("mod bucket = %d %v", got, err)
	}
	if _, err := binaryrow.NewBucketer(types, []int{0}, 5, binaryrow.BucketFunctionMod); !errors.Is(err, binaryrow.ErrUnsupported) {
		t.Errorf("mod on STRING: %v", err)
	}
	if ft, err := binaryrow.ParseBucketFunctionType("MOD"); err != nil || ft != binaryrow.BucketFunctionMod {
		t.Errorf("parse MOD: %v %v", ft, err)
	}
}

func TestHashCodeKnown(t *testing.T) {
	// Murmur3_x86_32 seed 42 with no tail equals the reference algorithm on
	// word-aligned input: check against an independent implementation.
	data := []byte("0123456789abcdef0123456789abcdef")
	if got, want := binaryrow.HashCode(data), refMurmur(data); got != want {
		t.Errorf("HashCode = %d, want %d", got, want)
	}
}

func refMurmur(b []byte) int32 {
	const c1, c2 = 0xcc9e2d51, 0x1b873593
	h1 := uint32(42)
	for i := 0; i+4 <= len(b); i += 4 {
		k := uint32(b[i]) | uint32(b[i+1])<<8 | uint32(b[i+2])<<16 | uint32(b[i+3])<<24
		k *= c1
		k = k<<15 | k>>17
		k *= c2
		h1 ^= k
		h1 = h1<<13 | h1>>19
		h1 = h1*5 + 0xe6546b64
	}
	h1 ^= uint32(len(b))
	h1 ^= h1 >> 16
	h1 *= 0x85ebca6b
	h1 ^= h1 >> 13
	h1 *= 0xc2b2ae35
	h1 ^= h1 >> 16
	return int32(h1)
}
