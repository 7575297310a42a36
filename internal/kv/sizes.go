package kv

import "github.com/lakesql/lakesql/internal/schema"

// Approximate heap sizes used to bound the write buffers (write-buffer-size:
// lsmwrite's sort buffer, a transaction's PendingWrites). Java counts the
// bytes of the serialized records in its sort buffer; here a record is a
// KeyValue whose Key and Value are slices of boxed values.
const (
	KVOverhead   = 64 // the KeyValue struct and its slice headers
	SlotOverhead = 16 // one interface value
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
			n += SlotOverhead + valueSize(e)
		}
		return n
	case schema.Map:
		n := int64(48)
		for i := range x.Keys {
			n += 2*SlotOverhead + valueSize(x.Keys[i])
		}
		for _, e := range x.Values {
			n += valueSize(e)
		}
		return n
	}
	return 32
}

// RowSize estimates the heap bytes of a row of boxed values.
func RowSize(row []any) int64 {
	n := int64(len(row)) * SlotOverhead
	for _, v := range row {
		n += valueSize(v)
	}
	return n
}
