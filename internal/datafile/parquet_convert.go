package datafile

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"unsafe"

	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding"
	"github.com/parquet-go/parquet-go/format"

	"github.com/lakesql/lakesql/internal/schema"
)

// convKind says how the physical values of a leaf become values of the Go
// value model.
type convKind uint8

const (
	convBool convKind = iota + 1
	convInt8
	convInt16
	convInt32
	convInt64FromInt32
	convInt64
	convFloat
	convDoubleFromFloat
	convDouble
	convDecimalInt32
	convDecimalInt64
	convDecimalFLBA
	convDecimalBytes
	convStringBytes
	convStringFLBA
	convBinaryBytes
	convBinaryFLBA
	convDate
	convTimeMillis
	convTimeMicros
	convTimeNanos
	convTimestampMillis
	convTimestampMicros
	convTimestampNanos
	convTimestampInt96
)

// leafConv converts the values of one Parquet leaf column.
type leafConv struct {
	kind  convKind
	phys  format.Type
	scale int32
	// name is used in error messages.
	name string
}

// Julian day of 1970-01-01, as used by INT96 timestamps.
const julianEpochDay = 2440588

const (
	millisPerDay   = 86400000
	nanosPerMilli  = 1000000
	microsPerMilli = 1000
)

// timestampFromInt96 decodes an INT96 timestamp (8-byte little-endian nanos
// of day, then a 4-byte little-endian Julian day). It inverts Java Paimon's
// writer (ParquetRowDataWriter.timestampToInt96), which uses truncating
// division, so pre-1970 values carry a negative nanos-of-day: flooring here
// recovers the exact millisecond and nano-of-millisecond that were written.
func timestampFromInt96(v deprecated.Int96) schema.Timestamp {
	nanosOfDay := int64(uint64(v[0]) | uint64(v[1])<<32)
	julianDay := int64(int32(v[2]))
	millis := (julianDay-julianEpochDay)*millisPerDay + schema.FloorDiv(nanosOfDay, nanosPerMilli)
	return schema.Timestamp{Millis: millis, NanoOfMilli: int32(schema.FloorMod(nanosOfDay, nanosPerMilli))}
}

