package schema

import (
	"fmt"
	"strconv"
	"strings"
)

// PartitionPath is the folder of a partition, relative to the table root,
// with a trailing '/' ("" for an unpartitioned table). It mirrors Java's
// PartitionPathUtils.generatePartitionPath with InternalRowPartitionComputer:
// a NULL or blank value becomes the default partition name; with legacy names
// (the default) a value is the Java toString of its internal form (DATE as
// epoch days), otherwise its SQL string cast.
func PartitionPath(fields []DataField, values []any, defaultName string, legacy bool) (string, error) {
	if len(fields) == 0 {
		return "", nil
	}
	var b strings.Builder
	for i, f := range fields {
		s, err := PartitionValueString(&f.Type, values[i], defaultName, legacy)
		if err != nil {
			return "", fmt.Errorf("partition %s: %w", f.Name, err)
		}
		b.WriteString(escapePathName(f.Name))
		b.WriteByte('=')
		b.WriteString(escapePathName(s))
		b.WriteByte('/')
	}
	return b.String(), nil
}

// PartitionValueString is the unescaped text of one partition value in a
// partition path.
func PartitionValueString(t *DataType, v any, defaultName string, legacy bool) (string, error) {
	if v == nil {
		return defaultName, nil
	}
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case Date:
		if legacy {
			s = strconv.Itoa(int(x))
		} else {
			s = x.String()
		}
	case Timestamp:
		s = x.String()
	case Decimal:
		s = x.String()
	case float32:
		s = JavaFloatString(x)
	case float64:
		s = JavaDoubleString(x)
	case []byte:
		s = string(x)
	default:
		s = fmt.Sprint(x)
	}
	if strings.TrimSpace(s) == "" {
		return defaultName, nil
	}
	return s, nil
}

// escapePathName escapes the characters Java's PartitionPathUtils escapes.
func escapePathName(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if needsEscape(c) {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

func needsEscape(c byte) bool {
	if c >= 0x01 && c <= 0x1F || c == 0x7F {
		return true
	}
	switch c {
	case '"', '#', '%', '\'', '*', '/', ':', '=', '?', '\\', '{', '}', '[', ']', '^':
		return true
	}
	return false
}

// ParsePartitionSpecValue converts the text of a partition spec value (as a
// user writes it, e.g. in a partition filter) to a typed value: the default
// partition name means NULL.
func ParsePartitionSpecValue(t *DataType, s, defaultName string) (any, error) {
	if s == defaultName {
		return nil, nil
	}
	str := StringType()
	return CastValue(s, &str, t)
}
