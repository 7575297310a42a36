package schema

import (
	"bytes"
	"math"
	"strings"
)

// Compare is a total order over values of type t, used for key ordering and
// statistics pruning: nil (NULL) sorts first; BOOLEAN false < true;
// integers numerically; FLOAT/DOUBLE like Java's Float.compare /
// Double.compare (-0.0 < 0.0, NaN above +Inf, NaN equal to NaN); DECIMAL
// exactly, whatever the scales; strings by UTF-8 bytes; BINARY/VARBINARY
// (and VARIANT, BLOB) lexicographically as unsigned bytes; DATE, TIME by
// value; TIMESTAMP/TIMESTAMP_LTZ by millis then nanos; ARRAY and ROW
// lexicographically element by element (shorter first on a tie); MAP and
// MULTISET by their key list, then their value list. A value of the wrong
// Go type never panics: it sorts by its Go kind, after well-typed values.
func Compare(t *DataType, a, b any) int {
	if a == nil || b == nil {
		switch {
		case a == nil && b == nil:
			return 0
		case a == nil:
			return -1
		}
		return 1
	}
	switch t.Root {
	case TypeBoolean:
		x, ok1 := a.(bool)
		y, ok2 := b.(bool)
		if ok1 && ok2 {
			return cmpBool(x, y)
		}
	case TypeTinyInt:
		x, ok1 := a.(int8)
		y, ok2 := b.(int8)
		if ok1 && ok2 {
			return cmpOrdered(x, y)
		}
	case TypeSmallInt:
		x, ok1 := a.(int16)
		y, ok2 := b.(int16)
		if ok1 && ok2 {
			return cmpOrdered(x, y)
		}
	case TypeInt:
		x, ok1 := a.(int32)
		y, ok2 := b.(int32)
		if ok1 && ok2 {
			return cmpOrdered(x, y)
		}
	case TypeBigInt:
		x, ok1 := a.(int64)
		y, ok2 := b.(int64)
		if ok1 && ok2 {
			return cmpOrdered(x, y)
		}
	case TypeFloat:
		x, ok1 := a.(float32)
		y, ok2 := b.(float32)
		if ok1 && ok2 {
			return JavaFloatCompare(x, y)
		}
	case TypeDouble:
		x, ok1 := a.(float64)
		y, ok2 := b.(float64)
		if ok1 && ok2 {
			return JavaDoubleCompare(x, y)
		}
	case TypeDecimal:
		x, ok1 := a.(Decimal)
		y, ok2 := b.(Decimal)
		if ok1 && ok2 {
			return x.Cmp(y)
		}
	case TypeChar, TypeVarChar:
		x, ok1 := a.(string)
		y, ok2 := b.(string)
		if ok1 && ok2 {
			return strings.Compare(x, y)
		}
	case TypeBinary, TypeVarBinary, TypeVariant, TypeBlob:
		x, ok1 := a.([]byte)
		y, ok2 := b.([]byte)
		if ok1 && ok2 {
			return bytes.Compare(x, y)
		}
	case TypeDate:
		x, ok1 := a.(Date)
		y, ok2 := b.(Date)
		if ok1 && ok2 {
			return cmpOrdered(x, y)
		}
	case TypeTime:
		x, ok1 := a.(Time)
		y, ok2 := b.(Time)
		if ok1 && ok2 {
			return cmpOrdered(x, y)
		}
	case TypeTimestamp, TypeLocalZonedTimestamp:
		x, ok1 := a.(Timestamp)
		y, ok2 := b.(Timestamp)
		if ok1 && ok2 {
			return x.Compare(y)
		}
	case TypeArray:
		x, ok1 := a.([]any)
		y, ok2 := b.([]any)
		if ok1 && ok2 && t.Elem != nil {
			return compareList(x, y, func(int) *DataType { return t.Elem })
		}
	case TypeRow:
		x, ok1 := a.([]any)
		y, ok2 := b.([]any)
		if ok1 && ok2 {
			return compareList(x, y, func(i int) *DataType {
				if i < len(t.Fields) {
					return &t.Fields[i].Type
				}
				return nil
			})
		}
	case TypeMap, TypeMultiset:
		x, ok1 := a.(Map)
		y, ok2 := b.(Map)
		kt, vt := t.Key, t.Value
		if t.Root == TypeMultiset {
			kt, vt = t.Elem, &DataType{Root: TypeInt}
		}
		if ok1 && ok2 && kt != nil && vt != nil {
			if c := compareList(x.Keys, y.Keys, func(int) *DataType { return kt }); c != 0 {
				return c
			}
			return compareList(x.Values, y.Values, func(int) *DataType { return vt })
		}
	}
	return compareMistyped(t, a, b)
}

