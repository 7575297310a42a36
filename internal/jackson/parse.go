package jackson

import (
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// Mode says how Parse treats input that is not what Paimon writes.
type Mode uint8

const (
	// Strict refuses a key repeated in one object and invalid UTF-8 in a
	// string. Schema files are read so: every field of one shapes the table.
	Strict Mode = iota
	// Lenient reads a repeated key as Jackson's ObjectMapper does into a
	// map or a bean: the key keeps its first position and takes its last
	// value. Invalid UTF-8 in a string reads as U+FFFD per bad byte (as Go's
	// encoding/json reads it; Jackson itself refuses it). Snapshots, tags
	// and consumers are read so.
	Lenient
)

// MaxDepth bounds the nesting of arrays and objects, so that hostile input
// cannot exhaust the stack.
const MaxDepth = 256

// indexAfter is the member count above which an object being parsed looks
// repeated keys up in a map instead of scanning its members.
const indexAfter = 16

type parser struct {
	data  []byte
	pos   int
	depth int
	mode  Mode
}

// Parse parses exactly one JSON document (RFC 8259, surrounded by optional
// white space). Errors are plain, naming the byte offset; callers wrap them
// in their package's ErrCorrupt.
func Parse(data []byte, mode Mode) (Node, error) {
	p := &parser{data: data, mode: mode}
	n, err := p.value()
	if err != nil {
		return Node{}, err
	}
	p.ws()
	if p.pos != len(p.data) {
		return Node{}, p.errf("trailing data after the JSON value")
	}
	return n, nil
}

func (p *parser) ws() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) errf(format string, args ...any) error {
	return fmt.Errorf("json offset %d: %s", p.pos, fmt.Sprintf(format, args...))
}

func (p *parser) value() (Node, error) {
	p.ws()
	if p.pos >= len(p.data) {
		return Node{}, p.errf("unexpected end of input")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		s, err := p.string()
		if err != nil {
			return Node{}, err
		}
		return Node{Kind: String, Text: s}, nil
	case c == 't':
		return p.literal("true", Node{Kind: Bool, Bool: true})
	case c == 'f':
		return p.literal("false", Node{Kind: Bool})
	case c == 'n':
		return p.literal("null", Node{Kind: Null})
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		return Node{}, p.errf("unexpected character %q", c)
	}
}

func (p *parser) literal(word string, n Node) (Node, error) {
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return Node{}, p.errf("invalid literal")
	}
	p.pos += len(word)
	return n, nil
}

// number reads -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? and keeps its
// text. Leading zeros are refused, as Jackson does by default.
func (p *parser) number() (Node, error) {
	start := p.pos
	if p.data[p.pos] == '-' {
		p.pos++
	}
	digits := func() int {
		s := p.pos
		for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			p.pos++
		}
		return p.pos - s
	}
	intStart := p.pos
	switch n := digits(); {
	case n == 0:
		return Node{}, p.errf("invalid number")
	case n > 1 && p.data[intStart] == '0':
		return Node{}, p.errf("number with a leading zero")
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return Node{}, p.errf("invalid number")
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return Node{}, p.errf("invalid number")
		}
	}
	return Node{Kind: Number, Text: string(p.data[start:p.pos])}, nil
}

// string reads a string literal at p.pos (its opening quote).
func (p *parser) string() (string, error) {
	p.pos++
	start := p.pos
	ascii := true
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		if c == '"' {
			raw := p.data[start:p.pos]
			p.pos++
			if ascii {
				return string(raw), nil
			}
			return p.checkUTF8(raw, start)
		}
		if c == '\\' || c < 0x20 {
			break
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
		p.pos++
	}
	buf := append([]byte(nil), p.data[start:p.pos]...)
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return p.checkUTF8(buf, start)
		case c < 0x20:
			return "", p.errf("control character in string")
		case c == '\\':
			p.pos++
			if p.pos >= len(p.data) {
				return "", p.errf("unterminated escape")
			}
			e := p.data[p.pos]
			p.pos++
			switch e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r, ok := hex4(p.data[p.pos:])
				if !ok {
					return "", p.errf("invalid \\u escape")
				}
				p.pos += 4
				if utf16.IsSurrogate(r) {
					// A pair is read as one character; a lone surrogate
					// reads as U+FFFD and what follows it is read anew.
					hi := r
					r = utf8.RuneError
					if rest := p.data[p.pos:]; len(rest) >= 6 && rest[0] == '\\' && rest[1] == 'u' {
						if r2, ok := hex4(rest[2:]); ok {
							if d := utf16.DecodeRune(hi, r2); d != utf8.RuneError {
								r = d
								p.pos += 6
							}
						}
					}
				}
				buf = utf8.AppendRune(buf, r)
			default:
				return "", p.errf("invalid escape \\%c", e)
			}
		default:
			buf = append(buf, c)
			p.pos++
		}
	}
	return "", p.errf("unterminated string")
}

