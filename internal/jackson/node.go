package jackson

import (
	"fmt"
	"strconv"
)

// Kind is the kind of a parsed JSON value.
type Kind uint8

// The kinds of JSON values.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

func (k Kind) String() string {
	switch k {
	case Null:
		return "null"
	case Bool:
		return "boolean"
	case Number:
		return "number"
	case String:
		return "string"
	case Array:
		return "array"
	case Object:
		return "object"
	}
	return "unknown"
}

// Node is one value of an ordered JSON tree (Jackson's JsonNode as Paimon
// reads metadata with it). Objects keep their keys in file order and numbers
// keep their literal text, so that a file rewritten with Writer.Node keeps
// unknown fields, option order and number spelling byte for byte.
type Node struct {
	Kind Kind
	// Bool is the value of a boolean.
	Bool bool
	// Text is a string's decoded value, or a number's literal text.
	Text string
	// Elems are an array's elements.
	Elems []Node
	// Members are an object's members in file order, each key once.
	Members []Member
}

// Member is one key and value of an object.
type Member struct {
	Key   string
	Value Node
}

// Get returns the value of key in an object, or nil when n is nil, not an
// object, or has no such key.
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != Object {
		return nil
	}
	for i := range n.Members {
		if n.Members[i].Key == key {
			return &n.Members[i].Value
		}
	}
	return nil
}

// Int reads an integral number that fits a signed integer of bits bits
// (Jackson's asLong/asInt on a number node without fraction or exponent).
func (n *Node) Int(bits int) (int64, error) {
	if n.Kind != Number {
		return 0, fmt.Errorf("want an integer, got %s", n.Kind)
	}
	v, err := strconv.ParseInt(n.Text, 10, bits)
	if err != nil {
		return 0, fmt.Errorf("want a %d-bit integer, got %s", bits, n.Text)
	}
	return v, nil
}

// Str reads a string.
func (n *Node) Str() (string, error) {
	if n.Kind != String {
		return "", fmt.Errorf("want a string, got %s", n.Kind)
	}
	return n.Text, nil
}

// AsText is Jackson's asText for scalars: a string as is, a number or a
// boolean as its text; other kinds are an error.
func (n *Node) AsText() (string, error) {
	switch n.Kind {
	case String, Number:
		return n.Text, nil
	case Bool:
		return strconv.FormatBool(n.Bool), nil
	}
	return "", fmt.Errorf("want a string, got %s", n.Kind)
}

// Node writes a parsed tree (the fields kept from a file on rewrite).
func (w *Writer) Node(n *Node) {
	switch n.Kind {
	case Null:
		w.Raw("null")
	case Bool:
		if n.Bool {
			w.Raw("true")
		} else {
			w.Raw("false")
		}
	case Number:
		w.Raw(n.Text)
	case String:
		w.String(n.Text)
	case Array:
		w.BeginArray()
		for i := range n.Elems {
			w.Node(&n.Elems[i])
		}
		w.EndArray()
	case Object:
		w.BeginObject()
		for i := range n.Members {
			w.Field(n.Members[i].Key)
			w.Node(&n.Members[i].Value)
		}
		w.EndObject()
	}
}
