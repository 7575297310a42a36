package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// This file holds a tiny ordered JSON tree plus a printer that reproduces
// the bytes of Jackson's default pretty printer, which Java Paimon uses for
// every metadata file it writes (JsonSerdeUtil.toJson ->
// writerWithDefaultPrettyPrinter):
//
//   - objects: "{", then per member a newline, two spaces per nesting level,
//     `"key" : value`, members separated by ","; closing "}" on its own line;
//     an empty object is "{ }";
//   - arrays stay on one line: "[ a, b ]", an empty array is "[ ]"; arrays do
//     not add a nesting level (Jackson's FixedSpaceIndenter is inline);
//   - strings escape only '"', '\\' and control characters (\b \t \n \f \r
//     short forms, \u00XX with upper-case hex otherwise); everything else,
//     including non-ASCII, is written as is;
//   - no trailing newline.

// maxJSONDepth bounds nesting so that hostile input cannot exhaust the stack.
const maxJSONDepth = 256

type jsonKind uint8

const (
	jsonNull jsonKind = iota
	jsonBool
	jsonNumber
	jsonString
	jsonObject
	jsonArray
)

// jsonValue is one node of an ordered JSON tree. Numbers keep their literal
// text so that they re-print byte for byte.
type jsonValue struct {
	kind    jsonKind
	boolean bool
	text    string // number literal or decoded string
	members []jsonMember
	elems   []jsonValue
}

type jsonMember struct {
	key   string
	value jsonValue
}

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
	case jsonObject:
		return "object"
	case jsonArray:
		return "array"
	}
	return "unknown"
}

// parseJSON parses exactly one JSON value (surrounded by optional white
// space). Errors are plain; callers wrap them in ErrCorrupt.
func parseJSON(data []byte) (jsonValue, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := parseJSONValue(dec, 0)
	if err != nil {
		return jsonValue{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		if err == nil {
			return jsonValue{}, errors.New("trailing data after the JSON value")
		}
		return jsonValue{}, err
	}
	return v, nil
}

func parseJSONValue(dec *json.Decoder, depth int) (jsonValue, error) {
	if depth > maxJSONDepth {
		return jsonValue{}, fmt.Errorf("JSON nested deeper than %d levels", maxJSONDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			return jsonValue{}, io.ErrUnexpectedEOF
		}
		return jsonValue{}, err
	}
	switch t := tok.(type) {
	case nil:
		return jsonValue{kind: jsonNull}, nil
	case bool:
		return jsonValue{kind: jsonBool, boolean: t}, nil
	case json.Number:
		return jsonValue{kind: jsonNumber, text: string(t)}, nil
	case string:
		return jsonValue{kind: jsonString, text: t}, nil
	case json.Delim:
		switch t {
		case '{':
			v := jsonValue{kind: jsonObject}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return jsonValue{}, err
				}
				key, ok := kt.(string)
				if !ok {
					return jsonValue{}, fmt.Errorf("object key is %v, not a string", kt)
				}
				val, err := parseJSONValue(dec, depth+1)
				if err != nil {
					return jsonValue{}, err
				}
				v.members = append(v.members, jsonMember{key: key, value: val})
			}
			if _, err := dec.Token(); err != nil { // '}'
				return jsonValue{}, err
			}
			return v, nil
		case '[':
			v := jsonValue{kind: jsonArray}
			for dec.More() {
				val, err := parseJSONValue(dec, depth+1)
				if err != nil {
					return jsonValue{}, err
				}
				v.elems = append(v.elems, val)
			}
			if _, err := dec.Token(); err != nil { // ']'
				return jsonValue{}, err
			}
			return v, nil
		}
	}
	return jsonValue{}, fmt.Errorf("unexpected JSON token %v", tok)
}

// jsonWriter renders values in Jackson's default pretty-print format.
type jsonWriter struct {
	buf []byte
}

func (w *jsonWriter) indent(level int) {
	for i := 0; i < level; i++ {
		w.buf = append(w.buf, ' ', ' ')
	}
}

// beginObject, member and endObject write an object member by member so
// that typed encoders need not build a tree. first reports whether a member
// was already written.
func (w *jsonWriter) beginObject() { w.buf = append(w.buf, '{') }

