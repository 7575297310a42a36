package provider

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/schema"
)

// Text renderings that Paimon's system tables produce from Java objects.

// javaString renders a value as Java's String.valueOf renders the internal
// object Paimon holds for it (InternalRowUtils.get): BinaryString as its
// text, numbers as Java prints them, DATE as epoch days and TIME as
// milliseconds of the day (Java keeps both as Integer), TIMESTAMP as
// LocalDateTime.toString ("2024-01-31T10:11:12.345"), DECIMAL as a plain
// string, NULL as "null". Java prints a byte[] as an identity hash
// ("[B@1a2b3c"), which cannot be reproduced; binaries are shown as X'..'.
func sysJavaString(t *schema.DataType, v any) string {
	if v == nil {
		return "null"
	}
	switch x := v.(type) {
	case bool:
		return strconv.FormatBool(x)
	case int8:
		return strconv.FormatInt(int64(x), 10)
	case int16:
		return strconv.FormatInt(int64(x), 10)
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case int64:
		return strconv.FormatInt(x, 10)
	case float32:
		return schema.JavaFloatString(x)
	case float64:
		return schema.JavaDoubleString(x)
	case string:
		return x
	case schema.Decimal:
		return binaryrow.FormatDecimal(x)
	case schema.Date:
		return strconv.FormatInt(int64(x), 10)
	case schema.Time:
		return strconv.FormatInt(int64(x), 10)
	case schema.Timestamp:
		return javaLocalDateTimeString(x.ToTime())
	}
	return binaryrow.FormatValue(t, v)
}

// javaLocalDateTimeString formats t (its UTC fields) as
// java.time.LocalDateTime.toString does: seconds only when not zero, the
// fraction in groups of 3, 6 or 9 digits.
func javaLocalDateTimeString(t time.Time) string {
	t = t.UTC()
	var b strings.Builder
	y := t.Year()
	switch {
	case y > 9999:
		fmt.Fprintf(&b, "+%d", y)
	case y < 0:
		fmt.Fprintf(&b, "-%04d", -y)
	default:
		fmt.Fprintf(&b, "%04d", y)
	}
	fmt.Fprintf(&b, "-%02d-%02dT%02d:%02d", int(t.Month()), t.Day(), t.Hour(), t.Minute())
	sec, nano := t.Second(), t.Nanosecond()
	if sec > 0 || nano > 0 {
		fmt.Fprintf(&b, ":%02d", sec)
		switch {
		case nano == 0:
		case nano%1_000_000 == 0:
			fmt.Fprintf(&b, ".%03d", nano/1_000_000)
		case nano%1000 == 0:
			fmt.Fprintf(&b, ".%06d", nano/1000)
		default:
			fmt.Fprintf(&b, ".%09d", nano)
		}
	}
	return b.String()
}

var sysStringType = schema.StringType()

// castToString is Paimon's CAST(v AS STRING) (CastExecutors.resolveToString).
func sysCastToString(t *schema.DataType, v any) (string, error) {
	if s, ok := v.(string); ok {
		return s, nil
	}
	out, err := schema.CastValue(v, t, &sysStringType)
	if err != nil {
		return "", err
	}
	s, ok := out.(string)
	if !ok {
		return "", fmt.Errorf("provider: cast of %T to STRING gave %T", v, out)
	}
	return s, nil
}

// partitionRowString renders a partition as Paimon's ROW → STRING cast
// (RowToStringCastRule): "{v1, v2}", NULL as "null", "{}" when unpartitioned.
func partitionRowString(fields []schema.DataField, vals []any) (string, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, v := range vals {
		if i > 0 {
			b.WriteString(", ")
		}
		if v == nil {
			b.WriteString("null")
			continue
		}
		s, err := sysCastToString(&fields[i].Type, v)
		if err != nil {
			return "", err
		}
		b.WriteString(s)
	}
	b.WriteByte('}')
	return b.String(), nil
}

// partitionSpecString renders a partition as $partitions does:
// "k1=v1/k2=v2", NULL as the default partition name.
func partitionSpecString(fields []schema.DataField, vals []any, defaultName string) (string, error) {
	var b strings.Builder
	for i, v := range vals {
		if i > 0 {
			b.WriteByte('/')
		}
		b.WriteString(fields[i].Name)
		b.WriteByte('=')
		if v == nil {
			b.WriteString(defaultName)
			continue
		}
		s, err := sysCastToString(&fields[i].Type, v)
		if err != nil {
			return "", err
		}
		b.WriteString(s)
	}
	return b.String(), nil
}

func sysFieldTypes(fs []schema.DataField) []schema.DataType {
	out := make([]schema.DataType, len(fs))
	for i := range fs {
		out[i] = fs[i].Type
	}
	return out
}
