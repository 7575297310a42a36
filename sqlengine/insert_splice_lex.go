package sqlengine

import (
	"strconv"

	"github.com/shopspring/decimal"
)

// The INSERT … VALUES scanner of the splice front (insert_splice.go). It
// recognises, in MySQL's default dialect,
//
//	INSERT|REPLACE [IGNORE] [INTO] name[.name] [(name, …)] VALUES (lit, …), …[;]
//
// where a name is a plain or backquoted identifier and every lit one of
//
//	[-]digits                  an integer of at most 18 digits
//	[-]digits.digits           a DECIMAL of at most 65 digits (30 after the point)
//	[-]digits[.digits]e[±]digits  a DOUBLE
//	'text'                     a string without backslashes ('' is a quote)
//	NULL
//
// and turns each literal into the value GMS's planbuilder gives it (its
// Literal's Eval, through UnaryMinus for a negative DECIMAL or DOUBLE):
// ConvertVal's smallest integer type of int8, uint8, int16, uint16, int32,
// uint32, int64; a decimal.Decimal of the literal's digits and scale; a
// float64; a string; nil. Anything else — comments, other literals
// (hex, bit, TRUE, charset introducers, "…" strings, escapes, adjacent
// strings), expressions, DEFAULT, ON DUPLICATE KEY UPDATE, tuples of
// different widths — is not recognised, and the statement goes to GMS
// unchanged. TestSpliceLiteralsEqualGMS holds the values equal to GMS's.

// splicedValues is a recognised INSERT … VALUES.
type splicedValues struct {
	// head is the statement up to and including VALUES; first is the
	// first tuple's text.
	head, first string
	width       int
	values      []any // row after row, width values each
}

// rows is the number of tuples.
func (v *splicedValues) rows() int { return len(v.values) / v.width }

// scanInsertValues recognises q; ok is false when it is not of the shape
// above.
func scanInsertValues(q string) (*splicedValues, bool) {
	s := spliceScanner{q: q}
	s.space()
	w := s.word()
	if !wordIs(w, "INSERT") && !wordIs(w, "REPLACE") {
		return nil, false
	}
	s.space()
	w = s.word()
	if wordIs(w, "IGNORE") {
		s.space()
		w = s.word()
	}
	if wordIs(w, "INTO") {
		s.space()
		w = ""
	}
	// The table name: w when it was read already, else an identifier.
	if w == "" && !s.ident() {
		return nil, false
	}
	if w != "" && (isKeyword(w) || w == "") {
		return nil, false
	}
	s.space()
	if s.peek('.') {
		s.i++
		s.space()
		if !s.ident() {
			return nil, false
		}
		s.space()
	}
	if s.peek('(') {
		s.i++
		for {
			s.space()
			if !s.ident() {
				return nil, false
			}
			s.space()
			if s.peek(')') {
				s.i++
				break
			}
			if !s.peek(',') {
				return nil, false
			}
			s.i++
		}
		s.space()
	}
	if !wordIs(s.word(), "VALUES") {
		return nil, false
	}
	v := &splicedValues{head: q[:s.i]}
	for n := 0; ; n++ {
		s.space()
		start := s.i
		if !s.peek('(') {
			return nil, false
		}
		s.i++
		width := 0
		for {
			s.space()
			val, ok := s.literal()
			if !ok {
				return nil, false
			}
			v.values = append(v.values, val)
			width++
			s.space()
			if s.peek(')') {
				s.i++
				break
			}
			if !s.peek(',') {
				return nil, false
			}
			s.i++
		}
		if n == 0 {
			v.width, v.first = width, q[start:s.i]
		} else if width != v.width {
			return nil, false
		}
		s.space()
		if !s.peek(',') {
			break
		}
		s.i++
	}
	if s.peek(';') {
		s.i++
		s.space()
	}
	if s.i != len(q) {
		return nil, false
	}
	return v, true
}

type spliceScanner struct {
	q string
	i int
}

func (s *spliceScanner) peek(c byte) bool { return s.i < len(s.q) && s.q[s.i] == c }

