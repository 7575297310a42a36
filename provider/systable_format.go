package provider

import (
	"fmt"
	"strings"
	"time"

	"github.com/lakesql/lakesql/internal/schema"
)

// Text renderings that Paimon's system tables produce from Java objects.

// sysJavaString renders a value as Java's String.valueOf of Paimon's
// internal object (schema.TextJava).
func sysJavaString(t *schema.DataType, v any) string {
	return string(schema.AppendText(nil, t, v, schema.TextJava))
}

// javaLocalDateTimeString is LocalDateTime.toString of t's UTC fields.
func javaLocalDateTimeString(t time.Time) string {
	return string(schema.AppendJavaLocalDateTime(nil, t))
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
