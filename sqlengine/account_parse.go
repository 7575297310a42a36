package sqlengine

import (
	"strings"
)

// account_parse.go recognises, on the one lexer's tokens, the account
// statements the account layer (security.go) answers or rewrites itself
// because GMS v0.20.0's parser lacks them, and the statements that read
// the accounts.

// accountAt reads the account user[@host] at toks[i], spelt as MySQL
// spells one: each part a name, a 'string', a "string" or a `name`;
// unquoted parts may run on with . - % : (u@127.0.0.1, u@%) as MySQL's
// host-name lexing allows. host is "%" when omitted; next is the index
// after the account.
func accountAt(toks []Token, i int) (user, host string, next int, ok bool) {
	user, i, ok = accountPart(toks, i)
	if !ok {
		return "", "", 0, false
	}
	host = "%"
	if i < len(toks) && toks[i].Kind == lexVariable && !strings.HasPrefix(toks[i].Text(), "@@") {
		// u@h, 'u'@'h' and u@'h' lex as a name and a variable @h; u @ 'h'
		// as a name, a bare @ and a string.
		at := toks[i]
		if at.Text() == "@" {
			if i+1 < len(toks) && toks[i+1].Start == at.End && !isQuoted(toks[i+1]) {
				host, i = runOn(toks, i+1, at.End, "")
			} else if host, i, ok = accountPart(toks, i+1); !ok {
				return "", "", 0, false
			}
		} else if c := at.Text()[1]; c == '\'' || c == '"' || c == '`' {
			host, i = at.Value(), i+1
		} else {
			host, i = runOn(toks, i+1, at.End, at.Value())
		}
	}
	return user, host, i, true
}

// accountPart is one part of an account at toks[i]: a quoted name or
// string, or an unquoted run.
func accountPart(toks []Token, i int) (string, int, bool) {
	if i >= len(toks) {
		return "", 0, false
	}
	t := toks[i]
	if isQuoted(t) {
		return t.Value(), i + 1, true
	}
	if t.Kind != lexWord && t.Kind != lexNumber {
		return "", 0, false
	}
	s, next := runOn(toks, i+1, t.End, t.Text())
	return s, next, true
}

func isQuoted(t Token) bool { return t.Kind == lexString || t.Kind == lexQuotedIdent }

// runOn appends to s the tokens from toks[i] that follow end without a gap
// and may be part of an unquoted account name.
func runOn(toks []Token, i, end int, s string) (string, int) {
	for ; i < len(toks) && toks[i].Start == end; i++ {
		t := toks[i]
		if t.Kind != lexWord && t.Kind != lexNumber && !t.IsSymbol(".") && !t.IsSymbol("-") && !t.IsSymbol("%") && !t.IsSymbol(":") {
			break
		}
		s += t.Text()
		end = t.End
	}
	return s, i
}

// setPassword is SET PASSWORD [FOR account] = 'password', which GMS's
// parser lacks: account is the account as written ("" for one's own),
// password the string literal as written.
type setPassword struct{ account, password string }

func parseSetPassword(q string) (setPassword, bool) {
	if !startsWithWords(q, "SET", "PASSWORD") {
		return setPassword{}, false
	}
	toks, err := Lex(q)
	if err != nil {
		return setPassword{}, false
	}
	body := statementBody(toks)[2:]
	var sp setPassword
	if len(body) > 0 && body[0].IsWord("FOR") {
		eq := 1
		for eq < len(body) && !body[eq].IsSymbol("=") {
			eq++
		}
		if eq == 1 || eq == len(body) {
			return setPassword{}, false
		}
		sp.account = q[body[1].Start:body[eq-1].End]
		body = body[eq:]
	}
	if len(body) != 2 || !body[0].IsSymbol("=") || body[1].Kind != lexString {
		return setPassword{}, false
	}
	sp.password = body[1].Text()
	return sp, true
}

// alterRequireStmt is ALTER USER [IF EXISTS] account REQUIRE SSL | X509 |
// NONE, which GMS's parser lacks.
type alterRequireStmt struct {
	user, host string
	require    bool // SSL or X509; false: NONE
}

func parseAlterRequire(q string) (alterRequireStmt, bool) {
	if !startsWithWords(q, "ALTER", "USER") {
		return alterRequireStmt{}, false
	}
	toks, err := Lex(q)
	if err != nil {
		return alterRequireStmt{}, false
	}
	body := statementBody(toks)
	i := 2
	if tokensAre(body[i:], "IF", "EXISTS") {
		i += 2
	}
	user, host, i, ok := accountAt(body, i)
	if !ok || len(body) != i+2 || !body[i].IsWord("REQUIRE") {
		return alterRequireStmt{}, false
	}
	switch t := body[i+1]; {
	case t.IsWord("SSL"), t.IsWord("X509"):
		return alterRequireStmt{user, host, true}, true
	case t.IsWord("NONE"):
		return alterRequireStmt{user, host, false}, true
	}
	return alterRequireStmt{}, false
}

// isShowOwnGrants reports whether q is SHOW GRANTS [FOR CURRENT_USER[()]],
// which MySQL always allows (GMS v0.20.0 wants SELECT on mysql for it).
func isShowOwnGrants(q string) bool {
	if !startsWithWords(q, "SHOW", "GRANTS") {
		return false
	}
	toks, err := lexLimit(q, mysqlDialect, 8) // SHOW GRANTS FOR CURRENT_USER ( ) ; EOF
	if err != nil || toks[len(toks)-1].Kind != lexEOF {
		return false
	}
	body := statementBody(toks)
	return len(body) == 2 || tokensAre(body[2:], "FOR", "CURRENT_USER") && (len(body) == 4 || len(body) == 6 && tokensAre(body[4:], "(", ")"))
}

// readsAccounts reports whether a statement reads the accounts (a table of
// the mysql database, SHOW GRANTS, CURRENT_USER): those compare the stored
// accounts' version first. Statements without those words are not lexed.
func readsAccounts(q string) bool {
	if !containsFold(q, "mysql") && !containsFold(q, "grants") && !containsFold(q, "current_user") {
		return false
	}
	toks, err := Lex(q)
	if err != nil {
		return false // GMS reports the error
	}
	for i, t := range toks[:len(toks)-1] {
		next := toks[i+1]
		switch {
		case t.IsIdent() && strings.EqualFold(t.Value(), "mysql") && next.IsSymbol("."),
			t.IsWord("SHOW") && next.IsWord("GRANTS"),
			t.IsWord("CURRENT_USER"):
			return true
		}
	}
	return false
}

// containsFold reports whether s contains the lower-case ASCII word w in
// any case.
func containsFold(s, w string) bool {
	for i := 0; i+len(w) <= len(s); i++ {
		j := 0
		for j < len(w) && lowerASCII(s[i+j]) == w[j] {
			j++
		}
		if j == len(w) {
			return true
		}
	}
	return false
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
