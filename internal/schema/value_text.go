package schema

import (
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// TextStyle selects one of the two SQL-literal-like renderings of values
// that lakesql prints (AppendText); both quote strings with ' doubled,
// render binaries as X'..' and decimals exactly.
type TextStyle uint8

const (
	// TextDisplay is for tools and error messages (lakesql inspect,
	// binaryrow.Format): TRUE/FALSE, dates and times as quoted strings,
	// timestamps with the precision of their type, ROW as (..), MAP as
	// {k: v}.
	TextDisplay TextStyle = iota
	// TextTyped is the round-trip text of data-driven tests (kv's text
	// format, parsed back by kv.ParseRow): true/false, NaN/Infinity, DATE
	// '..', TIME '..', TIMESTAMP '..' (milliseconds, plus the nanoseconds
	// when there are any), ROW as [..], MAP as {k -> v}.
	TextTyped
	// TextJava is Java's String.valueOf of the internal object Paimon holds
	// for the value (InternalRowUtils.get), as Paimon's system tables print
	// it: BinaryString as its text, numbers as Java prints them, DATE as
	// epoch days and TIME as milliseconds of the day (Java keeps both as
	// Integer), TIMESTAMP as LocalDateTime.toString
	// ("2024-01-31T10:11:12.345"), DECIMAL as a plain string, NULL as
	// "null". Java prints a byte[] as an identity hash ("[B@1a2b3c"), which
	// cannot be reproduced: binaries and nested values are shown as in
	// TextDisplay.
	TextJava
)

// AppendText appends the rendering of v (schema value model) in style to
// dst. t may be nil (the rendering then follows the Go value types).
func AppendText(dst []byte, t *DataType, v any, style TextStyle) []byte {
	if style == TextJava {
		return appendJava(dst, t, v)
	}
	switch x := v.(type) {
	case nil:
		return append(dst, "NULL"...)
	case bool:
		if style == TextTyped {
			return strconv.AppendBool(dst, x)
		}
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
		return appendFloat(dst, float64(x), 32, style)
	case float64:
		return appendFloat(dst, x, 64, style)
	case string:
		dst = append(dst, '\'')
		dst = append(dst, strings.ReplaceAll(x, "'", "''")...)
		return append(dst, '\'')
	case []byte:
		dst = append(dst, "X'"...)
		dst = hex.AppendEncode(dst, x)
		return append(dst, '\'')
	case Decimal:
		return x.Append(dst)
	case Date:
		if style == TextTyped {
			dst = append(dst, "DATE "...)
		}
		dst = append(dst, '\'')
		dst = time.Unix(int64(x)*86400, 0).UTC().AppendFormat(dst, "2006-01-02")
		return append(dst, '\'')
	case Time:
		if style == TextTyped {
			dst = append(dst, "TIME "...)
		}
		ms := int64(x)
		dst = append(dst, '\'')
		dst = time.UnixMilli(ms).UTC().AppendFormat(dst, "15:04:05")
		if ms%1000 != 0 {
			dst = append(dst, '.')
			dst = appendPad(dst, ms%1000, 3)
		}
		return append(dst, '\'')
	case Timestamp:
		return appendTimestamp(dst, t, x, style)
	case []any:
		if style == TextDisplay && t != nil && t.Root == TypeRow {
			dst = append(dst, '(')
			for i, e := range x {
				if i > 0 {
					dst = append(dst, ", "...)
				}
				var ft *DataType
				if i < len(t.Fields) {
					ft = &t.Fields[i].Type
				}
				dst = AppendText(dst, ft, e, style)
			}
			return append(dst, ')')
		}
		var et *DataType
		if t != nil {
			et = t.Elem
		}
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = AppendText(dst, et, e, style)
		}
		return append(dst, ']')
	case Map:
		var kt, vt *DataType
		if t != nil {
			kt, vt = t.Key, t.Value
			if t.Root == TypeMultiset {
				kt = t.Elem
			}
		}
		sep := ": "
		if style == TextTyped {
			sep = " -> "
		}
		dst = append(dst, '{')
		for i := range x.Keys {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = AppendText(dst, kt, x.Keys[i], style)
			dst = append(dst, sep...)
			if i < len(x.Values) {
				dst = AppendText(dst, vt, x.Values[i], style)
			}
		}
		return append(dst, '}')
	}
	if style == TextTyped {
		return fmt.Appendf(dst, "?%T(%v)", v, v)
	}
	return append(dst, "<?>"...)
}

