package binaryrow

import (
	"github.com/lakesql/lakesql/internal/schema"
)

// Format renders a row for tools and error messages, e.g.
// `(10, 'abc', NULL)`: the values in schema.TextDisplay style. types may be
// nil (then the rendering follows the Go value types); when given,
// timestamps show their declared precision.
func Format(types []schema.DataType, row []any) string {
	return string(AppendFormat(nil, types, row))
}

// AppendFormat is Format appending to dst.
func AppendFormat(dst []byte, types []schema.DataType, row []any) []byte {
	dst = append(dst, '(')
	for i, v := range row {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		var t *schema.DataType
		if i < len(types) {
			t = &types[i]
		}
		dst = schema.AppendText(dst, t, v, schema.TextDisplay)
	}
	return append(dst, ')')
}

// FormatValue renders one value as Format does; t may be nil.
func FormatValue(t *schema.DataType, v any) string {
	return string(schema.AppendText(nil, t, v, schema.TextDisplay))
}

func kindName(f *field) string {
	switch f.kind {
	case kBool:
		return "BOOLEAN (want bool)"
	case kTinyInt:
		return "TINYINT (want int8)"
	case kSmallInt:
		return "SMALLINT (want int16)"
	case kInt:
		return "INT (want int32)"
	case kDate:
		return "DATE (want schema.Date)"
	case kTime:
		return "TIME (want schema.Time)"
	case kBigInt:
		return "BIGINT (want int64)"
	case kFloat:
		return "FLOAT (want float32)"
	case kDouble:
		return "DOUBLE (want float64)"
	case kString:
		return "CHAR/VARCHAR (want string)"
	case kBinary:
		return "BINARY/VARBINARY (want []byte)"
	case kDecimalCompact, kDecimalWide:
		return "DECIMAL (want schema.Decimal)"
	case kTimestampCompact, kTimestampWide:
		return "TIMESTAMP (want schema.Timestamp)"
	case kArray:
		return "ARRAY (want []any)"
	case kMap:
		return "MAP/MULTISET (want schema.Map)"
	case kRow:
		return "ROW (want []any)"
	}
	return "unknown type"
}