func (s *spliceScanner) space() {
	for s.i < len(s.q) {
		switch s.q[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// word reads an unquoted word ("" when there is none).
func (s *spliceScanner) word() string {
	start := s.i
	for s.i < len(s.q) && plainWordByte(s.q[s.i], s.i > start) {
		s.i++
	}
	return s.q[start:s.i]
}

// plainWordByte: c continues (or, !notFirst, starts) an unquoted ASCII word.
func plainWordByte(c byte, notFirst bool) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || notFirst && (c >= '0' && c <= '9' || c == '$')
}

// ident reads an identifier: a word that is no keyword of the shape, or a
// backquoted name without doubled backquotes.
func (s *spliceScanner) ident() bool {
	if s.peek('`') {
		end := s.i + 1
		for end < len(s.q) && s.q[end] != '`' {
			end++
		}
		if end >= len(s.q) || end == s.i+1 || end+1 < len(s.q) && s.q[end+1] == '`' {
			return false
		}
		s.i = end + 1
		return true
	}
	w := s.word()
	return w != "" && !isKeyword(w)
}

// isKeyword: w is a word the shape gives a meaning (or one that would
// make GMS read the statement otherwise).
func isKeyword(w string) bool {
	for _, k := range []string{"VALUES", "VALUE", "SELECT", "SET", "INTO", "IGNORE", "PARTITION", "TABLE", "WITH", "LOW_PRIORITY", "HIGH_PRIORITY", "DELAYED", "ON", "ROW", "DEFAULT"} {
		if wordIs(w, k) {
			return true
		}
	}
	return false
}

func wordIs(w, kw string) bool {
	if len(w) != len(kw) {
		return false
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		if c != kw[i] {
			return false
		}
	}
	return true
}

// literal reads one literal and returns GMS's value of it.
func (s *spliceScanner) literal() (any, bool) {
	if s.i >= len(s.q) {
		return nil, false
	}
	switch c := s.q[s.i]; {
	case c == '\'':
		return s.str()
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	case c == 'n' || c == 'N':
		if wordIs(s.word(), "NULL") {
			return nil, true
		}
	}
	return nil, false
}

// str reads a '…' string without backslashes; ” is one quote. A string
// followed by another (which MySQL concatenates) is not taken.
func (s *spliceScanner) str() (any, bool) {
	start := s.i + 1
	i := start
	doubled := false
	for {
		if i >= len(s.q) {
			return nil, false
		}
		switch s.q[i] {
		case '\\':
			return nil, false
		case '\'':
			if i+1 < len(s.q) && s.q[i+1] == '\'' {
				doubled = true
				i += 2
				continue
			}
		default:
			i++
			continue
		}
		break
	}
	text := s.q[start:i]
	s.i = i + 1
	save := s.i
	s.space()
	if s.peek('\'') || s.peek('"') {
		return nil, false
	}
	s.i = save
	if doubled {
		b := make([]byte, 0, len(text))
		for j := 0; j < len(text); j++ {
			b = append(b, text[j])
			if text[j] == '\'' {
				j++ // the second quote of the pair
			}
		}
		text = string(b)
	}
	return text, true
}

// number reads an integer, DECIMAL or DOUBLE literal.
func (s *spliceScanner) number() (any, bool) {
	neg := s.peek('-')
	if neg {
		s.i++
	}
	intStart := s.i
	for s.i < len(s.q) && s.q[s.i] >= '0' && s.q[s.i] <= '9' {
		s.i++
	}
	intDigits := s.q[intStart:s.i]
	if intDigits == "" {
		return nil, false
	}
	frac := ""
	if s.peek('.') {
		s.i++
		fs := s.i
		for s.i < len(s.q) && s.q[s.i] >= '0' && s.q[s.i] <= '9' {
			s.i++
		}
		frac = s.q[fs:s.i]
		if frac == "" {
			return nil, false
		}
	}
	if s.peek('e') || s.peek('E') {
		s.i++
		if s.peek('+') || s.peek('-') {
			s.i++
		}
		es := s.i
		for s.i < len(s.q) && s.q[s.i] >= '0' && s.q[s.i] <= '9' {
			s.i++
		}
		if s.i == es || s.i < len(s.q) && isWordByte(s.q[s.i]) {
			return nil, false
		}
		f, err := strconv.ParseFloat(s.q[intStart:s.i], 64)
		if err != nil {
			return nil, false
		}
		if neg {
			f = -f
		}
		return f, true
	}
	if s.i < len(s.q) && (isWordByte(s.q[s.i]) || s.q[s.i] == '.') {
		return nil, false // 1abc, 1.2.3
	}
	if frac != "" && len(intDigits)+len(frac) > 18 {
		// As GMS: DECIMAL(p, s) of the literal's digits converts its
		// text (decimal.NewFromString) without rounding.
		if len(intDigits)+len(frac) > 65 || len(frac) > 30 {
			return nil, false
		}
		d, err := decimal.NewFromString(s.q[intStart:s.i])
		if err != nil {
			return nil, false
		}
		if neg {
			d = d.Neg()
		}
		return d, true
	}
	if len(intDigits)+len(frac) > 18 {
		return nil, false
	}
	if frac != "" {
		u, _ := strconv.ParseInt(intDigits+frac, 10, 64)
		if neg {
			u = -u
		}
		return decimal.New(u, -int32(len(frac))), true
	}
	u, _ := strconv.ParseInt(intDigits, 10, 64)
	if neg {
		u = -u
		switch {
		case u >= -128:
			return int8(u), true
		case u >= -32768:
			return int16(u), true
		case u >= -1<<31:
			return int32(u), true
		}
		return u, true
	}
	switch {
	case u <= 127:
		return int8(u), true
	case u <= 255:
		return uint8(u), true
	case u <= 32767:
		return int16(u), true
	case u <= 65535:
		return uint16(u), true
	case u <= 1<<31-1:
		return int32(u), true
	case u <= 1<<32-1:
		return uint32(u), true
	}
	return u, true
}