// Equal reports whether Compare(t, a, b) == 0.
func Equal(t *DataType, a, b any) bool { return Compare(t, a, b) == 0 }

func compareList(x, y []any, elem func(int) *DataType) int {
	n := min(len(x), len(y))
	for i := 0; i < n; i++ {
		et := elem(i)
		var c int
		if et == nil {
			c = compareMistyped(&DataType{}, x[i], y[i])
		} else {
			c = Compare(et, x[i], y[i])
		}
		if c != 0 {
			return c
		}
	}
	return cmpOrdered(len(x), len(y))
}

// compareMistyped orders values whose Go type does not match the Paimon
// type: well-typed first, then by a fixed rank of the Go type; values of
// the same mistyped kind compare equal. It exists so that a bug elsewhere
// shows up as a wrong order, never as a panic.
func compareMistyped(t *DataType, a, b any) int {
	ra, rb := goKindRank(t, a), goKindRank(t, b)
	return cmpOrdered(ra, rb)
}

func goKindRank(t *DataType, v any) int {
	if wellTyped(t, v) {
		return 0
	}
	switch v.(type) {
	case bool:
		return 1
	case int8, int16, int32, int64, int:
		return 2
	case float32, float64:
		return 3
	case string:
		return 4
	case []byte:
		return 5
	}
	return 6
}

func wellTyped(t *DataType, v any) bool {
	switch t.Root {
	case TypeBoolean:
		_, ok := v.(bool)
		return ok
	case TypeTinyInt:
		_, ok := v.(int8)
		return ok
	case TypeSmallInt:
		_, ok := v.(int16)
		return ok
	case TypeInt:
		_, ok := v.(int32)
		return ok
	case TypeBigInt:
		_, ok := v.(int64)
		return ok
	case TypeFloat:
		_, ok := v.(float32)
		return ok
	case TypeDouble:
		_, ok := v.(float64)
		return ok
	case TypeDecimal:
		_, ok := v.(Decimal)
		return ok
	case TypeChar, TypeVarChar:
		_, ok := v.(string)
		return ok
	case TypeBinary, TypeVarBinary, TypeVariant, TypeBlob:
		_, ok := v.([]byte)
		return ok
	case TypeDate:
		_, ok := v.(Date)
		return ok
	case TypeTime:
		_, ok := v.(Time)
		return ok
	case TypeTimestamp, TypeLocalZonedTimestamp:
		_, ok := v.(Timestamp)
		return ok
	case TypeArray, TypeRow:
		_, ok := v.([]any)
		return ok && (t.Root == TypeRow || t.Elem != nil)
	case TypeMap, TypeMultiset:
		_, ok := v.(Map)
		return ok && ((t.Root == TypeMap && t.Key != nil && t.Value != nil) || (t.Root == TypeMultiset && t.Elem != nil))
	}
	return false
}

type ordered interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64
}

func cmpOrdered[T ordered](x, y T) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

func cmpBool(x, y bool) int {
	switch {
	case x == y:
		return 0
	case !x:
		return -1
	}
	return 1
}

// JavaFloatCompare is java.lang.Float.compare.
func JavaFloatCompare(x, y float32) int {
	if x < y {
		return -1
	}
	if x > y {
		return 1
	}
	// Equal, zeros of different sign, or NaN involved: compare the
	// canonical bit patterns like Float.floatToIntBits.
	xb, yb := int32(javaFloatBits(x)), int32(javaFloatBits(y))
	return cmpOrdered(xb, yb)
}

// JavaDoubleCompare is java.lang.Double.compare.
func JavaDoubleCompare(x, y float64) int {
	if x < y {
		return -1
	}
	if x > y {
		return 1
	}
	xb, yb := int64(javaDoubleBits(x)), int64(javaDoubleBits(y))
	return cmpOrdered(xb, yb)
}

func javaFloatBits(f float32) uint32 {
	if f != f {
		return 0x7fc00000
	}
	return math.Float32bits(f)
}

func javaDoubleBits(f float64) uint64 {
	if f != f {
		return 0x7ff8000000000000
	}
	return math.Float64bits(f)
}