// checkUTF8 returns b as a string: refused when not valid UTF-8 in Strict
// mode, each bad byte replaced by U+FFFD in Lenient mode.
func (p *parser) checkUTF8(b []byte, start int) (string, error) {
	if utf8.Valid(b) {
		return string(b), nil
	}
	if p.mode == Strict {
		return "", fmt.Errorf("json offset %d: invalid UTF-8 in string", start)
	}
	out := make([]byte, 0, len(b)+8)
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			out = utf8.AppendRune(out, utf8.RuneError)
		} else {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return string(out), nil
}

// hex4 reads four hex digits.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// open steps into an array or object at p.pos (its opening bracket) and
// reports whether closer follows at once (an empty container). The caller
// leaves it with p.depth--.
func (p *parser) open(closer byte) (empty bool, err error) {
	if p.depth++; p.depth > MaxDepth {
		return false, p.errf("nesting deeper than %d", MaxDepth)
	}
	p.pos++
	p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == closer {
		p.pos++
		return true, nil
	}
	return false, nil
}

func (p *parser) array() (Node, error) {
	defer func() { p.depth-- }()
	n := Node{Kind: Array}
	if empty, err := p.open(']'); empty || err != nil {
		return n, err
	}
	for {
		v, err := p.value()
		if err != nil {
			return Node{}, err
		}
		n.Elems = append(n.Elems, v)
		if more, err := p.more(']', "array"); !more || err != nil {
			return n, err
		}
	}
}

func (p *parser) object() (Node, error) {
	defer func() { p.depth-- }()
	n := Node{Kind: Object}
	if empty, err := p.open('}'); empty || err != nil {
		return n, err
	}
	var index map[string]int // once the object has more than indexAfter members
	for {
		p.ws()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return Node{}, p.errf("expected object key")
		}
		keyAt := p.pos
		k, err := p.string()
		if err != nil {
			return Node{}, err
		}
		p.ws()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return Node{}, p.errf("expected ':'")
		}
		p.pos++
		v, err := p.value()
		if err != nil {
			return Node{}, err
		}
		at := -1
		if index != nil {
			if i, ok := index[k]; ok {
				at = i
			}
		} else {
			for i := range n.Members {
				if n.Members[i].Key == k {
					at = i
					break
				}
			}
		}
		switch {
		case at >= 0 && p.mode == Strict:
			return Node{}, fmt.Errorf("json offset %d: duplicate key %q", keyAt, k)
		case at >= 0:
			n.Members[at].Value = v
		default:
			n.Members = append(n.Members, Member{Key: k, Value: v})
			if index != nil {
				index[k] = len(n.Members) - 1
			} else if len(n.Members) > indexAfter {
				index = make(map[string]int, 2*len(n.Members))
				for i := range n.Members {
					index[n.Members[i].Key] = i
				}
			}
		}
		if more, err := p.more('}', "object"); !more || err != nil {
			return n, err
		}
	}
}

// more reads what follows an element of an array or object: ',' (another
// element follows) or closer (the end).
func (p *parser) more(closer byte, what string) (bool, error) {
	p.ws()
	if p.pos >= len(p.data) {
		return false, p.errf("unterminated %s", what)
	}
	switch p.data[p.pos] {
	case ',':
		p.pos++
		return true, nil
	case closer:
		p.pos++
		return false, nil
	}
	return false, p.errf("expected ',' or '%c'", closer)
}
