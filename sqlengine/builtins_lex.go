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
// It finds both on the tokens of the one lexer (lex.go), so comments, `…`
// identifiers and the rest of every string are untouched, and every token
// keeps its kind and value (FuzzFixLexing). A statement that does not lex
// is returned unchanged (GMS reports it).
func fixLexing(q string) string {
	if !strings.Contains(q, `\_`) && !strings.Contains(q, `\%`) && !strings.Contains(q, "--") {
		return q
	}
	toks, err := Lex(q)
	if err != nil {
		return q
	}
	var edits []edit
	for _, t := range toks {
		switch {
		case t.IsSymbol("-") && t.End < len(q) && q[t.End] == '-':
			// A minus sign directly before another one (or before a
			// comment "-- "): vitess would read a comment from it.
			edits = append(edits, edit{t.End, t.End, " "})
		case t.Kind == lexString || t.Kind == lexVariable:
			edits = appendLikeEscapes(edits, q, t)
		}
	}
	return splice(q, edits)
}

// appendLikeEscapes adds the edits that double the backslash of every `\_`
// and `\%` escape inside the '…' or "…" quotes of t (a string, or a
// variable @'…'; backquotes have no escapes).
func appendLikeEscapes(edits []edit, q string, t Token) []edit {
	s := q[t.Start:t.End]
	open := strings.IndexAny(s, `'"`+"`")
	if open < 0 || s[open] == '`' || !strings.Contains(s, `\`) {
		return edits
	}
	for j := open + 1; j+1 < len(s); j++ {
		if s[j] != '\\' {
			continue
		}
		if c := s[j+1]; c == '_' || c == '%' {
			edits = append(edits, edit{t.Start + j, t.Start + j, `\`})
		}
		j++ // the escaped byte
	}
	return edits
}
