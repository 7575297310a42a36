package binaryrow

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/lakesql/lakesql/internal/schema"
)

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
}

// Decode decodes a BinaryRow of this codec's field types. Strings and
// binaries are copied: the result does not alias data.
func (c *Codec) Decode(data []byte) ([]any, error) {
	return c.DecodeInto(nil, data)
}

// DecodeInto is Decode reusing dst's backing array when it is large enough.
func (c *Codec) DecodeInto(dst []any, data []byte) ([]any, error) {
	n := len(c.fields)
	if cap(dst) >= n {
		dst = dst[:n]
	} else {
		dst = make([]any, n)
	}
	d := decoder{budget: 2*len(data) + 64}
	if err := d.decodeRow(c.fields, data, dst); err != nil {
		return nil, err
	}
	return dst, nil
}

// Decode decodes a BinaryRow with these field types.
func Decode(types []schema.DataType, data []byte) ([]any, error) {
	c, err := NewCodec(types)
	if err != nil {
		return nil, err
	}
	return c.Decode(data)
}

// RowKindOf returns the RowKind byte of a BinaryRow (0 +I, 1 -U, 2 +U, 3 -D).
func RowKindOf(data []byte) (int8, error) {
	if len(data) < 8 {
		return 0, corrupt("row of %d bytes is shorter than its header", len(data))
	}
	if data[0] > 3 {
		return 0, corrupt("row kind byte %d", data[0])
	}
	return int8(data[0]), nil
}

// IsNullAt reports whether field pos of a BinaryRow of the given arity is
// null, without decoding the row.
func IsNullAt(data []byte, arity, pos int) (bool, error) {
	if pos < 0 || pos >= arity || len(data) < FixedPartSize(arity) {
		return false, corrupt("field %d of a row of arity %d and %d bytes", pos, arity, len(data))
	}
	i := pos + HeaderSizeInBits
	return data[i>>3]&(1<<(i&7)) != 0, nil
}

// decoder bounds the work of one Decode. Java never writes overlapping
// var-part chunks, so a valid row decodes with at most one unit of budget per
// field or element and per copied byte, which is at most its length; chunks
// that several slots share could otherwise multiply the output (a
// decompression bomb through nested arrays).
type decoder struct {
	budget int
}

func (d *decoder) charge(n int) error {
	d.budget -= n
	if d.budget < 0 {
		return corrupt("decoded size exceeds the input (overlapping var-part chunks)")
	}
	return nil
}

// decodeRow decodes the BinaryRow b (exactly the row's bytes) into dst.
func (d *decoder) decodeRow(fields []field, b []byte, dst []any) error {
	n := len(fields)
	nb := BitSetWidthInBytes(n)
	fixed := nb + 8*n
	if len(b) < fixed {
		return corrupt("row of %d bytes is shorter than its fixed part of %d bytes (arity %d)", len(b), fixed, n)
	}
	if b[0] > 3 {
		return corrupt("row kind byte %d", b[0])
	}
	if err := d.charge(n); err != nil {
		return err
	}
	for i := range fields {
		bit := i + HeaderSizeInBits
		if b[bit>>3]&(1<<(bit&7)) != 0 {
			dst[i] = nil
			continue
		}
		v, err := d.decodeValue(&fields[i], b, nb+8*i, fixed)
		if err != nil {
			return fmt.Errorf("field %d: %w", i, err)
		}
		dst[i] = v
	}
	return nil
}

// varRef resolves the offset-and-size long at slot into b[off:off+size],
// checking that the chunk lies in the var part (at or after minOff).
func varRef(b []byte, slot, minOff int) (off, size int, err error) {
	v := binary.LittleEndian.Uint64(b[slot:])
	o, s := v>>32, v&0xffffffff
	if o < uint64(minOff) || o+s > uint64(len(b)) {
		return 0, 0, corrupt("var-part chunk at offset %d size %d outside [%d, %d)", o, s, minOff, len(b))
	}
	return int(o), int(s), nil
}

// varBytes reads a string or binary (inline or in the var part).
func varBytes(b []byte, slot, minOff int) ([]byte, error) {
	v := binary.LittleEndian.Uint64(b[slot:])
	if v&(1<<63) != 0 {
		n := int(v >> 56 & 0x7f)
		if n > MaxInlineSize {
			return nil, corrupt("inline length %d", n)
		}
		return b[slot : slot+n], nil
	}
	off, size, err := varRef(b, slot, minOff)
	if err != nil {
		return nil, err
	}
	return b[off : off+size], nil
}

