package kv

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"math/big"

	"github.com/lakesql/lakesql/internal/schema"
)

// Comparator orders two rows (trimmed primary keys, or value rows when it
// compares sequence fields). It returns <0, 0 or >0.
type Comparator func(a, b []any) int

// NewKeyComparator returns the comparator of trimmed primary keys of the
// given types: field by field in order, NULL first, each field ordered by
// schema.Compare. It matches Java's generated key comparator for every type
// Paimon allows in a primary key, except that schema.Compare is a total order
// on FLOAT/DOUBLE (-0.0 < 0.0, NaN last) where Java's comparison of
// floating-point keys with < and > is not.
func NewKeyComparator(types []schema.DataType) Comparator {
	ts := append([]schema.DataType(nil), types...)
	return func(a, b []any) int {
		for i := range ts {
			if c := schema.Compare(&ts[i], a[i], b[i]); c != 0 {
				return c
			}
		}
		return 0
	}
}

// NewFieldsComparator returns a comparator of value rows that looks only at
// the given field indexes, mirroring Java's UserDefinedSeqComparator: NULL
// sorts first whatever the order, non-null values are compared naturally and
// the result negated when ascending is false.
func NewFieldsComparator(fields []int, types []schema.DataType, ascending bool) (Comparator, error) {
	fs := append([]int(nil), fields...)
	for _, f := range fs {
		if f < 0 || f >= len(types) {
			return nil, fmt.Errorf("%w: sequence field index %d out of range", ErrInvalidOption, f)
		}
		if err := checkComparable(&types[f]); err != nil {
			return nil, fmt.Errorf("sequence field %d: %w", f, err)
		}
	}
	return func(a, b []any) int {
		for _, f := range fs {
			x, y := a[f], b[f]
			switch {
			case x == nil && y == nil:
				continue
			case x == nil:
				return -1
			case y == nil:
				return 1
			}
			c := compareValues(x, y)
			if c != 0 {
				if !ascending {
					return -c
				}
				return c
			}
		}
		return 0
	}, nil
}

func checkComparable(t *schema.DataType) error {
	switch t.Root {
	case schema.TypeBoolean, schema.TypeTinyInt, schema.TypeSmallInt, schema.TypeInt,
		schema.TypeBigInt, schema.TypeFloat, schema.TypeDouble, schema.TypeDecimal,
		schema.TypeChar, schema.TypeVarChar, schema.TypeBinary, schema.TypeVarBinary,
		schema.TypeDate, schema.TypeTime, schema.TypeTimestamp, schema.TypeLocalZonedTimestamp:
		return nil
	}
	return fmt.Errorf("%w: comparison of type root %d", ErrUnsupported, t.Root)
}

// compareValues compares two non-null atomic values the way Java's generated
// comparators do (GenerateUtils.generateCompare): numbers with < and > (so
// -0.0 == 0.0 and NaN equals everything), strings and binaries bytewise
// unsigned, false < true. Values of different Go types (never produced by a
// correct reader) are ordered by a fixed type rank instead of panicking.
func compareValues(x, y any) int {
	switch a := x.(type) {
	case int32:
		if b, ok := y.(int32); ok {
			return cmp.Compare(a, b)
		}
	case int64:
		if b, ok := y.(int64); ok {
			return cmp.Compare(a, b)
		}
	case string:
		if b, ok := y.(string); ok {
			return cmp.Compare(a, b)
		}
	case int8:
		if b, ok := y.(int8); ok {
			return cmp.Compare(a, b)
		}
	case int16:
		if b, ok := y.(int16); ok {
			return cmp.Compare(a, b)
		}
	case float32:
		if b, ok := y.(float32); ok {
			return ltgt(a, b)
		}
	case float64:
		if b, ok := y.(float64); ok {
			return ltgt(a, b)
		}
	case bool:
		if b, ok := y.(bool); ok {
			switch {
			case a == b:
				return 0
			case a:
				return 1
			}
			return -1
		}
	case []byte:
		if b, ok := y.([]byte); ok {
			return bytes.Compare(a, b)
		}
	case schema.Decimal:
		if b, ok := y.(schema.Decimal); ok {
			return compareDecimal(a, b)
		}
	case schema.Date:
		if b, ok := y.(schema.Date); ok {
			return cmp.Compare(a, b)
		}
	case schema.Time:
		if b, ok := y.(schema.Time); ok {
			return cmp.Compare(a, b)
		}
	case schema.Timestamp:
		if b, ok := y.(schema.Timestamp); ok {
			return compareTimestamp(a, b)
		}
	}
	return cmp.Compare(typeRank(x), typeRank(y))
}

func ltgt[T int8 | int16 | int32 | int64 | float32 | float64](a, b T) int {
	if a > b {
		return 1
	}
	if a < b {
		return -1
	}
	return 0
}

func compareTimestamp(a, b schema.Timestamp) int {
	if c := cmp.Compare(a.Millis, b.Millis); c != 0 {
		return c
	}
	return cmp.Compare(a.NanoOfMilli, b.NanoOfMilli)
}

func typeRank(v any) int {
	switch v.(type) {
	case nil:
		return 0
	case bool:
		return 1
	case int8:
		return 2
	case int16:
		return 3
	case int32:
		return 4
	case int64:
		return 5
	case float32:
		return 6
	case float64:
		return 7
	case schema.Decimal:
		return 8
	case string:
		return 9
	case []byte:
		return 10
	case schema.Date:
		return 11
	case schema.Time:
		return 12
	case schema.Timestamp:
		return 13
	}
	return 100
}

