package sqlengine

import (
	"fmt"
	"strings"
)

// The parser the statement fronts share: the tokens of one statement from
// the one lexer (lex.go, in the front's dialect) and recursive-descent
// helpers over them. The DDL front (ddl_parse.go) and the write front
// (merge_parse.go, overwrite_parse.go, merge_lex.go) add their grammar as
// methods of parser; a syntax error wraps the front's sentinel (MySQL
// 1064).

type tokKind int

const (
	tokEOF tokKind = iota
	tokIdent
	tokQuotedIdent
	tokString
	tokNumber
	tokSymbol
)

type token struct {
	kind       tokKind
	text       string // identifier/symbol/number text, or the unquoted string value
	start, end int    // byte offsets in the statement
	exec       int    // n > 0: inside the n-th executable comment /*!…*/ (DDL dialect)
}

func (t token) String() string {
	switch t.kind {
	case tokEOF:
		return "end of statement"
	case tokString:
		return "'" + t.text + "'"
	case tokQuotedIdent:
		return "`" + t.text + "`"
	}
	return "'" + t.text + "'"
}

// is reports whether t is the unquoted keyword kw.
func (t token) is(kw string) bool { return t.kind == tokIdent && strings.EqualFold(t.text, kw) }

// sym reports whether t is the symbol s.
func (t token) sym(s string) bool { return t.kind == tokSymbol && t.text == s }

// tokens splits a statement into the parser's tokens with the shared lexer
// in dialect d; a lexical error wraps syntaxErr.
func tokens(s string, d lexDialect, syntaxErr error) ([]token, error) {
	return tokensLimit(s, d, syntaxErr, 0)
}

// tokensLimit is tokens of at most limit tokens (lexLimit).
func tokensLimit(s string, d lexDialect, syntaxErr error, limit int) ([]token, error) {
	toks, err := lexLimit(s, d, limit)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", syntaxErr, err)
	}
	out := make([]token, len(toks))
	for i, t := range toks {
		k := tokSymbol // and ? and @variables, which no front's grammar has
		switch t.Kind {
		case lexEOF:
			k = tokEOF
		case lexWord:
			k = tokIdent
		case lexQuotedIdent:
			k = tokQuotedIdent
		case lexString:
			k = tokString
		case lexNumber:
			k = tokNumber
		}
		out[i] = token{kind: k, text: t.Value(), start: t.Start, end: t.End, exec: t.Exec}
	}
	return out, nil
}

// parser is a recursive-descent parser over the tokens of one statement.
type parser struct {
	src       string
	toks      []token
	pos       int
	syntaxErr error // wrapped by errorf
}

func (p *parser) peek() token { return p.toks[p.pos] }

func (p *parser) peekAt(n int) token {
	if p.pos+n < len(p.toks) {
		return p.toks[p.pos+n]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) next() token {
	t := p.toks[p.pos]
	if t.kind != tokEOF {
		p.pos++
	}
	return t
}

func (p *parser) atKw(kws ...string) bool {
	for i, kw := range kws {
		if !p.peekAt(i).is(kw) {
			return false
		}
	}
	return true
}

// acceptKw consumes the keyword sequence kws if it is next.
func (p *parser) acceptKw(kws ...string) bool {
	if !p.atKw(kws...) {
		return false
	}
	p.pos += len(kws)
	return true
}

func (p *parser) errorf(format string, args ...any) error {
	t := p.peek()
	return fmt.Errorf("%w at position %d near %s: %s", p.syntaxErr, t.start, t, fmt.Sprintf(format, args...))
}

func (p *parser) expectKw(kws ...string) error {
	if !p.acceptKw(kws...) {
		return p.errorf("expected %s", strings.Join(kws, " "))
	}
	return nil
}

func (p *parser) atSym(s string) bool { return p.peek().sym(s) }

func (p *parser) acceptSym(s string) bool {
	if p.atSym(s) {
		p.pos++
		return true
	}
	return false
}

func (p *parser) expectSym(s string) error {
	if !p.acceptSym(s) {
		return p.errorf("expected '%s'", s)
	}
	return nil
}

func (p *parser) ident() (string, error) {
	t := p.peek()
	if t.kind == tokIdent || t.kind == tokQuotedIdent {
		p.pos++
		return t.text, nil
	}
	return "", p.errorf("expected an identifier")
}

func (p *parser) str() (string, error) {
	t := p.peek()
	if t.kind == tokString {
		p.pos++
		return t.text, nil
	}
	return "", p.errorf("expected a quoted string")
}

// parenList parses ( item, item, … ) with at least one item.
func (p *parser) parenList(item func() (string, error)) ([]string, error) {
	if err := p.expectSym("("); err != nil {
		return nil, err
	}
	var out []string
	for {
		s, err := item()
		if err != nil {
			return nil, err
		}
		out = append(out, s)
		if p.acceptSym(")") {
			return out, nil
		}
		if err := p.expectSym(","); err != nil {
			return nil, err
		}
	}
}

// tableName parses [catalog.][db.]table; a catalog qualifier is ignored.
func (p *parser) tableName() (db, name string, err error) {
	parts := []string{}
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

// end accepts an optional ';' and the end of the statement.
func (p *parser) end() error {
	p.acceptSym(";")
	if p.peek().kind != tokEOF {
		return p.errorf("unexpected text after the statement")
	}
	return nil
}
