package binaryrow

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"slices"

	"github.com/lakesql/lakesql/internal/schema"
)

// Java's canonical NaNs; BinaryArrayWriter stores every float/double NaN
// element with these bits (BinaryRowWriter keeps the raw bits).
const (
	canonicalFloatNaN  = 0x7fc00000
	canonicalDoubleNaN = 0x7ff8000000000000
)

// encoder appends BinaryRow/BinaryArray/BinaryMap bytes to buf. Every nested
// structure is written in place at the end of buf (it is the next chunk of its
// parent's var part), so no intermediate buffers are needed.
type encoder struct {
	buf []byte
	tmp *big.Int
}

// extend appends n zero bytes and returns the offset of the first.
func (e *encoder) extend(n int) int {
	old := len(e.buf)
	e.buf = slices.Grow(e.buf, n)[:old+n]
	clear(e.buf[old:])
	return old
}

func (e *encoder) putSlot(slot, base, off, size int) {
	binary.LittleEndian.PutUint64(e.buf[slot:], uint64(off-base)<<32|uint64(uint32(size)))
}

// writeRow appends one BinaryRow (BinaryRowWriter via RowHelper.copyInto).
func (e *encoder) writeRow(fields []field, kind byte, vals []any) error {
	n := len(fields)
	if len(vals) != n {
		return fmt.Errorf("%w: row has %d values, want %d", ErrValue, len(vals), n)
	}
	base := len(e.buf)
	nb := BitSetWidthInBytes(n)
	e.extend(nb + 8*n)
	e.buf[base] = kind
	for i := range fields {
		f := &fields[i]
		slot := base + nb + 8*i
		v := vals[i]
		if v == nil {
			e.buf[base+(i+HeaderSizeInBits)>>3] |= 1 << ((i + HeaderSizeInBits) & 7)
			// Non-compact decimals and timestamps reserve their var-part
			// bytes even when null (AbstractBinaryWriter.writeDecimal /
			// writeTimestamp with a null value).
			switch f.kind {
			case kDecimalWide:
				e.putSlot(slot, base, e.extend(16), 0)
			case kTimestampWide:
				e.putSlot(slot, base, e.extend(8), 0)
			}
			continue
		}
		if err := e.writeValue(f, v, base, slot, false); err != nil {
			return fmt.Errorf("field %d: %w", i, err)
		}
	}
	return nil
}

// writeArray appends one BinaryArray (BinaryArrayWriter via
// InternalArraySerializer.toBinaryArray).
func (e *encoder) writeArray(elem *field, vals []any) error {
	n := len(vals)
	base := len(e.buf)
	hdr := arrayHeaderInBytes(n)
	e.extend(roundToWord(hdr + elem.elemSize*n))
	binary.LittleEndian.PutUint32(e.buf[base:], uint32(n))
	for i, v := range vals {
		if v == nil {
			// setNullAt(pos, type): null bit and a zero slot, no var-part
			// reservation even for non-compact decimals/timestamps.
			e.buf[base+4+i>>3] |= 1 << (i & 7)
			continue
		}
		if err := e.writeValue(elem, v, base, base+hdr+i*elem.elemSize, true); err != nil {
			return fmt.Errorf("element %d: %w", i, err)
		}
	}
	return nil
}

// writeMap appends one BinaryMap: the key array's size as a 4-byte int, the
// key BinaryArray, the value BinaryArray (BinaryMap.valueOf).
func (e *encoder) writeMap(f *field, m schema.Map) error {
	if len(m.Keys) != len(m.Values) {
		return fmt.Errorf("%w: map has %d keys and %d values", ErrValue, len(m.Keys), len(m.Values))
	}
	base := e.extend(4)
	if err := e.writeArray(f.key, m.Keys); err != nil {
		return fmt.Errorf("map keys: %w", err)
	}
	binary.LittleEndian.PutUint32(e.buf[base:], uint32(len(e.buf)-base-4))
	if err := e.writeArray(f.value, m.Values); err != nil {
		return fmt.Errorf("map values: %w", err)
	}
	return nil
}

func typeErr(f *field, v any) error {
	return fmt.Errorf("%w: %T for %s", ErrValue, v, kindName(f))
}