func (w *jsonWriter) key(level int, n int, key string) {
	if n > 0 {
		w.buf = append(w.buf, ',')
	}
	w.buf = append(w.buf, '\n')
	w.indent(level + 1)
	w.str(key)
	w.buf = append(w.buf, " : "...)
}

func (w *jsonWriter) endObject(level int, n int) {
	if n == 0 {
		w.buf = append(w.buf, ' ', '}')
		return
	}
	w.buf = append(w.buf, '\n')
	w.indent(level)
	w.buf = append(w.buf, '}')
}

func (w *jsonWriter) int64(v int64) { w.buf = strconv.AppendInt(w.buf, v, 10) }

func (w *jsonWriter) null() { w.buf = append(w.buf, "null"...) }

const upperHex = "0123456789ABCDEF"

// str writes a JSON string the way Jackson escapes it.
func (w *jsonWriter) str(s string) {
	w.buf = append(w.buf, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			if c < utf8.RuneSelf {
				i++
				continue
			}
			// Non-ASCII: Jackson writes the character itself; invalid
			// UTF-8 cannot come from a Java string, emit U+FFFD as Java
			// would have decoded it.
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				w.buf = append(w.buf, s[start:i]...)
				w.buf = append(w.buf, "\uFFFD"...)
				i++
				start = i
				continue
			}
			i += size
			continue
		}
		w.buf = append(w.buf, s[start:i]...)
		switch c {
		case '"', '\\':
			w.buf = append(w.buf, '\\', c)
		case '\b':
			w.buf = append(w.buf, '\\', 'b')
		case '\t':
			w.buf = append(w.buf, '\\', 't')
		case '\n':
			w.buf = append(w.buf, '\\', 'n')
		case '\f':
			w.buf = append(w.buf, '\\', 'f')
		case '\r':
			w.buf = append(w.buf, '\\', 'r')
		default:
			w.buf = append(w.buf, '\\', 'u', '0', '0', upperHex[c>>4], upperHex[c&0xF])
		}
		i++
		start = i
	}
	w.buf = append(w.buf, s[start:]...)
	w.buf = append(w.buf, '"')
}

// value writes a parsed tree at the given nesting level.
func (w *jsonWriter) value(v jsonValue, level int) {
	switch v.kind {
	case jsonNull:
		w.null()
	case jsonBool:
		w.buf = strconv.AppendBool(w.buf, v.boolean)
	case jsonNumber:
		w.buf = append(w.buf, v.text...)
	case jsonString:
		w.str(v.text)
	case jsonObject:
		w.beginObject()
		for i, m := range v.members {
			w.key(level, i, m.key)
			w.value(m.value, level+1)
		}
		w.endObject(level, len(v.members))
	case jsonArray:
		if len(v.elems) == 0 {
			w.buf = append(w.buf, "[ ]"...)
			return
		}
		w.buf = append(w.buf, '[', ' ')
		for i, e := range v.elems {
			if i > 0 {
				w.buf = append(w.buf, ',', ' ')
			}
			w.value(e, level)
		}
		w.buf = append(w.buf, ' ', ']')
	}
}

// Typed accessors used by the decoders. Each names the field on error.

func fieldInt64(key string, v jsonValue) (int64, error) {
	if v.kind != jsonNumber {
		return 0, fmt.Errorf("field %q: want an integer, got %s", key, v.kind)
	}
	n, err := strconv.ParseInt(v.text, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("field %q: want a 64-bit integer, got %s", key, v.text)
	}
	return n, nil
}

func fieldInt32(key string, v jsonValue) (int32, error) {
	n, err := fieldInt64(key, v)
	if err != nil {
		return 0, err
	}
	if n != int64(int32(n)) {
		return 0, fmt.Errorf("field %q: %d does not fit a 32-bit integer", key, n)
	}
	return int32(n), nil
}

func fieldString(key string, v jsonValue) (string, error) {
	if v.kind != jsonString {
		return "", fmt.Errorf("field %q: want a string, got %s", key, v.kind)
	}
	return v.text, nil
}
