package sqlengine

import "strings"

// fixLexing rewrites the two places where the vitess lexer of GMS v0.20.0
// reads MySQL text differently from MySQL, outside of which it copies the
// statement byte for byte:
//
//   - `\_` and `\%` inside a '…' or "…" string: MySQL keeps the backslash
//     (so `LIKE '%\_%'` matches a literal underscore, and `SELECT '\_'` is
//     two characters), vitess drops it. They become `\\_` and `\\%`, which
//     vitess reads as the two characters MySQL has.
//   - `--` not followed by a space or control character: MySQL reads it as
//     two minus signs (`SELECT --21255` is 21255), vitess as a comment. It
//     becomes `- -`.
//
// Comments, `…` identifiers and the rest of every string are untouched.
func fixLexing(q string) string {
	if !strings.Contains(q, `\_`) && !strings.Contains(q, `\%`) && !strings.Contains(q, "--") {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 8)
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == '\'' || c == '"':
			j := i + 1
			b.WriteByte(c)
			for j < len(q) {
				d := q[j]
				if d == '\\' && j+1 < len(q) {
					if n := q[j+1]; n == '_' || n == '%' {
						b.WriteString(`\\`)
						b.WriteByte(n)
					} else {
						b.WriteString(q[j : j+2])
					}
					j += 2
					continue
				}
				b.WriteByte(d)
				j++
				if d == c {
					if j < len(q) && q[j] == c { // doubled quote
						b.WriteByte(c)
						j++
						continue
					}
					break
				}
			}
			i = j
		case c == '`':
			j := strings.IndexByte(q[i+1:], '`')
			if j < 0 {
				b.WriteString(q[i:])
				return b.String()
			}
			b.WriteString(q[i : i+j+2])
			i += j + 2
		case c == '#' || (c == '-' && i+1 < len(q) && q[i+1] == '-' && (i+2 == len(q) || q[i+2] <= ' ')):
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				b.WriteString(q[i:])
				return b.String()
			}
			b.WriteString(q[i : i+j+1])
			i += j + 1
		case c == '-' && i+1 < len(q) && q[i+1] == '-':
			b.WriteString("- ")
			i++
		case c == '/' && i+1 < len(q) && q[i+1] == '*':
			j := strings.Index(q[i+2:], "*/")
			if j < 0 {
				b.WriteString(q[i:])
				return b.String()
			}
			b.WriteString(q[i : i+j+4])
			i += j + 4
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}