// decimalFromBytes decodes a big-endian two's complement unscaled value.
func decimalFromBytes(b []byte, scale int32) schema.Decimal {
	if len(b) == 0 {
		return schema.Decimal{Scale: scale}
	}
	if len(b) <= 8 {
		var v int64
		if b[0]&0x80 != 0 {
			v = -1
		}
		for _, c := range b {
			v = v<<8 | int64(c)
		}
		return schema.Decimal{Compact: v, Scale: scale}
	}
	// Strip redundant sign bytes; if what is left fits 8 bytes, stay compact.
	i := 0
	for i < len(b)-8 && ((b[i] == 0 && b[i+1]&0x80 == 0) || (b[i] == 0xff && b[i+1]&0x80 != 0)) {
		i++
	}
	if len(b)-i <= 8 {
		return decimalFromBytes(b[i:], scale)
	}
	n := new(big.Int).SetBytes(b)
	if b[0]&0x80 != 0 {
		// Two's complement: subtract 2^(8·len).
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return schema.Decimal{Big: n, Scale: scale}
}

// valueCount is the number of values held by a page's data buffer.
func (c *leafConv) valueCount(v encoding.Values, numValues int) int {
	switch v.Kind() {
	case encoding.Boolean:
		return min(len(v.Boolean())*8, numValues)
	case encoding.Int32:
		return len(v.Int32())
	case encoding.Int64:
		return len(v.Int64())
	case encoding.Int96:
		return len(v.Int96())
	case encoding.Float:
		return len(v.Float())
	case encoding.Double:
		return len(v.Double())
	case encoding.ByteArray:
		_, offs := v.ByteArray()
		return max(len(offs)-1, 0)
	case encoding.FixedLenByteArray:
		data, size := v.FixedLenByteArray()
		if size <= 0 {
			return 0
		}
		return len(data) / size
	}
	return 0
}

// convert decodes values [from, from+len(dst)) of a page data buffer into dst.
// The caller has checked the range against valueCount.
func (c *leafConv) convert(v encoding.Values, from int, dst []any) error {
	n := len(dst)
	if n == 0 {
		return nil
	}
	if v.Kind() != encoding.Kind(c.phys)+1 {
		return fmt.Errorf("%w: column %s: page holds %s values, schema says %s", ErrCorrupt, c.name, v.Kind(), c.phys)
	}
	switch c.kind {
	case convBool:
		bits := v.Boolean()
		for i := range n {
			j := from + i
			dst[i] = bits[j>>3]>>(j&7)&1 != 0 // bools box without allocating
		}
	case convInt8:
		for i, x := range v.Int32()[from : from+n] {
			dst[i] = int8(x) // one-byte values box without allocating
		}
	case convInt16:
		boxSlice(mapSlice(v.Int32()[from:from+n], func(x int32) int16 { return int16(x) }), dst)
	case convInt32:
		boxSlice(mapSlice(v.Int32()[from:from+n], func(x int32) int32 { return x }), dst)
	case convInt64FromInt32:
		boxSlice(mapSlice(v.Int32()[from:from+n], func(x int32) int64 { return int64(x) }), dst)
	case convInt64:
		boxSlice(mapSlice(v.Int64()[from:from+n], func(x int64) int64 { return x }), dst)
	case convFloat:
		boxSlice(mapSlice(v.Float()[from:from+n], func(x float32) float32 { return x }), dst)
	case convDoubleFromFloat:
		boxSlice(mapSlice(v.Float()[from:from+n], func(x float32) float64 { return float64(x) }), dst)
	case convDouble:
		boxSlice(mapSlice(v.Double()[from:from+n], func(x float64) float64 { return x }), dst)
	case convDecimalInt32:
		boxSlice(mapSlice(v.Int32()[from:from+n], func(x int32) schema.Decimal { return schema.Decimal{Compact: int64(x), Scale: c.scale} }), dst)
	case convDecimalInt64:
		boxSlice(mapSlice(v.Int64()[from:from+n], func(x int64) schema.Decimal { return schema.Decimal{Compact: x, Scale: c.scale} }), dst)
	case convDecimalFLBA:
		data, size := v.FixedLenByteArray()
		vals := make([]schema.Decimal, n)
		for i := range n {
			j := (from + i) * size
			vals[i] = decimalFromBytes(data[j:j+size], c.scale)
		}
		boxSlice(vals, dst)
	case convDecimalBytes:
		data, offs := v.ByteArray()
		vals := make([]schema.Decimal, n)
		for i := range n {
			vals[i] = decimalFromBytes(data[offs[from+i]:offs[from+i+1]], c.scale)
		}
		boxSlice(vals, dst)
	case convStringBytes, convBinaryBytes:
		data, offs := v.ByteArray()
		lo, hi := offs[from], offs[from+n]
		if lo > hi || int(hi) > len(data) {
			return fmt.Errorf("%w: column %s: byte array offsets out of range", ErrCorrupt, c.name)
		}
		// One copy for the whole run: page buffers are released and reused.
		arena := make([]byte, hi-lo)
		copy(arena, data[lo:hi])
		var strs []string
		var bins [][]byte
		if c.kind == convStringBytes {
			strs = make([]string, n)
		} else {
			bins = make([][]byte, n)
		}
		for i := range n {
			a, b := offs[from+i]-lo, offs[from+i+1]-lo
			if a > b || int(b) > len(arena) {
				return fmt.Errorf("%w: column %s: byte array offsets out of order", ErrCorrupt, c.name)
			}
			if strs != nil {
				strs[i] = bytesToString(arena[a:b])
			} else {
				bins[i] = arena[a:b:b]
			}
		}
		if strs != nil {
			boxSlice(strs, dst)
		} else {
			boxSlice(bins, dst)
		}
	case convStringFLBA, convBinaryFLBA:
		data, size := v.FixedLenByteArray()
		arena := make([]byte, n*size)
		copy(arena, data[from*size:(from+n)*size])
		for i := range n {
			b := arena[i*size : (i+1)*size : (i+1)*size]
			if c.kind == convStringFLBA {
				dst[i] = bytesToString(b)
			} else {
				dst[i] = b
			}
		}
	case convDate:
		boxSlice(mapSlice(v.Int32()[from:from+n], func(x int32) schema.Date { return schema.Date(x) }), dst)
	case convTimeMillis:
		boxSlice(mapSlice(v.Int32()[from:from+n], func(x int32) schema.Time { return schema.Time(x) }), dst)
	case convTimeMicros:
		boxSlice(mapSlice(v.Int64()[from:from+n], func(x int64) schema.Time { return schema.Time(schema.FloorDiv(x, microsPerMilli)) }), dst)
	case convTimeNanos:
		boxSlice(mapSlice(v.Int64()[from:from+n], func(x int64) schema.Time { return schema.Time(schema.FloorDiv(x, nanosPerMilli)) }), dst)
	case convTimestampMillis:
		boxSlice(mapSlice(v.Int64()[from:from+n], func(x int64) schema.Timestamp { return schema.Timestamp{Millis: x} }), dst)
	case convTimestampMicros:
		boxSlice(mapSlice(v.Int64()[from:from+n], schema.TimestampFromEpochMicros), dst)
	case convTimestampNanos:
		boxSlice(mapSlice(v.Int64()[from:from+n], schema.TimestampFromEpochNanos), dst)
	case convTimestampInt96:
		boxSlice(mapSlice(v.Int96()[from:from+n], timestampFromInt96), dst)
	default:
		return fmt.Errorf("%w: column %s: no converter", ErrCorrupt, c.name)
	}
	return nil
}

// bytesToString makes a string over b without copying. b must never be
// written again; callers pass freshly allocated arenas only.
func bytesToString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// plainStat decodes a PLAIN-encoded statistics value (no length prefix for
// byte arrays) of the leaf's physical type into the value model.
func (c *leafConv) plainStat(b []byte) (any, bool) {
	var v encoding.Values
	switch c.phys {
	case format.Boolean:
		if len(b) != 1 {
			return nil, false
		}
		v = encoding.BooleanValues(b)
	case format.Int32, format.Float:
		if len(b) != 4 {
			return nil, false
		}
		if c.phys == format.Int32 {
			v = encoding.Int32Values([]int32{int32(binary.LittleEndian.Uint32(b))})
		} else {
			v = encoding.FloatValues([]float32{math.Float32frombits(binary.LittleEndian.Uint32(b))})
		}
	case format.Int64, format.Double:
		if len(b) != 8 {
			return nil, false
		}
		if c.phys == format.Int64 {
			v = encoding.Int64Values([]int64{int64(binary.LittleEndian.Uint64(b))})
		} else {
			v = encoding.DoubleValues([]float64{math.Float64frombits(binary.LittleEndian.Uint64(b))})
		}
	case format.ByteArray:
		v = encoding.ByteArrayValues(b, []uint32{0, uint32(len(b))})
	case format.FixedLenByteArray:
		if len(b) == 0 {
			return nil, false
		}
		v = encoding.FixedLenByteArrayValues(b, len(b))
	default:
		return nil, false
	}
	var out [1]any
	if err := c.convert(v, 0, out[:]); err != nil {
		return nil, false
	}
	return out[0], true
}

// decimalBig returns the unscaled value of d as a big.Int.
func decimalBig(d schema.Decimal) *big.Int {
	if d.Big != nil {
		return d.Big
	}
	return big.NewInt(d.Compact)
}

// mapSlice returns a new slice of f applied to each element of src.
func mapSlice[S, T any](src []S, f func(S) T) []T {
	out := make([]T, len(src))
	for i, x := range src {
		out[i] = f(x)
	}
	return out
}
