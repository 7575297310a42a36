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

type wtokKind uint8

const (
	wEOF wtokKind = iota
	wIdent
	wQuoted // `identifier`
	wString
	wNumber
	wSymbol
)

// wtok is one token; text is the identifier (unquoted) or the symbol,
// number or unescaped string value; start and end are byte offsets.
type wtok struct {
	kind       wtokKind
	text       string
	start, end int
}

func (t wtok) String() string {
	switch t.kind {
	case wEOF:
		return "end of statement"
	case wString:
		return "'" + t.text + "'"
	case wQuoted:
		return "`" + t.text + "`"
	}
	return "'" + t.text + "'"
}

// isWordKw reports whether t is the unquoted keyword kw.
func (t wtok) is(kw string) bool { return t.kind == wIdent && strings.EqualFold(t.text, kw) }

func (t wtok) sym(s string) bool { return t.kind == wSymbol && t.text == s }

// wLex splits a statement into tokens with the shared lexer (lex.go,
// MySQL's dialect).
func wLex(s string) ([]wtok, error) {
	toks, err := Lex(s)
	if err != nil {
		var le *LexError
		if errors.As(err, &le) {
			return nil, fmt.Errorf("%w: %s at position %d", errWriteSyntax, le.Msg, le.Pos)
		}
		return nil, fmt.Errorf("%w: %v", errWriteSyntax, err)
	}
	out := make([]wtok, len(toks))
	for i, t := range toks {
		k := wSymbol
		switch t.Kind {
		case lexEOF:
			k = wEOF
		case lexWord:
			k = wIdent
		case lexQuotedIdent:
			k = wQuoted
		case lexString:
			k = wString
		case lexNumber:
			k = wNumber
		}
		out[i] = wtok{kind: k, text: t.Value(), start: t.Start, end: t.End}
	}
	return out, nil
}

// wparser walks the tokens of one statement.
type wparser struct {
	src  string
	toks []wtok
	pos  int
}

func (p *wparser) peek() wtok { return p.toks[p.pos] }

func (p *wparser) at(n int) wtok {
	if p.pos+n < len(p.toks) {
		return p.toks[p.pos+n]
	}
	return p.toks[len(p.toks)-1]
}

func (p *wparser) next() wtok {
	t := p.toks[p.pos]
	if t.kind != wEOF {
		p.pos++
	}
	return t
}

func (p *wparser) atKw(kws ...string) bool {
	for i, kw := range kws {
		if !p.at(i).is(kw) {
			return false
		}
	}
	return true
}

func (p *wparser) acceptKw(kws ...string) bool {
	if !p.atKw(kws...) {
		return false
	}
	p.pos += len(kws)
	return true
}

func (p *wparser) acceptSym(s string) bool {
	if p.peek().sym(s) {
		p.pos++
		return true
	}
	return false
}

func (p *wparser) errorf(format string, args ...any) error {
	t := p.peek()
	return fmt.Errorf("%w at position %d near %s: %s", errWriteSyntax, t.start, t, fmt.Sprintf(format, args...))
}

func (p *wparser) expectKw(kws ...string) error {
	if !p.acceptKw(kws...) {
		return p.errorf("expected %s", strings.Join(kws, " "))
	}
	return nil
}

func (p *wparser) expectSym(s string) error {
	if !p.acceptSym(s) {
		return p.errorf("expected '%s'", s)
	}
	return nil
}

func (p *wparser) ident() (string, error) {
	t := p.peek()
	if t.kind == wIdent || t.kind == wQuoted {
		p.pos++
		return t.text, nil
	}
	return "", p.errorf("expected an identifier")
}

// tableName parses [catalog.][db.]table (a catalog is ignored).
func (p *wparser) tableName() (db, name string, err error) {
	var parts []string
	for {
		s, err := p.ident()
		if err != nil {
			return "", "", err
		}
		parts = append(parts, s)
		if !p.acceptSym(".") {
			break
		}
	}
	switch len(parts) {
	case 1:
		return "", parts[0], nil
	case 2:
		return parts[0], parts[1], nil
	case 3:
		return parts[1], parts[2], nil
	}
	return "", "", p.errorf("table name %s has too many parts", strings.Join(parts, "."))
}

// exprUntil consumes one expression and returns its source text: tokens up
// to (not including) the first token at parenthesis and CASE depth 0 for
// which stop is true, or the end of the statement.
func (p *wparser) exprUntil(what string, stop func(wtok) bool) (string, error) {
	start := p.pos
	depth, cases := 0, 0
	for {
		t := p.peek()
		if t.kind == wEOF || t.sym(";") && depth == 0 {
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
func (p *wparser) parenGroup(what string) (string, error) {
	if err := p.expectSym("("); err != nil {
		return "", err
	}
	start := p.pos
	depth := 1
	for depth > 0 {
		t := p.next()
		switch {
		case t.kind == wEOF:
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

// identList parses ( a, b, … ); names may be qualified by qual.
func (p *wparser) identList(qual string) ([]string, error) {
	if err := p.expectSym("("); err != nil {
		return nil, err
	}
	var out []string
	for {
		name, err := p.columnRef(qual)
		if err != nil {
			return nil, err
		}
		out = append(out, name)
		if p.acceptSym(")") {
			return out, nil
		}
		if err := p.expectSym(","); err != nil {
			return nil, err
		}
	}
}

// columnRef parses a column name, optionally qualified by qual.
func (p *wparser) columnRef(qual string) (string, error) {
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

// end accepts an optional ';' and the end of the statement.
func (p *wparser) end() error {
	p.acceptSym(";")
	if p.peek().kind != wEOF {
		return p.errorf("unexpected text after the statement")
	}
	return nil
}

// startsWithWords reports whether the statement's first tokens are kws,
// cheaply rejecting statements that start with another word.
func startsWithWords(q string, kws ...string) bool {
	s := strings.TrimLeft(q, " \t\r\n\f\v")
	if !strings.HasPrefix(s, "/*") && !strings.HasPrefix(s, "#") && !strings.HasPrefix(s, "--") {
		if len(s) < len(kws[0]) || !strings.EqualFold(s[:len(kws[0])], kws[0]) {
			return false
		}
	}
	toks, err := wLex(q)
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