// writeVar stores a string or binary: inline when at most 7 bytes, else as a
// padded var-part chunk.
func writeVar[T string | []byte](e *encoder, slot, base int, b T) {
	n := len(b)
	if n <= MaxInlineSize {
		copy(e.buf[slot:slot+n], b)
		e.buf[slot+7] = 0x80 | byte(n)
		return
	}
	off := e.extend(roundToWord(n))
	copy(e.buf[off:], b)
	e.putSlot(slot, base, off, n)
}

// writeNested appends a nested structure as the next chunk and points slot at
// it.
func (e *encoder) writeNested(f *field, v any, base, slot int) error {
	start := len(e.buf)
	var err error
	switch f.kind {
	case kArray:
		xs, ok := v.([]any)
		if !ok {
			return typeErr(f, v)
		}
		err = e.writeArray(f.elem, xs)
	case kMap:
		m, ok := v.(schema.Map)
		if !ok {
			return typeErr(f, v)
		}
		err = e.writeMap(f, m)
	case kRow:
		xs, ok := v.([]any)
		if !ok {
			return typeErr(f, v)
		}
		err = e.writeRow(f.fields, 0, xs)
	}
	if err != nil {
		return err
	}
	size := len(e.buf) - start
	e.extend(roundToWord(size) - size)
	e.putSlot(slot, base, start, size)
	return nil
}

// writeValue writes non-null v of type f into the slot at slot (8 bytes in a
// row, f.elemSize bytes in an array); var-part offsets are relative to base.
func (e *encoder) writeValue(f *field, v any, base, slot int, inArray bool) error {
	switch f.kind {
	case kBool:
		x, ok := v.(bool)
		if !ok {
			return typeErr(f, v)
		}
		if x {
			e.buf[slot] = 1
		}
	case kTinyInt:
		x, ok := v.(int8)
		if !ok {
			return typeErr(f, v)
		}
		e.buf[slot] = byte(x)
	case kSmallInt:
		x, ok := v.(int16)
		if !ok {
			return typeErr(f, v)
		}
		binary.LittleEndian.PutUint16(e.buf[slot:], uint16(x))
	case kInt:
		x, ok := v.(int32)
		if !ok {
			return typeErr(f, v)
		}
		binary.LittleEndian.PutUint32(e.buf[slot:], uint32(x))
	case kDate:
		x, ok := v.(schema.Date)
		if !ok {
			return typeErr(f, v)
		}
		binary.LittleEndian.PutUint32(e.buf[slot:], uint32(x))
	case kTime:
		x, ok := v.(schema.Time)
		if !ok {
			return typeErr(f, v)
		}
		binary.LittleEndian.PutUint32(e.buf[slot:], uint32(x))
	case kBigInt:
		x, ok := v.(int64)
		if !ok {
			return typeErr(f, v)
		}
		binary.LittleEndian.PutUint64(e.buf[slot:], uint64(x))
	case kFloat:
		x, ok := v.(float32)
		if !ok {
			return typeErr(f, v)
		}
		b := math.Float32bits(x)
		if inArray && x != x {
			b = canonicalFloatNaN
		}
		binary.LittleEndian.PutUint32(e.buf[slot:], b)
	case kDouble:
		x, ok := v.(float64)
		if !ok {
			return typeErr(f, v)
		}
		b := math.Float64bits(x)
		if inArray && x != x {
			b = canonicalDoubleNaN
		}
		binary.LittleEndian.PutUint64(e.buf[slot:], b)
	case kString:
		x, ok := v.(string)
		if !ok {
			return typeErr(f, v)
		}
		writeVar(e, slot, base, x)
	case kBinary:
		x, ok := v.([]byte)
		if !ok {
			return typeErr(f, v)
		}
		writeVar(e, slot, base, x)
	case kDecimalCompact:
		d, ok := v.(schema.Decimal)
		if !ok {
			return typeErr(f, v)
		}
		u, _, err := unscaledAt(d, f.precision, f.scale)
		if err != nil {
			return err
		}
		binary.LittleEndian.PutUint64(e.buf[slot:], uint64(u))
	case kDecimalWide:
		d, ok := v.(schema.Decimal)
		if !ok {
			return typeErr(f, v)
		}
		u, b, err := unscaledAt(d, f.precision, f.scale)
		if err != nil {
			return err
		}
		off := e.extend(16)
		var n int
		if b == nil {
			n = putInt64Bytes(e.buf[off:off+16], u)
		} else {
			if e.tmp == nil {
				e.tmp = new(big.Int)
			}
			n = putBigBytes(e.buf[off:off+16], b, e.tmp)
		}
		e.putSlot(slot, base, off, n)
	case kTimestampCompact, kTimestampWide:
		ts, ok := v.(schema.Timestamp)
		if !ok {
			return typeErr(f, v)
		}
		if ts.NanoOfMilli < 0 || ts.NanoOfMilli > 999_999 {
			return fmt.Errorf("%w: timestamp nano-of-millisecond %d out of range", ErrValue, ts.NanoOfMilli)
		}
		if f.kind == kTimestampCompact {
			binary.LittleEndian.PutUint64(e.buf[slot:], uint64(ts.Millis))
			return nil
		}
		off := e.extend(8)
		binary.LittleEndian.PutUint64(e.buf[off:], uint64(ts.Millis))
		e.putSlot(slot, base, off, int(ts.NanoOfMilli))
	case kArray, kMap, kRow:
		return e.writeNested(f, v, base, slot)
	default:
		return fmt.Errorf("%w: kind %d", ErrUnsupported, f.kind)
	}
	return nil
}

