package sqlengine

import (
	"fmt"
	"hash/maphash"
	"strings"
	"sync/atomic"
)

// lex.go is the one SQL lexer of lakesql's statement fronts. It splits a
// statement the way MySQL 8.0 does (default sql_mode: "…" is a string, not
// an identifier) into tokens that keep their byte offsets, so a front can
// recognise a statement on tokens and rewrite it by splicing the source
// text between tokens: text inside string literals, comments and quoted
// identifiers is never looked at as SQL and never edited.
//
// Every front reads statements through it: the time-travel rewrite
// (handler.go), the statement front (statement_front.go), statement
// splitting (split.go), CALL (call_parse.go), MERGE/OVERWRITE
// (merge_lex.go), the account statements (account_parse.go), SHOW
// COLLATION and SHOW TABLE STATUS in MySQL's dialect (Lex), the
// MAX_EXECUTION_TIME hint (limits.go) in hintDialect, the DDL front (ddl_parse.go) in
// the Flink DDL dialect (lexWith(s, ddlDialect): Flink strings, executable
// comments lexed, one-byte symbols so ARRAY<ARRAY<INT>> nests).

// lexKind is the kind of a Token.
type lexKind uint8

const (
	lexEOF         lexKind = iota
	lexWord                // unquoted identifier or keyword
	lexQuotedIdent         // `identifier`
	lexString              // '…' or "…" (also the '…' of N'…', X'…', B'…', _charset'…')
	lexNumber              // 12, 1.5, .5, 1e-3, 0x1F, 0b101
	lexPlaceholder         // ?
	lexVariable            // @name, @@name, @'quoted', @@session.name
	lexSymbol              // operators and punctuation; multi-byte ones (<=, <=>, :=, ->>) are one token
	lexHint                // an optimizer-hint comment /*+ … */ (hintDialect only); Value is the text inside
)

// Token is one lexical token of a statement. src[Start:End] is its text as
// written.
type Token struct {
	Kind       lexKind
	Start, End int
	// Exec is n > 0 for a token inside the n-th executable comment /*!…*/
	// of the statement (ddlDialect only; MySQL's dialect skips comments).
	Exec  int
	text  string // the source text
	value string // unquoted identifier / unescaped string value
}

// Text returns the token as written in the statement.
func (t Token) Text() string { return t.text }

// Value returns an unquoted identifier, the unescaped value of a string,
// a variable's name (without @ or @@, unquoted), the text inside a hint
// comment, or the text of any other token.
func (t Token) Value() string {
	if t.Kind == lexQuotedIdent || t.Kind == lexString || t.Kind == lexVariable || t.Kind == lexHint {
		return t.value
	}
	return t.text
}

// IsWord reports whether t is the unquoted word kw (case-insensitive).
func (t Token) IsWord(kw string) bool { return t.Kind == lexWord && strings.EqualFold(t.text, kw) }

// IsSymbol reports whether t is the symbol s.
func (t Token) IsSymbol(s string) bool { return t.Kind == lexSymbol && t.text == s }

// IsIdent reports whether t names something: an unquoted word or a
// backquoted identifier.
func (t Token) IsIdent() bool { return t.Kind == lexWord || t.Kind == lexQuotedIdent }

// LexError is a lexical error (unterminated string, identifier or comment).
type LexError struct {
	Pos int
	Msg string
}

func (e *LexError) Error() string { return fmt.Sprintf("%s at position %d", e.Msg, e.Pos) }

// Lex splits s into tokens, skipping whitespace and comments (`-- `, `#`,
// `/* */`, including MySQL's executable `/*! */` comments, which are left
// untouched for GMS). The last token is lexEOF at len(s).
func Lex(s string) ([]Token, error) { return lexWith(s, mysqlDialect) }

// lexDialect is what differs between the spellings the fronts read.
type lexDialect struct {
	// flinkStrings: a backslash in a string is an ordinary character
	// (Flink SQL), not MySQL's escape.
	flinkStrings bool
	// execComments: the text of an executable comment /*!…*/ (with its
	// optional version number, which is ignored) is lexed, its tokens
	// marked with the comment's number (Token.Exec): the MySQL form of SHOW
	// CREATE TABLE keeps the Paimon-only parts in /*!99999 … */.
	execComments bool
	// oneByteSymbols: every symbol is one byte (the DDL front counts the <
	// and > of nested types).
	oneByteSymbols bool
	// signedNumbers: a '-' directly before a digit starts a number.
	signedNumbers bool
	// anyDashComment: "--" starts a comment even without a space after it.
	anyDashComment bool
	// hints: an optimizer-hint comment /*+ … */ is a lexHint token instead
	// of a skipped comment (MySQL reads one right after SELECT, INSERT,
	// REPLACE, UPDATE and DELETE; the reader checks where it stands).
	hints bool
}

var (
	mysqlDialect = lexDialect{}
	ddlDialect   = lexDialect{flinkStrings: true, execComments: true, oneByteSymbols: true, signedNumbers: true, anyDashComment: true}
	hintDialect  = lexDialect{hints: true}
)

