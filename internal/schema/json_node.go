package schema

import (
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonKind is the kind of a parsed JSON value.
type jsonKind uint8

const (
	jsonNull jsonKind = iota
	jsonBool
	jsonNumber
	jsonString
	jsonArray
	jsonObject
)

func (k jsonKind) String() string {
	switch k {
	case jsonNull:
		return "null"
	case jsonBool:
		return "boolean"
	case jsonNumber:
		return "number"
	case jsonString:
		return "string"
	case jsonArray:
		return "array"
	default:
		return "object"
	}
}

// jsonNode is a parsed JSON value that keeps object key order and the raw
// text of numbers, so that unknown fields and option order survive a rewrite.
type jsonNode struct {
	kind jsonKind
	b    bool
	str  string // string value, or the raw text of a number
	arr  []*jsonNode
	keys []string
	vals []*jsonNode
}

// get returns the value of key in an object, or nil.
func (n *jsonNode) get(key string) *jsonNode {
	if n == nil || n.kind != jsonObject {
		return nil
	}
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

const maxJSONDepth = 256

type jsonParser struct {
	data  []byte
	pos   int
	depth int
}

// parseJSON parses one JSON document. Errors do not wrap ErrCorrupt; callers do.
func parseJSON(data []byte) (*jsonNode, error) {
	p := &jsonParser{data: data}
	n, err := p.value()
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.pos != len(p.data) {
		return nil, fmt.Errorf("trailing data at offset %d", p.pos)
	}
	return n, nil
}

func (p *jsonParser) ws() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *jsonParser) errf(format string, args ...any) error {
	return fmt.Errorf("json offset %d: %s", p.pos, fmt.Sprintf(format, args...))
}

func (p *jsonParser) value() (*jsonNode, error) {
	p.ws()
	if p.pos >= len(p.data) {
		return nil, p.errf("unexpected end of input")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		s, err := p.string()
		if err != nil {
			return nil, err
		}
		return &jsonNode{kind: jsonString, str: s}, nil
	case c == 't':
		return p.literal("true", &jsonNode{kind: jsonBool, b: true})
	case c == 'f':
		return p.literal("false", &jsonNode{kind: jsonBool})
	case c == 'n':
		return p.literal("null", &jsonNode{kind: jsonNull})
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		return nil, p.errf("unexpected character %q", c)
	}
}

func (p *jsonParser) literal(word string, n *jsonNode) (*jsonNode, error) {
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return nil, p.errf("invalid literal")
	}
	p.pos += len(word)
	return n, nil
}

func (p *jsonParser) number() (*jsonNode, error) {
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
	if digits() == 0 {
		return nil, p.errf("invalid number")
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return nil, p.errf("invalid number")
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return nil, p.errf("invalid number")
		}
	}
	return &jsonNode{kind: jsonNumber, str: string(p.data[start:p.pos])}, nil
}

func (p *jsonParser) string() (string, error) {
	p.pos++ // opening quote
	start := p.pos
	// Fast path: no escapes.
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		if c == '"' {
			s := string(p.data[start:p.pos])
			p.pos++
			if !utf8.ValidString(s) {
				return "", p.errf("invalid UTF-8 in string")
			}
			return s, nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
		p.pos++
	}
	buf := append([]byte(nil), p.data[start:p.pos]...)
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			if !utf8.Valid(buf) {
				return "", p.errf("invalid UTF-8 in string")
			}
			return string(buf), nil
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
				r, err := p.hex4()
				if err != nil {
					return "", err
				}
				if utf16.IsSurrogate(r) {
					if p.pos+6 <= len(p.data) && p.data[p.pos] == '\\' && p.data[p.pos+1] == 'u' {
						p.pos += 2
						r2, err := p.hex4()
						if err != nil {
							return "", err
						}
						r = utf16.DecodeRune(r, r2)
					} else {
						r = utf8.RuneError
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

func (p *jsonParser) hex4() (rune, error) {
	if p.pos+4 > len(p.data) {
		return 0, p.errf("short \\u escape")
	}
	v, err := strconv.ParseUint(string(p.data[p.pos:p.pos+4]), 16, 32)
	if err != nil {
		return 0, p.errf("invalid \\u escape")
	}
	p.pos += 4
	return rune(v), nil
}

func (p *jsonParser) array() (*jsonNode, error) {
	if p.depth++; p.depth > maxJSONDepth {
		return nil, p.errf("nesting deeper than %d", maxJSONDepth)
	}
	defer func() { p.depth-- }()
	p.pos++
	n := &jsonNode{kind: jsonArray}
	p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return n, nil
	}
	for {
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.arr = append(n.arr, v)
		p.ws()
		if p.pos >= len(p.data) {
			return nil, p.errf("unterminated array")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return n, nil
		default:
			return nil, p.errf("expected ',' or ']'")
		}
	}
}

func (p *jsonParser) object() (*jsonNode, error) {
	if p.depth++; p.depth > maxJSONDepth {
		return nil, p.errf("nesting deeper than %d", maxJSONDepth)
	}
	defer func() { p.depth-- }()
	p.pos++
	n := &jsonNode{kind: jsonObject}
	p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return n, nil
	}
	for {
		p.ws()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.errf("expected object key")
		}
		k, err := p.string()
		if err != nil {
			return nil, err
		}
		p.ws()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.errf("expected ':'")
		}
		p.pos++
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		if n.get(k) != nil {
			return nil, p.errf("duplicate key %q", k)
		}
		n.keys = append(n.keys, k)
		n.vals = append(n.vals, v)
		p.ws()
		if p.pos >= len(p.data) {
			return nil, p.errf("unterminated object")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return n, nil
		default:
			return nil, p.errf("expected ',' or '}'")
		}
	}
}