func checkKind(kind int8) error {
	if kind < 0 || kind > 3 {
		return fmt.Errorf("%w: row kind %d", ErrValue, kind)
	}
	return nil
}

// Append appends the BinaryRow of row (RowKind kind, 0 = +I) to dst and
// returns the extended slice. Var-part offsets are relative to len(dst). On
// error dst is returned unchanged in length.
func (c *Codec) Append(dst []byte, kind int8, row []any) ([]byte, error) {
	if err := checkKind(kind); err != nil {
		return dst, err
	}
	e := encoder{buf: dst}
	if err := e.writeRow(c.fields, byte(kind), row); err != nil {
		return dst, err
	}
	return e.buf, nil
}

// Encode returns the BinaryRow of row (RowKind +I) in a new slice.
func (c *Codec) Encode(row []any) ([]byte, error) {
	return c.Append(nil, 0, row)
}

// Encode returns the BinaryRow (RowKind +I) of row with these field types.
// Hot paths should keep a Writer instead.
func Encode(types []schema.DataType, row []any) ([]byte, error) {
	c, err := NewCodec(types)
	if err != nil {
		return nil, err
	}
	return c.Encode(row)
}

// Writer encodes rows of one Codec into a reused buffer, without allocating
// per row once the buffer has grown (BinaryRowWriter with reset). Not safe for
// concurrent use.
type Writer struct {
	codec *Codec
	e     encoder
}

// NewWriter returns a Writer for rows with these field types.
func NewWriter(types []schema.DataType) (*Writer, error) {
	c, err := NewCodec(types)
	if err != nil {
		return nil, err
	}
	return c.NewWriter(), nil
}

// NewWriter returns a Writer for this codec's rows.
func (c *Codec) NewWriter() *Writer { return &Writer{codec: c} }

// Codec returns the writer's codec.
func (w *Writer) Codec() *Codec { return w.codec }

// Encode encodes row (RowKind +I). The result aliases the writer's buffer and
// is valid until the next call on w; copy it to keep it.
func (w *Writer) Encode(row []any) ([]byte, error) { return w.EncodeKind(0, row) }

// EncodeKind encodes row with the given RowKind byte (0 +I, 1 -U, 2 +U,
// 3 -D). The result aliases the writer's buffer.
func (w *Writer) EncodeKind(kind int8, row []any) ([]byte, error) {
	if err := checkKind(kind); err != nil {
		return nil, err
	}
	w.e.buf = w.e.buf[:0]
	if err := w.e.writeRow(w.codec.fields, byte(kind), row); err != nil {
		return nil, err
	}
	return w.e.buf, nil
}

// EncodeSerialized encodes row in the serialized form stored in Avro
// (SerializationUtils.serializeBinaryRow): the 4-byte big-endian arity, then
// the row bytes. The result aliases the writer's buffer.
func (w *Writer) EncodeSerialized(row []any) ([]byte, error) {
	w.e.buf = binary.BigEndian.AppendUint32(w.e.buf[:0], uint32(len(w.codec.fields)))
	if err := w.e.writeRow(w.codec.fields, 0, row); err != nil {
		return nil, err
	}
	return w.e.buf, nil
}
