package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/lakesql/lakesql/internal/jackson"
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

// jsonWriter is the one Jackson writer (package jackson).
type jsonWriter = jackson.Writer

// writeValue writes a parsed tree (fields kept from a file on rewrite).
func writeValue(w *jsonWriter, v jsonValue) {
	switch v.kind {
	case jsonNull:
		w.Raw("null")
	case jsonBool:
		w.Raw(strconv.FormatBool(v.boolean))
	case jsonNumber:
		w.Raw(v.text)
	case jsonString:
		w.String(v.text)
	case jsonObject:
		w.BeginObject()
		for _, m := range v.members {
			w.Field(m.key)
			writeValue(w, m.value)
		}
		w.EndObject()
	case jsonArray:
		w.BeginArray()
		for _, e := range v.elems {
			writeValue(w, e)
		}
		w.EndArray()
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
