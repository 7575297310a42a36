package lsmwrite

import "github.com/lakesql/lakesql/internal/schema"

// Approximate heap sizes used to bound the write buffer (write-buffer-size).
// Java counts the bytes of the serialized records in its sort buffer; here a
// record is a KeyValue whose Key and Value are slices of boxed values.
const (
	kvOverhead   = 64 // the KeyValue struct and its slice headers
	slotOverhead = 16 // one interface value
)

// valueSize estimates the heap bytes of one boxed value beyond its slot.
func valueSize(v any) int64 {
	switch x := v.(type) {
	case nil, bool, int8, int16, int32:
		return 0
	case int64, float32, float64, schema.Date, schema.Time:
		return 8
	case string:
		return 16 + int64(len(x))
	case []byte:
		return 24 + int64(len(x))
	case schema.Timestamp:
		return 16
	case schema.Decimal:
		return 48
	case []any:
		n := int64(24)
		for _, e := range x {
			n += slotOverhead + valueSize(e)
		}
		return n
	case schema.Map:
		n := int64(48)
		for i := range x.Keys {
			n += 2*slotOverhead + valueSize(x.Keys[i])
		}
		for _, e := range x.Values {
			n += valueSize(e)
		}
		return n
	}
	return 32
}

func rowSize(row []any) int64 {
	n := int64(len(row)) * slotOverhead
	for _, v := range row {
		n += valueSize(v)
	}
	return n
}
