package binaryrow

import (
	"encoding/hex"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/lakesql/lakesql/internal/schema"
)

// Format renders a row for tools and error messages, e.g.
// `(10, 'abc', NULL)`. types may be nil (then the rendering follows the Go
// value types); when given, timestamps show their declared precision.
// Strings are single-quoted with ' doubled, binaries are X'..', dates
// '2024-01-31', timestamps '2024-01-31 10:11:12.345', decimals exact, arrays
// [..], maps {k: v}, nested rows (..).
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
		dst = appendValue(dst, t, v)
	}
	return append(dst, ')')
}

// FormatValue renders one value as Format does; t may be nil.
func FormatValue(t *schema.DataType, v any) string {
	return string(appendValue(nil, t, v))
}

// FormatDecimal renders a Decimal exactly, e.g. -0.01.
func FormatDecimal(d schema.Decimal) string {
	return string(appendDecimal(nil, d))
}

func appendValue(dst []byte, t *schema.DataType, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(dst, "NULL"...)
	case bool:
		if x {
			return append(dst, "TRUE"...)
		}
		return append(dst, "FALSE"...)
	case int8:
		return strconv.AppendInt(dst, int64(x), 10)
	case int16:
		return strconv.AppendInt(dst, int64(x), 10)
	case int32:
		return strconv.AppendInt(dst, int64(x), 10)
	case int64:
		return strconv.AppendInt(dst, x, 10)
	case float32:
		return strconv.AppendFloat(dst, float64(x), 'g', -1, 32)
	case float64:
		return strconv.AppendFloat(dst, x, 'g', -1, 64)
	case string:
		dst = append(dst, '\'')
		dst = append(dst, strings.ReplaceAll(x, "'", "''")...)
		return append(dst, '\'')
	case []byte:
		dst = append(dst, "X'"...)
		dst = hex.AppendEncode(dst, x)
		return append(dst, '\'')
	case schema.Decimal:
		return appendDecimal(dst, x)
	case schema.Date:
		dst = append(dst, '\'')
		dst = time.Unix(int64(x)*86400, 0).UTC().AppendFormat(dst, "2006-01-02")
		return append(dst, '\'')
	case schema.Time:
		ms := int64(x)
		dst = append(dst, '\'')
		dst = time.UnixMilli(ms).UTC().AppendFormat(dst, "15:04:05")
		if ms%1000 != 0 {
			dst = append(dst, '.')
			dst = appendPadded(dst, ms%1000, 3)
		}
		return append(dst, '\'')
	case schema.Timestamp:
		ts := time.UnixMilli(x.Millis).Add(time.Duration(x.NanoOfMilli)).UTC()
		dst = append(dst, '\'')
		dst = ts.AppendFormat(dst, "2006-01-02 15:04:05")
		nanos := int64(ts.Nanosecond())
		p := -1
		if t != nil && (t.Root == schema.TypeTimestamp || t.Root == schema.TypeLocalZonedTimestamp) {
			p = t.Precision
		}
		switch {
		case p > 0:
			dst = append(dst, '.')
			dst = appendPadded(dst, nanos/pow10[9-p], p)
		case p < 0 && nanos != 0:
			s := strconv.AppendInt(nil, nanos+1e9, 10)[1:]
			dst = append(dst, '.')
			dst = append(dst, strings.TrimRight(string(s), "0")...)
		}
		return append(dst, '\'')
	case []any:
		if t != nil && t.Root == schema.TypeRow {
			var ft []schema.DataType
			for _, f := range t.Fields {
				ft = append(ft, f.Type)
			}
			return AppendFormat(dst, ft, x)
		}
		var et *schema.DataType
		if t != nil {
			et = t.Elem
		}
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendValue(dst, et, e)
		}
		return append(dst, ']')
	case schema.Map:
		var kt, vt *schema.DataType
		if t != nil {
			kt, vt = t.Key, t.Value
			if t.Root == schema.TypeMultiset {
				kt = t.Elem
			}
		}
		dst = append(dst, '{')
		for i := range x.Keys {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendValue(dst, kt, x.Keys[i])
			dst = append(dst, ": "...)
			if i < len(x.Values) {
				dst = appendValue(dst, vt, x.Values[i])
			}
		}
		return append(dst, '}')
	}
	return append(dst, "<?>"...)
}

func appendPadded(dst []byte, v int64, width int) []byte {
	s := strconv.FormatInt(v, 10)
	for i := len(s); i < width; i++ {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}

func appendDecimal(dst []byte, d schema.Decimal) []byte {
	var digits string
	neg := false
	if d.Big != nil {
		digits = new(big.Int).Abs(d.Big).String()
		neg = d.Big.Sign() < 0
	} else {
		digits = strconv.FormatUint(absU64(d.Compact), 10)
		neg = d.Compact < 0
	}
	if neg {
		dst = append(dst, '-')
	}
	s := int(d.Scale)
	switch {
	case s <= 0:
		dst = append(dst, digits...)
		for i := 0; i < -s && digits != "0"; i++ {
			dst = append(dst, '0')
		}
	case len(digits) > s:
		dst = append(dst, digits[:len(digits)-s]...)
		dst = append(dst, '.')
		dst = append(dst, digits[len(digits)-s:]...)
	default:
		dst = append(dst, "0."...)
		for i := len(digits); i < s; i++ {
			dst = append(dst, '0')
		}
		dst = append(dst, digits...)
	}
	return dst
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
