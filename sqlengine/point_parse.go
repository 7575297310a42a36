package sqlengine

import (
	"hash/maphash"
	"slices"
	"strings"
	"sync/atomic"
)

// pointStmt is a statement of the point-query shape
//
//	SELECT * | col [, col …] FROM [db.]table WHERE col = lit [AND col = lit …] [;]
//
// with lit an integer or decimal number (optionally negative), a quoted
// string or a ? placeholder. Anything else (comments that hold SQL,
// expressions, other clauses) is not one.
type pointStmt struct {
	db, table string
	cols      []string // nil: *
	keys      []pointLit
	// shape is the statement with its literals replaced by their kinds:
	// statements of one shape differ only in their key values.
	shape string
}

// pointLit is one `col = literal`.
type pointLit struct {
	col  string
	kind byte   // 'i' integer, 'd' decimal, 's' string, '?' placeholder
	text string // the number's text, the string's value
}

// parsePointStmt recognises a point query on tokens; ok is false for any
// other statement.
func parsePointStmt(q string) (*pointStmt, bool) {
	head := strings.TrimLeft(q, " \t\r\n")
	if len(q) > 4096 || len(head) < 6 || !strings.EqualFold(head[:6], "SELECT") {
		return nil, false
	}
	if strings.Contains(q, "/*") {
		return nil, false // executable comments run as SQL; keep it simple
	}
	toks, err := Lex(q)
	if err != nil {
		return nil, false
	}
	p := &pointStmt{}
	var shape strings.Builder
	i := 0
	next := func() Token {
		t := toks[i]
		if t.Kind != lexEOF {
			i++
		}
		shape.WriteString(t.Text())
		shape.WriteByte(' ')
		return t
	}
	peek := func() Token { return toks[i] }
	if !next().IsWord("SELECT") {
		return nil, false
	}
	if peek().IsSymbol("*") {
		next()
	} else {
		for {
			t := next()
			if !t.IsIdent() || isReserved(t) {
				return nil, false
			}
			p.cols = append(p.cols, t.Value())
			if !peek().IsSymbol(",") {
				break
			}
			next()
		}
	}
	if !next().IsWord("FROM") {
		return nil, false
	}
	t := next()
	if !t.IsIdent() || isReserved(t) {
		return nil, false
	}
	p.table = t.Value()
	if peek().IsSymbol(".") {
		next()
		t = next()
		if !t.IsIdent() || isReserved(t) {
			return nil, false
		}
		p.db, p.table = p.table, t.Value()
	}
	if !next().IsWord("WHERE") {
		return nil, false
	}
	for {
		c := next()
		if !c.IsIdent() || isReserved(c) || !next().IsSymbol("=") {
			return nil, false
		}
		lit, ok := pointLiteral(toks, &i)
		if !ok {
			return nil, false
		}
		lit.col = c.Value()
		p.keys = append(p.keys, lit)
		shape.WriteByte(lit.kind)
		shape.WriteByte(' ')
		if !peek().IsWord("AND") {
			break
		}
		next()
	}
	if peek().IsSymbol(";") {
		next()
	}
	if peek().Kind != lexEOF {
		return nil, false
	}
	p.shape = shape.String()
	return p, true
}

// pointLiteral reads a literal at toks[*i].
func pointLiteral(toks []Token, i *int) (pointLit, bool) {
	t := toks[*i]
	neg := false
	if t.IsSymbol("-") {
		neg = true
		*i++
		t = toks[*i]
	}
	switch t.Kind {
	case lexPlaceholder:
		if neg {
			return pointLit{}, false
		}
		*i++
		return pointLit{kind: '?'}, true
	case lexString:
		// Only plain quoted strings: not N'…', X'…', B'…' or _charset'…'.
		if neg || len(t.Text()) == 0 || (t.Text()[0] != '\'' && t.Text()[0] != '"') {
			return pointLit{}, false
		}
		*i++
		return pointLit{kind: 's', text: t.Value()}, true
	case lexNumber:
		s := t.Text()
		dot, digits := -1, 0
		for j := 0; j < len(s); j++ {
			switch {
			case s[j] >= '0' && s[j] <= '9':
				digits++
			case s[j] == '.' && dot < 0:
				dot = j
			default:
				return pointLit{}, false // exponents, hexadecimal, binary
			}
		}
		if digits == 0 || dot == 0 || dot == len(s)-1 {
			return pointLit{}, false
		}
		if neg {
			s = "-" + s
		}
		*i++
		if dot < 0 {
			return pointLit{kind: 'i', text: s}, true
		}
		return pointLit{kind: 'd', text: s}, true
	}
	return pointLit{}, false
}

// isReserved reports unquoted words that are not column or table names
// here.
func isReserved(t Token) bool {
	if t.Kind != lexWord {
		return false
	}
	return reservedWord(t.Text())
}

// reservedWord reports whether w is one of reservedWords in any case (as
// strings.EqualFold compares; an ASCII word can equal one only of its
// length, so only those are compared).
func reservedWord(w string) bool {
	ascii := true
	for i := 0; i < len(w); i++ {
		if w[i] >= 0x80 {
			ascii = false
			break
		}
	}
	for _, kw := range reservedWords {
		if ascii && len(w) != len(kw) {
			continue
		}
		if strings.EqualFold(w, kw) {
			return true
		}
	}
	return false
}

// reservedWords are the words isReserved knows.
var reservedWords = []string{"SELECT", "FROM", "WHERE", "AND", "OR", "NOT", "NULL", "TRUE", "FALSE", "AS", "OF", "FOR", "LIMIT",
	"ORDER", "GROUP", "HAVING", "UNION", "JOIN", "INTO", "DISTINCT", "ALL", "DUAL", "LOCK", "SHARE", "IN",
	"IS", "LIKE", "BETWEEN", "DEFAULT", "BINARY", "COLLATE", "INTERVAL", "CASE", "EXISTS", "SYSTEM_TIME", "VERSION"}

// preparedPointStmt is parsePointStmt of a prepared statement's text,
// remembered across executions (a 64-slot memo by a hash of the text, as
// lexMemo): each execution gets its own copy of the keys to bind.
func preparedPointStmt(q string) (*pointStmt, bool) {
	slot := &pointStmtMemo[maphash.String(lexMemoSeed, q)%uint64(len(pointStmtMemo))]
	if e := slot.Load(); e != nil && e.q == q {
		if e.ps == nil {
			return nil, false
		}
		ps := *e.ps
		ps.keys = slices.Clone(e.ps.keys)
		return &ps, true
	}
	ps, ok := parsePointStmt(q)
	e := &pointStmtMemoEntry{q: q}
	if ok {
		tmpl := *ps
		tmpl.keys = slices.Clone(ps.keys)
		e.ps = &tmpl
	}
	slot.Store(e)
	return ps, ok
}

var pointStmtMemo [64]atomic.Pointer[pointStmtMemoEntry]

type pointStmtMemoEntry struct {
	q  string
	ps *pointStmt // nil: not a point statement
}
