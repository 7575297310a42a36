package sqlengine

import (
	"errors"
	"strings"
)

// SplitStatements splits a script into its complete statements, each
// ended by a ';' outside literals, quoted identifiers and comments (the
// ';' is not part of the statement; empty statements are dropped), and the
// text after the last one (rest; "" when only white space or comments
// remain). An unterminated literal, identifier or comment is incomplete:
// it stays in rest, for a shell to read more lines. It splits with Lex, so
// it agrees with the fronts on what is a literal.
func SplitStatements(script string) (stmts []string, rest string) {
	toks, err := Lex(script)
	end := len(script)
	var le *LexError
	if errors.As(err, &le) {
		// Lex the text before the unterminated token to find the
		// statements that are complete.
		end = le.Pos
		toks, err = Lex(script[:end])
		if err != nil {
			return nil, script
		}
	} else if err != nil {
		return nil, script
	}
	start := 0
	for _, t := range toks {
		if t.IsSymbol(";") {
			if s := strings.TrimSpace(script[start:t.Start]); s != "" && !isEmptyQuery(s) {
				stmts = append(stmts, s)
			}
			start = t.End
		}
	}
	rest = script[start:]
	if end == len(script) && isEmptyQuery(rest) {
		rest = ""
	}
	return stmts, rest
}
