package sqlengine

import (
	"errors"
	"fmt"
	"strings"

	"github.com/lakesql/lakesql/procedures"
)

// callStmt is `CALL [catalog.]sys.proc(args)`, Paimon's procedure call as
// Flink and Spark spell it: arguments are positional, named (`name =>
// value`, the name optionally backquoted), or positional ones followed by
// named ones. Values are literals: strings ('…' or Spark's "…"), numbers
// (with an optional sign), TRUE/FALSE and NULL.
type callStmt struct {
	catalog string // "" without a catalog prefix
	proc    string // the procedure name, lower case
	args    []procedures.Arg
	// params are the indexes in args of `?` placeholders, in order (only
	// a statement prepared server-side has them).
	params []int
}

// errCallSyntax marks a CALL sys.* statement that does not parse (1064).
var errCallSyntax = errors.New("syntax error in CALL")

// parseCall parses query when it is a call of a sys.* procedure. ok is
// false for every other statement, including CALL of a stored procedure
// (`CALL p()`, `CALL db.p()` with db other than sys), which GMS runs.
func parseCall(query string) (stmt *callStmt, ok bool, err error) {
	return parseCallWith(query, false)
}

// parseCallPrepared is parseCall for a statement prepared server-side:
// arguments may be `?` placeholders.
func parseCallPrepared(query string) (stmt *callStmt, ok bool, err error) {
	return parseCallWith(query, true)
}

func parseCallWith(query string, placeholders bool) (stmt *callStmt, ok bool, err error) {
	toks, lerr := Lex(query)
	if lerr != nil || len(toks) < 2 || !toks[0].IsWord("CALL") {
		return nil, false, nil
	}
	// The qualified name: sys.proc or catalog.sys.proc.
	var parts []Token
	i := 1
	for {
		if !toks[i].IsIdent() {
			break
		}
		parts = append(parts, toks[i])
		i++
		if !toks[i].IsSymbol(".") {
			break
		}
		i++
	}
	st := &callStmt{}
	switch {
	case len(parts) == 2 && strings.EqualFold(parts[0].Value(), "sys"):
	case len(parts) == 3 && strings.EqualFold(parts[1].Value(), "sys"):
		st.catalog = parts[0].Value()
	default:
		return nil, false, nil
	}
	st.proc = strings.ToLower(parts[len(parts)-1].Value())
	name := "sys." + st.proc
	if !toks[i].IsSymbol("(") {
		return nil, true, fmt.Errorf("%w: expected ( after %s", errCallSyntax, name)
	}
	i++
	if toks[i].IsSymbol(")") {
		i++
	} else {
		for {
			if placeholders && isParam(toks, i) {
				st.params = append(st.params, len(st.args))
			}
			arg, next, err := parseCallArg(toks, i, placeholders)
			if err != nil {
				return nil, true, fmt.Errorf("%w: %s: %v", errCallSyntax, name, err)
			}
			st.args = append(st.args, arg)
			i = next
			if toks[i].IsSymbol(",") {
				i++
				continue
			}
			if toks[i].IsSymbol(")") {
				i++
				break
			}
			return nil, true, fmt.Errorf("%w: %s: expected , or ) near %s", errCallSyntax, name, near(query, toks[i]))
		}
	}
	if toks[i].IsSymbol(";") {
		i++
	}
	if toks[i].Kind != lexEOF {
		return nil, true, fmt.Errorf("%w: %s: unexpected %s after the arguments", errCallSyntax, name, near(query, toks[i]))
	}
	return st, true, nil
}

// parseCallArg parses one argument starting at toks[i]: `[name =>] value`.
func parseCallArg(toks []Token, i int, placeholders bool) (procedures.Arg, int, error) {
	var arg procedures.Arg
	if toks[i].IsIdent() && isArrow(toks[i+1:]) {
		arg.Name = toks[i].Value()
		i += 3
	}
	t := toks[i]
	switch {
	case placeholders && t.Kind == lexPlaceholder:
		return arg, i + 1, nil // bound at execution
	case t.Kind == lexString:
		arg.Value = procedures.StringValue(t.Value())
		return arg, i + 1, nil
	case t.Kind == lexNumber:
		arg.Value = procedures.NumberValue(t.Text())
		return arg, i + 1, nil
	case (t.IsSymbol("-") || t.IsSymbol("+")) && toks[i+1].Kind == lexNumber && toks[i+1].Start == t.End:
		sign := ""
		if t.IsSymbol("-") {
			sign = "-"
		}
		arg.Value = procedures.NumberValue(sign + toks[i+1].Text())
		return arg, i + 2, nil
	case t.IsWord("TRUE"), t.IsWord("FALSE"):
		arg.Value = procedures.BoolValue(t.IsWord("TRUE"))
		return arg, i + 1, nil
	case t.IsWord("NULL"):
		arg.Value = procedures.NullValue()
		return arg, i + 1, nil
	case t.Kind == lexEOF:
		return arg, i, errors.New("unexpected end of statement")
	}
	return arg, i, fmt.Errorf("an argument must be a literal (a string, number, TRUE, FALSE or NULL), not %q", t.Text())
}

// isParam reports whether the argument at toks[i] is a placeholder.
func isParam(toks []Token, i int) bool {
	if toks[i].IsIdent() && isArrow(toks[i+1:]) {
		i += 3
	}
	return toks[i].Kind == lexPlaceholder
}

// isArrow reports whether toks starts with `=>` (two adjacent symbols to
// the lexer).
func isArrow(toks []Token) bool {
	return len(toks) >= 2 && toks[0].IsSymbol("=") && toks[1].IsSymbol(">") && toks[0].End == toks[1].Start
}

// near quotes the statement text at a token for an error message.
func near(query string, t Token) string {
	if t.Kind == lexEOF {
		return "the end of the statement"
	}
	rest := query[t.Start:]
	if len(rest) > 40 {
		rest = rest[:40] + "…"
	}
	return fmt.Sprintf("'%s'", rest)
}
