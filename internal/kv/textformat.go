package kv

import (
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/lakesql/lakesql/internal/schema"
)

// The text form of KeyValues, used by data-driven tests and debugging:
//
//	+I[1, 'a', NULL] seq=3
//	-D[2, 'it''s', 1.50] seq=7 level=2
//
// The row kind (+I, -U, +U, -D), the value row in brackets, the sequence
// number and, when above 0, the level. Values:
//
//	NULL                      nil
//	true, false               BOOLEAN
//	12, -3                    TINYINT..BIGINT (the Go type comes from the field type)
//	1.5, NaN, Infinity        FLOAT, DOUBLE
//	1.50                      DECIMAL (printed with the value's scale)
//	'text'                    CHAR, VARCHAR (quotes doubled inside)
//	X'0aff'                   BINARY, VARBINARY, VARIANT, BLOB
//	DATE '2024-01-31'         DATE ('2024-01-31' is accepted too)
//	TIME '12:30:00.250'       TIME
//	TIMESTAMP '2024-01-31 12:30:00.123456789'   TIMESTAMP, TIMESTAMP_LTZ
//	[1, 2]                    ARRAY, and ROW (one element per field)
//	{'a' -> 1, 'b' -> NULL}   MAP, MULTISET
//
// Parsing is directed by the field types; the key is taken from the value
// fields at the key indexes.

// FormatKeyValue renders kv as text (the key is not printed: it is part of
// the value row).
func FormatKeyValue(kv KeyValue) string {
	var b strings.Builder
	b.WriteString(kv.Kind.String())
	b.WriteString(FormatRow(kv.Value))
	b.WriteString(" seq=")
	b.WriteString(strconv.FormatInt(int64(kv.Seq), 10))
	if kv.Level > 0 {
		b.WriteString(" level=")
		b.WriteString(strconv.Itoa(kv.Level))
	}
	return b.String()
}

// FormatRow renders a row as [v1, v2, ...].
func FormatRow(row []any) string {
	return string(schema.AppendText(nil, nil, row, schema.TextTyped))
}

// FormatValue renders one value.
func FormatValue(v any) string {
	return string(schema.AppendText(nil, nil, v, schema.TextTyped))
}

// ParseKeyValue parses the text form of a KeyValue whose value fields have
// the given types; the key is the value fields at keyIndexes. A missing seq
// is 0, a missing level 0. Errors wrap ErrCorrupt.
func ParseKeyValue(s string, types []schema.DataType, keyIndexes []int) (KeyValue, error) {
	p := &textParser{s: s}
	kv, err := p.keyValue(types, keyIndexes)
	if err != nil {
		return KeyValue{}, fmt.Errorf("%w: %q: %v", ErrCorrupt, s, err)
	}
	return kv, nil
}