func appendFloat(dst []byte, f float64, bits int, style TextStyle) []byte {
	if style == TextTyped {
		switch {
		case math.IsNaN(f):
			return append(dst, "NaN"...)
		case math.IsInf(f, 1):
			return append(dst, "Infinity"...)
		case math.IsInf(f, -1):
			return append(dst, "-Infinity"...)
		}
	}
	return strconv.AppendFloat(dst, f, 'g', -1, bits)
}

func appendTimestamp(dst []byte, t *DataType, x Timestamp, style TextStyle) []byte {
	if style == TextTyped {
		dst = append(dst, "TIMESTAMP '"...)
		dst = time.UnixMilli(x.Millis).UTC().AppendFormat(dst, "2006-01-02 15:04:05")
		ms := (x.Millis%1000 + 1000) % 1000
		switch {
		case x.NanoOfMilli != 0:
			dst = append(dst, '.')
			dst = appendPad(dst, ms, 3)
			dst = appendPad(dst, int64(x.NanoOfMilli), 6)
		case ms != 0:
			dst = append(dst, '.')
			dst = appendPad(dst, ms, 3)
		}
		return append(dst, '\'')
	}
	ts := time.UnixMilli(x.Millis).Add(time.Duration(x.NanoOfMilli)).UTC()
	dst = append(dst, '\'')
	dst = ts.AppendFormat(dst, "2006-01-02 15:04:05")
	nanos := int64(ts.Nanosecond())
	p := -1
	if t != nil && (t.Root == TypeTimestamp || t.Root == TypeLocalZonedTimestamp) {
		p = t.Precision
	}
	switch {
	case p > 0:
		dst = append(dst, '.')
		dst = appendPad(dst, nanos/Pow10[9-p], p)
	case p < 0 && nanos != 0:
		s := strconv.AppendInt(nil, nanos+1e9, 10)[1:]
		dst = append(dst, '.')
		dst = append(dst, strings.TrimRight(string(s), "0")...)
	}
	return append(dst, '\'')
}

// Append appends the plain decimal text of d (String) to dst.
func (d Decimal) Append(dst []byte) []byte {
	var digits string
	neg := false
	if d.Big == nil {
		if d.Compact < 0 {
			neg = true
			digits = strconv.FormatUint(uint64(-(d.Compact+1))+1, 10)
		} else {
			digits = strconv.FormatInt(d.Compact, 10)
		}
	} else {
		neg = d.Big.Sign() < 0
		digits = new(big.Int).Abs(d.Big).String()
	}
	if neg {
		dst = append(dst, '-')
	}
	scale := int(d.Scale)
	switch {
	case scale <= 0:
		dst = append(dst, digits...)
		if digits != "0" {
			for range -scale {
				dst = append(dst, '0')
			}
		}
	case len(digits) > scale:
		dst = append(dst, digits[:len(digits)-scale]...)
		dst = append(dst, '.')
		dst = append(dst, digits[len(digits)-scale:]...)
	default:
		dst = append(dst, "0."...)
		for range scale - len(digits) {
			dst = append(dst, '0')
		}
		dst = append(dst, digits...)
	}
	return dst
}

func appendJava(dst []byte, t *DataType, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...)
	case bool:
		return strconv.AppendBool(dst, x)
	case float32:
		return append(dst, JavaFloatString(x)...)
	case float64:
		return append(dst, JavaDoubleString(x)...)
	case string:
		return append(dst, x...)
	case Date:
		return strconv.AppendInt(dst, int64(x), 10)
	case Time:
		return strconv.AppendInt(dst, int64(x), 10)
	case Timestamp:
		return AppendJavaLocalDateTime(dst, x.ToTime())
	}
	return AppendText(dst, t, v, TextDisplay)
}

// AppendJavaLocalDateTime appends t (its UTC fields) as
// java.time.LocalDateTime.toString formats it: LocalDate, 'T', LocalTime
// (seconds only when not zero, the fraction in groups of 3, 6 or 9 digits).
func AppendJavaLocalDateTime(dst []byte, t time.Time) []byte {
	t = t.UTC()
	dst = appendJavaDate(dst, t)
	dst = append(dst, 'T')
	return appendJavaLocalTime(dst, t.Hour(), t.Minute(), t.Second(), t.Nanosecond())
}
