package kv

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/lakesql/lakesql/internal/schema"
)

// AppendKey appends a canonical binary encoding of the fields idx of row
// (schema value model) to dst: two rows get the same bytes exactly when
// those fields hold equal values of the same types, so the result (as a
// string) keys maps by primary key without formatting values. It does not
// allocate beyond growing dst.
func AppendKey(dst []byte, row []any, idx []int) []byte {
	for _, i := range idx {
		dst = appendValue(dst, row[i])
	}
	return dst
}

// Value tags of the key encoding.
const (
	tagNull byte = iota
	tagFalse
	tagTrue
	tagInt
	tagFloat
	tagString
	tagBytes
	tagDecimal
	tagBigDecimal
	tagTimestamp
	tagList
	tagMap
	tagOther
)

func appendValue(dst []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(dst, tagNull)
	case bool:
		if x {
			return append(dst, tagTrue)
		}
		return append(dst, tagFalse)
	case int8:
		return appendInt(dst, int64(x))
	case int16:
		return appendInt(dst, int64(x))
	case int32:
		return appendInt(dst, int64(x))
	case int64:
		return appendInt(dst, x)
	case schema.Date:
		return appendInt(dst, int64(x))
	case schema.Time:
		return appendInt(dst, int64(x))
	case float32:
		return binary.BigEndian.AppendUint64(append(dst, tagFloat), math.Float64bits(float64(x)))
	case float64:
		return binary.BigEndian.AppendUint64(append(dst, tagFloat), math.Float64bits(x))
	case string:
		dst = binary.AppendUvarint(append(dst, tagString), uint64(len(x)))
		return append(dst, x...)
	case []byte:
		dst = binary.AppendUvarint(append(dst, tagBytes), uint64(len(x)))
		return append(dst, x...)
	case schema.Decimal:
		if x.Big == nil || x.Big.IsInt64() {
			n := x.Compact
			if x.Big != nil {
				n = x.Big.Int64()
			}
			dst = binary.AppendVarint(append(dst, tagDecimal), int64(x.Scale))
			return binary.BigEndian.AppendUint64(dst, uint64(n))
		}
		dst = binary.AppendVarint(append(dst, tagBigDecimal), int64(x.Scale))
		dst = append(dst, byte(x.Big.Sign()+1))
		b := x.Big.Bytes()
		dst = binary.AppendUvarint(dst, uint64(len(b)))
		return append(dst, b...)
	case schema.Timestamp:
		dst = binary.BigEndian.AppendUint64(append(dst, tagTimestamp), uint64(x.Millis))
		return binary.BigEndian.AppendUint32(dst, uint32(x.NanoOfMilli))
	case []any:
		dst = binary.AppendUvarint(append(dst, tagList), uint64(len(x)))
		for _, e := range x {
			dst = appendValue(dst, e)
		}
		return dst
	case schema.Map:
		dst = binary.AppendUvarint(append(dst, tagMap), uint64(len(x.Keys)))
		for i := range x.Keys {
			dst = appendValue(dst, x.Keys[i])
			dst = appendValue(dst, x.Values[i])
		}
		return dst
	}
	// Not a value-model type (never produced by lakesql's readers or
	// writers): its type and text.
	return fmt.Appendf(append(dst, tagOther), "%T:%v\x00", v, v)
}

func appendInt(dst []byte, n int64) []byte {
	return binary.BigEndian.AppendUint64(append(dst, tagInt), uint64(n))
}