// compareForMinMax mirrors InternalRowUtils.compare, used by the max and min
// aggregate functions: floats use Float.compare/Double.compare (-0.0 < 0.0,
// NaN greatest), and BOOLEAN and nested types are incomparable (an error, as
// Java throws IllegalArgumentException at merge time).
func compareForMinMax(root schema.TypeRoot, x, y any) (int, error) {
	switch root {
	case schema.TypeBoolean, schema.TypeArray, schema.TypeMap, schema.TypeMultiset,
		schema.TypeRow, schema.TypeVariant, schema.TypeBlob:
		return 0, fmt.Errorf("%w: incomparable type %s", ErrArithmetic, typeRootName(root))
	case schema.TypeFloat:
		a, ok1 := x.(float32)
		b, ok2 := y.(float32)
		if !ok1 || !ok2 {
			return 0, wrongType(root, x, y)
		}
		return javaFloatCompare(float64(a), float64(b), math.Float32bits(a) == math.Float32bits(b)), nil
	case schema.TypeDouble:
		a, ok1 := x.(float64)
		b, ok2 := y.(float64)
		if !ok1 || !ok2 {
			return 0, wrongType(root, x, y)
		}
		return javaFloatCompare(a, b, math.Float64bits(a) == math.Float64bits(b)), nil
	}
	if typeRank(x) != typeRank(y) || typeRank(x) == 100 {
		return 0, wrongType(root, x, y)
	}
	return compareValues(x, y), nil
}

// javaFloatCompare mirrors Double.compare.
func javaFloatCompare(a, b float64, sameBits bool) int {
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && bn, sameBits:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	// a == b numerically but different bits: -0.0 vs 0.0.
	if math.Signbit(a) {
		return -1
	}
	return 1
}

func wrongType(root schema.TypeRoot, vals ...any) error {
	return fmt.Errorf("%w: value of Go type %T for type %s", ErrCorrupt, firstNonMatching(vals), typeRootName(root))
}

func firstNonMatching(vals []any) any {
	if len(vals) > 0 {
		return vals[len(vals)-1]
	}
	return nil
}

// compareDecimal compares two decimals numerically (Decimal.compareTo).
func compareDecimal(a, b schema.Decimal) int {
	if a.Big == nil && b.Big == nil && a.Scale == b.Scale {
		return cmp.Compare(a.Compact, b.Compact)
	}
	x, y := decUnscaled(a), decUnscaled(b)
	switch {
	case a.Scale < b.Scale:
		x = new(big.Int).Mul(x, pow10(int(b.Scale-a.Scale)))
	case a.Scale > b.Scale:
		y = new(big.Int).Mul(y, pow10(int(a.Scale-b.Scale)))
	}
	return x.Cmp(y)
}

// valuesEqual is Java's equals on Paimon's internal data objects, used by
// collect (distinct, retract) and merge_map: numeric equality for decimals,
// bit equality for floats (Float.equals), bytewise for binaries, element-wise
// for arrays, rows and maps.
func valuesEqual(x, y any) bool {
	switch a := x.(type) {
	case nil:
		return y == nil
	case float32:
		b, ok := y.(float32)
		return ok && floatBits32(a) == floatBits32(b)
	case float64:
		b, ok := y.(float64)
		return ok && floatBits64(a) == floatBits64(b)
	case []byte:
		b, ok := y.([]byte)
		return ok && bytes.Equal(a, b)
	case schema.Decimal:
		b, ok := y.(schema.Decimal)
		return ok && compareDecimal(a, b) == 0
	case []any:
		b, ok := y.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !valuesEqual(a[i], b[i]) {
				return false
			}
		}
		return true
	case schema.Map:
		b, ok := y.(schema.Map)
		if !ok || len(a.Keys) != len(b.Keys) || len(a.Values) != len(b.Values) {
			return false
		}
		for i := range a.Keys {
			if !valuesEqual(a.Keys[i], b.Keys[i]) {
				return false
			}
		}
		for i := range a.Values {
			if !valuesEqual(a.Values[i], b.Values[i]) {
				return false
			}
		}
		return true
	case bool, int8, int16, int32, int64, string, schema.Date, schema.Time, schema.Timestamp:
		return x == y
	}
	return false
}

// floatBits32 mirrors Float.floatToIntBits: every NaN maps to one pattern.
func floatBits32(f float32) uint32 {
	if f != f {
		return 0x7fc00000
	}
	return math.Float32bits(f)
}

func floatBits64(f float64) uint64 {
	if math.IsNaN(f) {
		return 0x7ff8000000000000
	}
	return math.Float64bits(f)
}

func typeRootName(r schema.TypeRoot) string {
	names := [...]string{"", "BOOLEAN", "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "FLOAT", "DOUBLE",
		"DECIMAL", "CHAR", "VARCHAR", "BINARY", "VARBINARY", "DATE", "TIME_WITHOUT_TIME_ZONE",
		"TIMESTAMP_WITHOUT_TIME_ZONE", "TIMESTAMP_WITH_LOCAL_TIME_ZONE", "ARRAY", "MAP", "MULTISET",
		"ROW", "VARIANT", "BLOB"}
	if int(r) < len(names) && r != 0 {
		return names[r]
	}
	return fmt.Sprintf("TypeRoot(%d)", r)
}
