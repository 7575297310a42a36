package kv

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"strings"

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
//
// Single-column keys of BIGINT, INT and CHAR/VARCHAR get a specialized
// comparator (the write buffer sort and merge-on-read compare keys more than
// anything else); a value of another Go type falls back to schema.Compare.
func NewKeyComparator(types []schema.DataType) Comparator {
	ts := append([]schema.DataType(nil), types...)
	if len(ts) == 1 {
		t := &ts[0]
		switch t.Root {
		case schema.TypeBigInt:
			return singleKeyComparator[int64](t, cmp.Compare[int64])
		case schema.TypeInt:
			return singleKeyComparator[int32](t, cmp.Compare[int32])
		case schema.TypeVarChar, schema.TypeChar:
			return singleKeyComparator[string](t, strings.Compare)
		}
	}
	return func(a, b []any) int {
		for i := range ts {
			if c := schema.Compare(&ts[i], a[i], b[i]); c != 0 {
				return c
			}
		}
		return 0
	}
}

// singleKeyComparator compares one-column keys holding T values.
func singleKeyComparator[T any](t *schema.DataType, compare func(T, T) int) Comparator {
	return func(a, b []any) int {
		x, ok1 := a[0].(T)
		y, ok2 := b[0].(T)
		if ok1 && ok2 {
			return compare(x, y)
		}
		return schema.Compare(t, a[0], b[0]) // NULLs, or a wrong Go type
	}
}

// NewFieldsComparator returns a comparator of value rows that looks only at
// the given field indexes, mirroring Java's UserDefinedSeqComparator: NULL
// sorts first whatever the order, non-null values are compared naturally and
// the result negated when ascending is false.
func NewFieldsComparator(fields []int, types []schema.DataType, ascending bool) (Comparator, error) {
	fs := append([]int(nil), fields...)
	ts := append([]schema.DataType(nil), types...)
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
			c := compareJava(&ts[f], x, y)
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

// compareJava compares two non-null atomic values of type t the way Java's
// generated comparators do (GenerateUtils.generateCompare): schema.Compare,
// except that FLOAT and DOUBLE compare with < and > (so -0.0 == 0.0 and NaN
// equals everything).
func compareJava(t *schema.DataType, x, y any) int {
	switch a := x.(type) {
	case float32:
		if b, ok := y.(float32); ok {
			return ltgt(a, b)
		}
	case float64:
		if b, ok := y.(float64); ok {
			return ltgt(a, b)
		}
	}
	return schema.Compare(t, x, y)
}

func ltgt[T float32 | float64](a, b T) int {
	if a > b {
		return 1
	}
	if a < b {
		return -1
	}
	return 0
}

// typeRank tells whether a value has a Go type of the value model (a wrong
// one, never produced by a correct reader, is an error for min/max).
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
		return schema.JavaFloatCompare(a, b), nil
	case schema.TypeDouble:
		a, ok1 := x.(float64)
		b, ok2 := y.(float64)
		if !ok1 || !ok2 {
			return 0, wrongType(root, x, y)
		}
		return schema.JavaDoubleCompare(a, b), nil
	}
	if typeRank(x) != typeRank(y) || typeRank(x) == 100 {
		return 0, wrongType(root, x, y)
	}
	return schema.Compare(&schema.DataType{Root: root}, x, y), nil
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
		return ok && a.Cmp(b) == 0
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