func lexWith(s string, d lexDialect) ([]Token, error) { return lexLimit(s, d, 0) }

// lexLimit is lexWith stopping after limit tokens (0: no limit) outside
// executable comments: a truncated result ends without lexEOF, and text
// after it is not checked.
func lexLimit(s string, d lexDialect, limit int) ([]Token, error) {
	if d != mysqlDialect || len(s) > maxMemoLex {
		return lexText(s, d, limit)
	}
	// The fronts of the handler chain each read the statement: it is
	// lexed once and its tokens shared (read-only: callers never write
	// to a token slice, and its capacity is its length so an append
	// copies).
	slot := &lexMemo[maphash.String(lexMemoSeed, s)%uint64(len(lexMemo))]
	if e := slot.Load(); e != nil && e.s == s {
		switch {
		case limit == 0:
			return e.toks, e.err
		case e.err != nil:
		case len(e.toks)-1 > limit: // more tokens than the limit: the first ones
			return e.toks[:limit:limit], nil
		case len(e.toks)-1 < limit: // fewer: all, with lexEOF
			return e.toks, nil
		}
	}
	if limit > 0 {
		return lexText(s, d, limit)
	}
	toks, err := lexText(s, d, 0)
	toks = toks[:len(toks):len(toks)]
	slot.Store(&lexMemoEntry{s: s, toks: toks, err: err})
	return toks, err
}

// maxMemoLex: longer statements (multi-row INSERTs) are not kept.
const maxMemoLex = 4 << 10

// lexMemo holds the tokens of recent statements in MySQL's dialect, by a
// hash of their text.
var lexMemo [64]atomic.Pointer[lexMemoEntry]

var lexMemoSeed = maphash.MakeSeed()

type lexMemoEntry struct {
	s    string
	toks []Token
	err  error
}

// lexText lexes s (lexLimit without the memo).
func lexText(s string, d lexDialect, limit int) ([]Token, error) {
	n := min(len(s)/4+2, 256)
	if limit > 0 {
		n = min(n, limit+1)
	}
	out := make([]Token, 0, n)
	i := 0
	exec, execs, execStart := 0, 0, 0
	for i < len(s) {
		if limit > 0 && len(out) >= limit && exec == 0 {
			return out, nil
		}
		c := s[i]
		n0 := len(out)
		switch {
		case exec > 0 && c == '*' && i+1 < len(s) && s[i+1] == '/':
			exec = 0
			i += 2
		case d.execComments && exec == 0 && c == '/' && strings.HasPrefix(s[i:], "/*!"):
			execs++
			exec, execStart = execs, i
			i += 3
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				i++
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '#' || c == '-' && strings.HasPrefix(s[i:], "--") && (d.anyDashComment || i+2 == len(s) || isSpaceOrControl(s[i+2])):
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			j := strings.Index(s[i+2:], "*/")
			if j < 0 {
				return nil, &LexError{Pos: i, Msg: "unterminated comment"}
			}
			if d.hints && exec == 0 && i+2 < len(s) && s[i+2] == '+' {
				out = append(out, Token{Kind: lexHint, Start: i, End: i + j + 4, text: s[i : i+j+4], value: s[i+3 : i+j+2]})
			}
			i += j + 4
		case d.signedNumbers && c == '-' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			j := scanNumber(s, i+1)
			out = append(out, Token{Kind: lexNumber, Start: i, End: j, text: s[i:j]})
			i = j
		case c == '\'' || c == '"' || c == '`':
			end, val, err := lexQuoted(s, i, d.flinkStrings)
			if err != nil {
				return nil, err
			}
			k := lexString
			if c == '`' {
				k = lexQuotedIdent
			}
			out = append(out, Token{Kind: k, Start: i, End: end, text: s[i:end], value: val})
			i = end
		case c == '@':
			j := i + 1
			if j < len(s) && s[j] == '@' {
				j++
			}
			if j < len(s) && (s[j] == '\'' || s[j] == '"' || s[j] == '`') {
				end, val, err := lexQuoted(s, j, d.flinkStrings)
				if err != nil {
					return nil, err
				}
				out = append(out, Token{Kind: lexVariable, Start: i, End: end, text: s[i:end], value: val})
				i = end
				continue
			}
			name := j
			for j < len(s) && (isWordByte(s[j]) || s[j] == '.') {
				j++
			}
			out = append(out, Token{Kind: lexVariable, Start: i, End: j, text: s[i:j], value: s[name:j]})
			i = j
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			j := scanNumber(s, i)
			if j < len(s) && isWordByte(s[j]) {
				// 123abc is an identifier in MySQL.
				for j < len(s) && isWordByte(s[j]) {
					j++
				}
				out = append(out, Token{Kind: lexWord, Start: i, End: j, text: s[i:j]})
			} else {
				out = append(out, Token{Kind: lexNumber, Start: i, End: j, text: s[i:j]})
			}
			i = j
		case isWordByte(c):
			j := i
			for j < len(s) && isWordByte(s[j]) {
				j++
			}
			out = append(out, Token{Kind: lexWord, Start: i, End: j, text: s[i:j]})
			i = j
		case c == '?':
			out = append(out, Token{Kind: lexPlaceholder, Start: i, End: i + 1, text: "?"})
			i++
		default:
			n := 1
			if !d.oneByteSymbols {
				n = symbolLen(s[i:])
			}
			out = append(out, Token{Kind: lexSymbol, Start: i, End: i + n, text: s[i : i+n]})
			i += n
		}
		if exec > 0 {
			for k := n0; k < len(out); k++ {
				out[k].Exec = exec
			}
		}
	}
	if exec > 0 {
		return nil, &LexError{Pos: execStart, Msg: "unterminated comment"}
	}
	return append(out, Token{Kind: lexEOF, Start: len(s), End: len(s)}), nil
}