// ParseRow parses [v1, v2, ...] against the given field types.
func ParseRow(s string, types []schema.DataType) ([]any, error) {
	p := &textParser{s: s}
	row, err := p.row(types)
	if err == nil {
		p.skipSpace()
		if p.pos < len(p.s) {
			err = p.errorf("trailing text")
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %v", ErrCorrupt, s, err)
	}
	return row, nil
}

type textParser struct {
	s   string
	pos int
}

func (p *textParser) errorf(format string, args ...any) error {
	return fmt.Errorf("at offset %d: %s", p.pos, fmt.Sprintf(format, args...))
}

func (p *textParser) skipSpace() {
	for p.pos < len(p.s) && (p.s[p.pos] == ' ' || p.s[p.pos] == '\t') {
		p.pos++
	}
}

func (p *textParser) consume(tok string) bool {
	p.skipSpace()
	if strings.HasPrefix(p.s[p.pos:], tok) {
		p.pos += len(tok)
		return true
	}
	return false
}

func (p *textParser) expect(tok string) error {
	if !p.consume(tok) {
		return p.errorf("expected %q", tok)
	}
	return nil
}

func (p *textParser) keyValue(types []schema.DataType, keyIndexes []int) (KeyValue, error) {
	var kv KeyValue
	p.skipSpace()
	if len(p.s)-p.pos < 2 {
		return kv, p.errorf("expected a row kind")
	}
	switch p.s[p.pos : p.pos+2] {
	case "+I":
		kv.Kind = Insert
	case "-U":
		kv.Kind = UpdateBefore
	case "+U":
		kv.Kind = UpdateAfter
	case "-D":
		kv.Kind = Delete
	default:
		return kv, p.errorf("expected a row kind")
	}
	p.pos += 2
	row, err := p.row(types)
	if err != nil {
		return kv, err
	}
	kv.Value = row
	for {
		p.skipSpace()
		if p.pos >= len(p.s) {
			break
		}
		switch {
		case p.consume("seq="):
			n, err := p.integer(64)
			if err != nil {
				return kv, err
			}
			kv.Seq = SeqNum(n)
		case p.consume("level="):
			n, err := p.integer(32)
			if err != nil {
				return kv, err
			}
			kv.Level = int(n)
		default:
			return kv, p.errorf("unexpected text")
		}
	}
	kv.Key = make([]any, len(keyIndexes))
	for i, k := range keyIndexes {
		if k < 0 || k >= len(row) {
			return kv, p.errorf("key index %d out of range", k)
		}
		kv.Key[i] = row[k]
	}
	return kv, nil
}

func (p *textParser) row(types []schema.DataType) ([]any, error) {
	if err := p.expect("["); err != nil {
		return nil, err
	}
	row := make([]any, len(types))
	for i := range types {
		if i > 0 {
			if err := p.expect(","); err != nil {
				return nil, err
			}
		}
		v, err := p.value(&types[i])
		if err != nil {
			return nil, err
		}
		row[i] = v
	}
	if err := p.expect("]"); err != nil {
		return nil, err
	}
	return row, nil
}

// token returns the next bare word (up to a delimiter).
func (p *textParser) token() string {
	p.skipSpace()
	start := p.pos
	for p.pos < len(p.s) && !strings.ContainsRune(" \t,[]{}'", rune(p.s[p.pos])) &&
		!strings.HasPrefix(p.s[p.pos:], "->") {
		p.pos++
	}
	return p.s[start:p.pos]
}

func (p *textParser) integer(bits int) (int64, error) {
	t := p.token()
	n, err := strconv.ParseInt(t, 10, bits)
	if err != nil {
		return 0, p.errorf("bad integer %q", t)
	}
	return n, nil
}

func (p *textParser) quoted() (string, error) {
	if err := p.expect("'"); err != nil {
		return "", err
	}
	var b strings.Builder
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		p.pos++
		if c == '\'' {
			if p.pos < len(p.s) && p.s[p.pos] == '\'' {
				b.WriteByte('\'')
				p.pos++
				continue
			}
			return b.String(), nil
		}
		b.WriteByte(c)
	}
	return "", p.errorf("unterminated string")
}

// prefixedQuoted reads an optional keyword (DATE, TIME, TIMESTAMP, X) then a
// quoted string.
func (p *textParser) prefixedQuoted(keyword string) (string, error) {
	p.skipSpace()
	if strings.HasPrefix(p.s[p.pos:], keyword) {
		p.pos += len(keyword)
	}
	return p.quoted()
}

