package jackson

import (
	"strconv"
	"unicode/utf8"
)

// Writer writes JSON exactly like Jackson's DefaultPrettyPrinter as
// Paimon uses it (JsonSerdeUtil.toJson): objects break lines with a two-space
// indent per object level, arrays stay on one line with single spaces
// ("[ 1, 2 ]", "[ ]"), empty objects are "{ }", fields are "key" : value and
// there is no trailing newline. Strings are escaped like Jackson: '"', '\\',
// the short escapes \b \t \n \f \r and \u00XX (upper-case hex) for other
// control characters; everything else is written as UTF-8.
type Writer struct {
	buf     []byte
	nesting int
	// counts[i] is the number of entries written so far into the i-th open
	// container; arrays[i] tells whether it is an array.
	counts  []int
	arrays  []bool
	compact bool
}

// New returns a pretty-printing writer (Jackson's DefaultPrettyPrinter).
func New() *Writer { return &Writer{buf: make([]byte, 0, 1024)} }

// NewCompact returns a writer of the flat form (Jackson without a pretty
// printer): no whitespace at all.
func NewCompact() *Writer { return &Writer{compact: true} }

// Bytes is what was written.
func (w *Writer) Bytes() []byte { return w.buf }

func (w *Writer) indent() {
	if w.compact {
		return
	}
	w.buf = append(w.buf, '\n')
	for i := 0; i < w.nesting; i++ {
		w.buf = append(w.buf, ' ', ' ')
	}
}

// beforeValue writes the separator an array element needs.
func (w *Writer) beforeValue() {
	top := len(w.counts) - 1
	if top < 0 || !w.arrays[top] {
		return
	}
	switch {
	case w.counts[top] > 0 && w.compact:
		w.buf = append(w.buf, ',')
	case w.counts[top] > 0:
		w.buf = append(w.buf, ',', ' ')
	case !w.compact:
		w.buf = append(w.buf, ' ')
	}
	w.counts[top]++
}

// Field starts an object member named name; its value follows.
func (w *Writer) Field(name string) {
	top := len(w.counts) - 1
	if w.counts[top] > 0 {
		w.buf = append(w.buf, ',')
	}
	w.counts[top]++
	w.indent()
	w.quote(name)
	if w.compact {
		w.buf = append(w.buf, ':')
	} else {
		w.buf = append(w.buf, " : "...)
	}
}

// BeginObject opens an object.
func (w *Writer) BeginObject() {
	w.beforeValue()
	w.buf = append(w.buf, '{')
	w.nesting++
	w.counts = append(w.counts, 0)
	w.arrays = append(w.arrays, false)
}

// EndObject closes the innermost object.
func (w *Writer) EndObject() {
	n := w.counts[len(w.counts)-1]
	w.counts = w.counts[:len(w.counts)-1]
	w.arrays = w.arrays[:len(w.arrays)-1]
	w.nesting--
	switch {
	case n > 0:
		w.indent()
	case !w.compact:
		w.buf = append(w.buf, ' ')
	}
	w.buf = append(w.buf, '}')
}

// BeginArray opens an array (written on one line).
func (w *Writer) BeginArray() {
	w.beforeValue()
	w.buf = append(w.buf, '[')
	w.counts = append(w.counts, 0)
	w.arrays = append(w.arrays, true)
}

// EndArray closes the innermost array.
func (w *Writer) EndArray() {
	w.counts = w.counts[:len(w.counts)-1]
	w.arrays = w.arrays[:len(w.arrays)-1]
	if !w.compact {
		w.buf = append(w.buf, ' ')
	}
	w.buf = append(w.buf, ']')
}

// String writes a string value.
func (w *Writer) String(s string) {
	w.beforeValue()
	w.quote(s)
}

// Int writes an integer value.
func (w *Writer) Int(v int64) {
	w.beforeValue()
	w.buf = strconv.AppendInt(w.buf, v, 10)
}

// raw writes a scalar token (number text, true, false, null) as is.
func (w *Writer) Raw(tok string) {
	w.beforeValue()
	w.buf = append(w.buf, tok...)
}

const upperHex = "0123456789ABCDEF"

func (w *Writer) quote(s string) {
	w.buf = AppendString(w.buf, s)
}

// AppendString appends s as a JSON string literal escaped like Jackson.
func AppendString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				buf = append(buf, "\uFFFD"...) // invalid UTF-8: replace, like a Java String would
			} else {
				buf = append(buf, s[i:i+size]...)
			}
			i += size
			continue
		}
		switch c {
		case '"', '\\':
			buf = append(buf, '\\', c)
		case '\b':
			buf = append(buf, '\\', 'b')
		case '\t':
			buf = append(buf, '\\', 't')
		case '\n':
			buf = append(buf, '\\', 'n')
		case '\f':
			buf = append(buf, '\\', 'f')
		case '\r':
			buf = append(buf, '\\', 'r')
		default:
			if c < 0x20 {
				buf = append(buf, '\\', 'u', '0', '0', upperHex[c>>4], upperHex[c&0xF])
			} else {
				buf = append(buf, c)
			}
		}
		i++
	}
	return append(buf, '"')
}