// lexQuoted reads the quoted token starting at s[i] (', " or `): the end
// offset and the unescaped value. Doubled quotes stand for one; in strings
// a backslash escapes the next byte (MySQL's default sql_mode) unless
// flink.
func lexQuoted(s string, i int, flink bool) (end int, val string, err error) {
	q := s[i]
	var b strings.Builder
	j := i + 1
	for {
		if j >= len(s) {
			what := "string"
			if q == '`' {
				what = "quoted identifier"
			}
			return 0, "", &LexError{Pos: i, Msg: "unterminated " + what}
		}
		d := s[j]
		switch {
		case d == '\\' && q != '`' && !flink && j+1 < len(s):
			b.WriteString(unescapeByte(s[j+1]))
			j += 2
		case d == q && j+1 < len(s) && s[j+1] == q:
			b.WriteByte(q)
			j += 2
		case d == q:
			return j + 1, b.String(), nil
		default:
			b.WriteByte(d)
			j++
		}
	}
}

// unescapeByte is MySQL's backslash escape; \% and \_ keep their backslash
// (they are LIKE escapes).
func unescapeByte(c byte) string {
	switch c {
	case 'n':
		return "\n"
	case 't':
		return "\t"
	case 'r':
		return "\r"
	case '0':
		return "\x00"
	case 'Z':
		return "\x1a"
	case 'b':
		return "\b"
	case '%', '_':
		return "\\" + string(c)
	}
	return string(c)
}

func scanNumber(s string, i int) int {
	j := i
	if s[j] == '0' && j+1 < len(s) && (s[j+1] == 'x' || s[j+1] == 'X' || s[j+1] == 'b' || s[j+1] == 'B') {
		k := j + 2
		for k < len(s) && isHexByte(s[k]) {
			k++
		}
		if k > j+2 {
			return k
		}
	}
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j < len(s) && s[j] == '.' {
		j++
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && s[k] >= '0' && s[k] <= '9' {
			for k < len(s) && s[k] >= '0' && s[k] <= '9' {
				k++
			}
			j = k
		}
	}
	return j
}

var multiSymbols = []string{"<=>", "->>", "<=", ">=", "<>", "!=", ":=", "||", "&&", "<<", ">>", "->"}

func symbolLen(s string) int {
	for _, m := range multiSymbols {
		if strings.HasPrefix(s, m) {
			return len(m)
		}
	}
	return 1
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

func isHexByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func isSpaceOrControl(c byte) bool { return c <= ' ' }

// tokensAre reports whether toks starts with the words and symbols in want
// (a symbol is written as itself, a word in any case).
func tokensAre(toks []Token, want ...string) bool {
	if len(toks) < len(want) {
		return false
	}
	for i, w := range want {
		t := toks[i]
		if !t.IsWord(w) && !t.IsSymbol(w) {
			return false
		}
	}
	return true
}

// statementBody is a statement's tokens without the lexEOF and a trailing
// ';'.
func statementBody(toks []Token) []Token {
	if n := len(toks); n > 0 && toks[n-1].Kind == lexEOF {
		toks = toks[:n-1]
	}
	if n := len(toks); n > 0 && toks[n-1].IsSymbol(";") {
		toks = toks[:n-1]
	}
	return toks
}

// splice rebuilds src with the byte ranges of edits replaced; edits are in
// order and do not overlap.
type edit struct {
	start, end int
	text       string
}

func splice(src string, edits []edit) string {
	if len(edits) == 0 {
		return src
	}
	var b strings.Builder
	pos := 0
	for _, e := range edits {
		b.WriteString(src[pos:e.start])
		b.WriteString(e.text)
		pos = e.end
	}
	b.WriteString(src[pos:])
	return b.String()
}

// sqlStringLiteral writes s as a single-quoted MySQL string literal.
func sqlStringLiteral(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\x00", `\0`, "\n", `\n`, "\r", `\r`, "\x1a", `\Z`)
	return "'" + r.Replace(s) + "'"
}