func (p *textParser) value(t *schema.DataType) (any, error) {
	p.skipSpace()
	if strings.HasPrefix(p.s[p.pos:], "NULL") {
		p.pos += 4
		return nil, nil
	}
	switch t.Root {
	case schema.TypeBoolean:
		switch tok := p.token(); tok {
		case "true":
			return true, nil
		case "false":
			return false, nil
		default:
			return nil, p.errorf("bad boolean %q", tok)
		}
	case schema.TypeTinyInt:
		n, err := p.integer(8)
		return int8(n), err
	case schema.TypeSmallInt:
		n, err := p.integer(16)
		return int16(n), err
	case schema.TypeInt:
		n, err := p.integer(32)
		return int32(n), err
	case schema.TypeBigInt:
		return p.integer(64)
	case schema.TypeFloat, schema.TypeDouble:
		bits := 64
		if t.Root == schema.TypeFloat {
			bits = 32
		}
		tok := p.token()
		var f float64
		var err error
		switch tok {
		case "NaN":
			f = math.NaN()
		case "Infinity":
			f = math.Inf(1)
		case "-Infinity":
			f = math.Inf(-1)
		default:
			f, err = strconv.ParseFloat(tok, bits)
		}
		if err != nil {
			return nil, p.errorf("bad float %q", tok)
		}
		if bits == 32 {
			return float32(f), nil
		}
		return f, nil
	case schema.TypeDecimal:
		tok := p.token()
		d, err := parseDecimal(tok, int32(t.Scale))
		if err != nil {
			return nil, p.errorf("bad decimal %q: %v", tok, err)
		}
		return d, nil
	case schema.TypeChar, schema.TypeVarChar:
		return p.quoted()
	case schema.TypeBinary, schema.TypeVarBinary, schema.TypeVariant, schema.TypeBlob:
		s, err := p.prefixedQuoted("X")
		if err != nil {
			return nil, err
		}
		b, err := hex.DecodeString(s)
		if err != nil {
			return nil, p.errorf("bad hex %q", s)
		}
		return b, nil
	case schema.TypeDate:
		s, err := p.prefixedQuoted("DATE")
		if err != nil {
			return nil, err
		}
		tm, err := time.Parse("2006-01-02", s)
		if err != nil {
			return nil, p.errorf("bad date %q", s)
		}
		return schema.Date(tm.Unix() / 86400), nil
	case schema.TypeTime:
		s, err := p.prefixedQuoted("TIME")
		if err != nil {
			return nil, err
		}
		tm, err := time.Parse("15:04:05.999999999", s)
		if err != nil {
			return nil, p.errorf("bad time %q", s)
		}
		return schema.Time(tm.Hour()*3600000 + tm.Minute()*60000 + tm.Second()*1000 + tm.Nanosecond()/1e6), nil
	case schema.TypeTimestamp, schema.TypeLocalZonedTimestamp:
		s, err := p.prefixedQuoted("TIMESTAMP")
		if err != nil {
			return nil, err
		}
		tm, err := time.Parse("2006-01-02 15:04:05.999999999", s)
		if err != nil {
			return nil, p.errorf("bad timestamp %q", s)
		}
		ns := tm.UnixNano()
		if tm.Year() < 1678 || tm.Year() > 2261 {
			return nil, p.errorf("timestamp %q out of range", s)
		}
		return schema.TimestampFromEpochNanos(ns), nil
	case schema.TypeArray:
		if t.Elem == nil {
			return nil, p.errorf("array type without element type")
		}
		return p.list(func() (any, error) { return p.value(t.Elem) }, -1)
	case schema.TypeRow:
		i := 0
		return p.list(func() (any, error) {
			v, err := p.value(&t.Fields[i].Type)
			i++
			return v, err
		}, len(t.Fields))
	case schema.TypeMap, schema.TypeMultiset:
		kt, vt := t.Key, t.Value
		if t.Root == schema.TypeMultiset {
			kt, vt = t.Elem, &schema.DataType{Root: schema.TypeInt}
		}
		if kt == nil || vt == nil {
			return nil, p.errorf("map type without key or value type")
		}
		return p.mapValue(kt, vt)
	}
	return nil, p.errorf("unsupported type root %d", t.Root)
}

func (p *textParser) list(elem func() (any, error), n int) (any, error) {
	if err := p.expect("["); err != nil {
		return nil, err
	}
	out := []any{}
	if !p.consume("]") {
		for {
			if n >= 0 && len(out) == n {
				return nil, p.errorf("too many row fields")
			}
			v, err := elem()
			if err != nil {
				return nil, err
			}
			out = append(out, v)
			if p.consume("]") {
				break
			}
			if err := p.expect(","); err != nil {
				return nil, err
			}
		}
	}
	if n >= 0 && len(out) != n {
		return nil, p.errorf("row has %d fields, want %d", len(out), n)
	}
	return out, nil
}

func (p *textParser) mapValue(kt, vt *schema.DataType) (any, error) {
	if err := p.expect("{"); err != nil {
		return nil, err
	}
	m := schema.Map{Keys: []any{}, Values: []any{}}
	if p.consume("}") {
		return m, nil
	}
	for {
		k, err := p.value(kt)
		if err != nil {
			return nil, err
		}
		if err := p.expect("->"); err != nil {
			return nil, err
		}
		v, err := p.value(vt)
		if err != nil {
			return nil, err
		}
		m.Keys = append(m.Keys, k)
		m.Values = append(m.Values, v)
		if p.consume("}") {
			return m, nil
		}
		if err := p.expect(","); err != nil {
			return nil, err
		}
	}
}

func parseDecimal(s string, scale int32) (schema.Decimal, error) {
	neg := strings.HasPrefix(s, "-")
	digits := strings.TrimPrefix(s, "-")
	intPart, frac, _ := strings.Cut(digits, ".")
	if intPart == "" && frac == "" {
		return schema.Decimal{}, fmt.Errorf("empty")
	}
	if int32(len(frac)) > scale {
		return schema.Decimal{}, fmt.Errorf("more than %d fraction digits", scale)
	}
	frac += strings.Repeat("0", int(scale)-len(frac))
	u, ok := new(big.Int).SetString(intPart+frac, 10)
	if !ok || strings.ContainsAny(intPart+frac, "+-") {
		return schema.Decimal{}, fmt.Errorf("not a number")
	}
	if neg {
		u.Neg(u)
	}
	return decFromUnscaled(u, scale), nil
}