// decodeValue decodes the non-null value of type f whose slot starts at slot
// in the structure b (a row or an array); var-part offsets are relative to b
// and must not be below minOff.
func (d *decoder) decodeValue(f *field, b []byte, slot, minOff int) (any, error) {
	switch f.kind {
	case kBool:
		// MemorySegment.getBoolean: any non-zero byte is true.
		return b[slot] != 0, nil
	case kTinyInt:
		return int8(b[slot]), nil
	case kSmallInt:
		return int16(binary.LittleEndian.Uint16(b[slot:])), nil
	case kInt:
		return int32(binary.LittleEndian.Uint32(b[slot:])), nil
	case kDate:
		return schema.Date(int32(binary.LittleEndian.Uint32(b[slot:]))), nil
	case kTime:
		return schema.Time(int32(binary.LittleEndian.Uint32(b[slot:]))), nil
	case kBigInt:
		return int64(binary.LittleEndian.Uint64(b[slot:])), nil
	case kFloat:
		return math.Float32frombits(binary.LittleEndian.Uint32(b[slot:])), nil
	case kDouble:
		return math.Float64frombits(binary.LittleEndian.Uint64(b[slot:])), nil
	case kString:
		x, err := varBytes(b, slot, minOff)
		if err != nil {
			return nil, err
		}
		if err := d.charge(len(x)); err != nil {
			return nil, err
		}
		return string(x), nil
	case kBinary:
		x, err := varBytes(b, slot, minOff)
		if err != nil {
			return nil, err
		}
		if err := d.charge(len(x)); err != nil {
			return nil, err
		}
		return append([]byte{}, x...), nil
	case kDecimalCompact:
		v := schema.Decimal{Compact: int64(binary.LittleEndian.Uint64(b[slot:])), Scale: int32(f.scale)}
		if !v.Fits(f.precision) {
			return nil, corrupt("decimal %d exceeds DECIMAL(%d, %d)", v.Compact, f.precision, f.scale)
		}
		return v, nil
	case kDecimalWide:
		off, size, err := varRef(b, slot, minOff)
		if err != nil {
			return nil, err
		}
		if size < 1 || size > 16 {
			return nil, corrupt("decimal of %d bytes", size)
		}
		v := decimalFromBytes(b[off:off+size], f.scale)
		if !v.Fits(f.precision) {
			return nil, corrupt("decimal exceeds DECIMAL(%d, %d)", f.precision, f.scale)
		}
		return v, nil
	case kTimestampCompact:
		return schema.Timestamp{Millis: int64(binary.LittleEndian.Uint64(b[slot:]))}, nil
	case kTimestampWide:
		v := binary.LittleEndian.Uint64(b[slot:])
		o, nano := v>>32, int64(int32(uint32(v)))
		if nano < 0 || nano > 999_999 {
			return nil, corrupt("timestamp nano-of-millisecond %d", nano)
		}
		if o < uint64(minOff) || o+8 > uint64(len(b)) {
			return nil, corrupt("timestamp millis at offset %d outside [%d, %d)", o, minOff, len(b))
		}
		return schema.Timestamp{Millis: int64(binary.LittleEndian.Uint64(b[o:])), NanoOfMilli: int32(nano)}, nil
	case kArray, kMap, kRow:
		off, size, err := varRef(b, slot, minOff)
		if err != nil {
			return nil, err
		}
		sub := b[off : off+size : off+size]
		switch f.kind {
		case kArray:
			return d.decodeArray(f.elem, sub)
		case kMap:
			return d.decodeMap(f, sub)
		default:
			row := make([]any, len(f.fields))
			if err := d.decodeRow(f.fields, sub, row); err != nil {
				return nil, fmt.Errorf("nested row: %w", err)
			}
			return row, nil
		}
	}
	return nil, fmt.Errorf("%w: kind %d", ErrUnsupported, f.kind)
}

// decodeArray decodes the BinaryArray b.
func (d *decoder) decodeArray(elem *field, b []byte) ([]any, error) {
	if len(b) < 4 {
		return nil, corrupt("array of %d bytes", len(b))
	}
	n32 := int32(binary.LittleEndian.Uint32(b))
	if n32 < 0 {
		return nil, corrupt("array size %d", n32)
	}
	n := int(n32)
	// Each element needs at least one byte, so n is bounded by len(b) before
	// anything is allocated.
	if n > len(b) {
		return nil, corrupt("array of %d elements in %d bytes", n, len(b))
	}
	hdr := arrayHeaderInBytes(n)
	fixed := hdr + n*elem.elemSize
	if fixed > len(b) {
		return nil, corrupt("array of %d elements needs %d fixed bytes, has %d", n, fixed, len(b))
	}
	if err := d.charge(n); err != nil {
		return nil, err
	}
	out := make([]any, n)
	for i := range out {
		if b[4+i>>3]&(1<<(i&7)) != 0 {
			continue
		}
		v, err := d.decodeValue(elem, b, hdr+i*elem.elemSize, fixed)
		if err != nil {
			return nil, fmt.Errorf("element %d: %w", i, err)
		}
		out[i] = v
	}
	return out, nil
}

// decodeMap decodes the BinaryMap b.
func (d *decoder) decodeMap(f *field, b []byte) (schema.Map, error) {
	if len(b) < 4 {
		return schema.Map{}, corrupt("map of %d bytes", len(b))
	}
	k := uint64(binary.LittleEndian.Uint32(b))
	if k > uint64(len(b)-4) {
		return schema.Map{}, corrupt("map key array of %d bytes in %d bytes", k, len(b))
	}
	keys, err := d.decodeArray(f.key, b[4:4+k:4+k])
	if err != nil {
		return schema.Map{}, fmt.Errorf("map keys: %w", err)
	}
	vals, err := d.decodeArray(f.value, b[4+k:])
	if err != nil {
		return schema.Map{}, fmt.Errorf("map values: %w", err)
	}
	if len(keys) != len(vals) {
		return schema.Map{}, corrupt("map has %d keys and %d values", len(keys), len(vals))
	}
	return schema.Map{Keys: keys, Values: vals}, nil
}

// Int64At decodes field pos of a BinaryRow of the given arity as a BIGINT
// without boxing it (Decode's value, as an int64); ok is false when the
// field is null. The caller knows the field is a BIGINT.
func Int64At(data []byte, arity, pos int) (v int64, ok bool, err error) {
	nb := BitSetWidthInBytes(arity)
	if pos < 0 || pos >= arity || len(data) < nb+8*arity {
		return 0, false, corrupt("field %d of a row of arity %d and %d bytes", pos, arity, len(data))
	}
	if data[0] > 3 {
		return 0, false, corrupt("row kind byte %d", data[0])
	}
	bit := pos + HeaderSizeInBits
	if data[bit>>3]&(1<<(bit&7)) != 0 {
		return 0, false, nil
	}
	return int64(binary.LittleEndian.Uint64(data[nb+8*pos:])), true, nil
}
