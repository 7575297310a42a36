package sqlengine

import (
	"errors"
	"fmt"
	"strings"
)

// The write front (MERGE INTO, INSERT OVERWRITE) keeps every expression as
// the client's SQL text and hands it to GMS; its lexer only has to find
// token boundaries the way MySQL does: '…' and "…" strings with backslash
// escapes and doubled quotes, `…` identifiers, and -- # /* */ comments.

// errWriteSyntax marks a syntax error of the write front (MySQL 1064).
var errWriteSyntax = errors.New("syntax error")

// exprUntil consumes one expression and returns its source text: tokens up
// to (not including) the first token at parenthesis and CASE depth 0 for
// which stop is true, or the end of the statement.
func (p *parser) exprUntil(what string, stop func(token) bool) (string, error) {
	start := p.pos
	depth, cases := 0, 0
	for {
		t := p.peek()
		if t.kind == tokEOF || t.sym(";") && depth == 0 {
			break
		}
		if depth == 0 && cases == 0 && stop(t) {
			break
		}
		switch {
		case t.sym("("):
			depth++
		case t.sym(")"):
			if depth == 0 {
				return "", p.errorf("unbalanced ')'")
			}
			depth--
		case t.is("CASE"):
			cases++
		case t.is("END") && cases > 0:
			cases--
		}
		p.pos++
	}
	if depth > 0 {
		return "", p.errorf("unbalanced '(' in %s", what)
	}
	if p.pos == start {
		return "", p.errorf("expected %s", what)
	}
	return p.src[p.toks[start].start:p.toks[p.pos-1].end], nil
}

// parenGroup consumes a parenthesised group and returns the text inside.
func (p *parser) parenGroup(what string) (string, error) {
	if err := p.expectSym("("); err != nil {
		return "", err
	}
	start := p.pos
	depth := 1
	for depth > 0 {
		t := p.next()
		switch {
		case t.kind == tokEOF:
			return "", p.errorf("unbalanced '(' in %s", what)
		case t.sym("("):
			depth++
		case t.sym(")"):
			depth--
		}
	}
	if p.pos-1 == start {
		return "", nil
	}
	return p.src[p.toks[start].start:p.toks[p.pos-2].end], nil
}

// columnList parses ( a, b, … ); names may be qualified by qual.
func (p *parser) columnList(qual string) ([]string, error) {
	return p.parenList(func() (string, error) { return p.columnRef(qual) })
}

// columnRef parses a column name, optionally qualified by qual.
func (p *parser) columnRef(qual string) (string, error) {
	name, err := p.ident()
	if err != nil {
		return "", err
	}
	if p.acceptSym(".") {
		if !strings.EqualFold(name, qual) {
			return "", fmt.Errorf("%w: column qualifier %s is not the target table %s", errWriteSyntax, name, qual)
		}
		return p.ident()
	}
	return name, nil
}

// startsWithWords reports whether the statement's first tokens are kws,
// cheaply rejecting statements that start with another word.
// firstTokenIs reports whether the first token of q (after comments) is
// one of the words or symbols in any (upper case); only that token is
// lexed. A statement that does not lex that far gives true: the caller
// lexes it and sees.
func firstTokenIs(q string, any ...string) bool {
	toks, err := lexLimit(q, mysqlDialect, 1)
	if err != nil || len(toks) == 0 {
		return true
	}
	for _, w := range any {
		if toks[0].IsWord(w) || toks[0].IsSymbol(w) {
			return true
		}
	}
	return false
}

func startsWithWords(q string, kws ...string) bool {
	s := strings.TrimLeft(q, " \t\r\n\f\v")
	if !strings.HasPrefix(s, "/*") && !strings.HasPrefix(s, "#") && !strings.HasPrefix(s, "--") {
		if len(s) < len(kws[0]) || !strings.EqualFold(s[:len(kws[0])], kws[0]) {
			return false
		}
	}
	// Only the first words matter: a 1,000-row INSERT is not lexed whole.
	toks, err := tokensLimit(q, mysqlDialect, errWriteSyntax, len(kws))
	if err != nil {
		return false
	}
	for i, kw := range kws {
		if i >= len(toks) || !toks[i].is(kw) {
			return false
		}
	}
	return true
}

// quoteName backquotes an identifier for generated SQL.
func quoteName(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }
