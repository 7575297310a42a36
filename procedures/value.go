package procedures

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ValueKind is the kind of a literal argument.
type ValueKind uint8

const (
	// KindNull is SQL NULL: the same as leaving an optional argument out.
	KindNull ValueKind = iota
	// KindString is a string literal.
	KindString
	// KindNumber is a numeric literal, kept as written.
	KindNumber
	// KindBool is TRUE or FALSE.
	KindBool
)

// Value is a literal argument of a CALL as the statement wrote it.
type Value struct {
	Kind ValueKind
	text string
	b    bool
}

// StringValue is the string literal s (unescaped).
func StringValue(s string) Value { return Value{Kind: KindString, text: s} }

// NumberValue is a numeric literal as written ("12", "-1", "1.5e3").
func NumberValue(text string) Value { return Value{Kind: KindNumber, text: text} }

// BoolValue is TRUE or FALSE.
func BoolValue(b bool) Value { return Value{Kind: KindBool, b: b} }

// NullValue is NULL.
func NullValue() Value { return Value{} }

// String renders the value as SQL would show it in a message.
func (v Value) String() string {
	switch v.Kind {
	case KindString:
		return v.text
	case KindNumber:
		return v.text
	case KindBool:
		if v.b {
			return "TRUE"
		}
		return "FALSE"
	}
	return "NULL"
}

// Arg is one argument of a call: Name is "" for a positional argument.
type Arg struct {
	Name  string
	Value Value
}

// ParamType is the type of a procedure parameter (Paimon's STRING, INT,
// BIGINT, BOOLEAN).
type ParamType uint8

const (
	TypeString ParamType = iota
	TypeInt              // 32-bit, as Paimon's INT parameters
	TypeLong             // 64-bit, as Paimon's BIGINT parameters
	TypeBool
)

func (t ParamType) String() string {
	switch t {
	case TypeInt:
		return "INT"
	case TypeLong:
		return "BIGINT"
	case TypeBool:
		return "BOOLEAN"
	}
	return "STRING"
}

// convert turns a literal into the Go value of a parameter of type t:
// string, int64 or bool. Numbers are accepted for strings (as written);
// strings holding an integer for INT/BIGINT and 'true'/'false' or 1/0 for
// BOOLEAN, as MySQL converts them.
func (t ParamType) convert(v Value) (any, error) {
	switch t {
	case TypeString:
		if v.Kind == KindBool {
			return nil, fmt.Errorf("want a string, got %s", v)
		}
		return v.text, nil
	case TypeInt, TypeLong:
		if v.Kind == KindBool {
			return nil, fmt.Errorf("want an integer, got %s", v)
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v.text), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("want an integer, got '%s'", v.text)
		}
		if t == TypeInt && (n < math.MinInt32 || n > math.MaxInt32) {
			return nil, fmt.Errorf("%d is out of the INT range", n)
		}
		return n, nil
	case TypeBool:
		switch v.Kind {
		case KindBool:
			return v.b, nil
		case KindNumber:
			switch v.text {
			case "0":
				return false, nil
			case "1":
				return true, nil
			}
		case KindString:
			switch strings.ToLower(strings.TrimSpace(v.text)) {
			case "true", "1":
				return true, nil
			case "false", "0":
				return false, nil
			}
		}
		return nil, fmt.Errorf("want TRUE or FALSE, got %s", v)
	}
	return nil, fmt.Errorf("unknown parameter type %d", t)
}
