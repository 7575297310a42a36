package sqlengine

import (
	"context"
	"strings"

	"github.com/dolthub/vitess/go/mysql"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"

	"github.com/lakesql/lakesql/provider"
)

// handler wraps GMS's MySQL protocol handler with lakesql's query front:
// time-travel spellings GMS's parser lacks are rewritten, and statements GMS
// would crash on are rejected with an error.
type handler struct {
	mysql.Handler
}

func wrapHandler(h mysql.Handler) (mysql.Handler, error) { return &handler{Handler: h}, nil }

// rewriteQuery turns the time-travel spellings of other MySQL-protocol
// Paimon engines into ones GMS parses. It works on tokens (lex.go), so text
// inside string literals, comments and quoted identifiers is never changed:
//
//	[FOR] VERSION AS OF x          → FOR VERSION AS OF x
//	[FOR] TIMESTAMP AS OF '…'      → FOR SYSTEM_TIME AS OF TIMESTAMP('…')
//	[FOR] TIMESTAMP AS OF 1767225600 → FOR SYSTEM_TIME AS OF FROM_UNIXTIME(1767225600)
//	[FOR] TIMESTAMP AS OF expr     → FOR SYSTEM_TIME AS OF expr
//	AS OF TIMESTAMP '…'            → AS OF TIMESTAMP('…')
//
// and the snapshot ranges of $audit_log and $binlog, whose operands must be
// literals, into an AS OF value the provider recognizes (GMS v0.20.0 parses
// these ranges but cannot resolve a table with them):
//
//	FOR VERSION BETWEEN s AND e            (snapshot ids or tags)
//	FOR TIMESTAMP|SYSTEM_TIME BETWEEN '…' AND '…'   (or epoch seconds)
//	  → FOR SYSTEM_TIME AS OF CONCAT('\0lakesql-incremental-between\0KIND\0', s, '\0', e)
//
// A statement that does not lex is returned unchanged (GMS reports it).
func rewriteQuery(q string) string {
	if !mentionsSnapshotWords(q) {
		return q // every form above has one of these words
	}
	return rewriteLexed(q)
}

// rewriteLexed is rewriteQuery without the word check.
func rewriteLexed(q string) string {
	toks, err := Lex(q)
	if err != nil {
		return q
	}
	var edits []edit
	for i := 0; i+3 < len(toks); i++ {
		t := toks[i]
		switch {
		case t.IsWord("FOR") && i+5 < len(toks) && toks[i+2].IsWord("BETWEEN") && toks[i+4].IsWord("AND"):
			if kind := rangeKind(toks[i+1], toks[i+3], toks[i+5]); kind != "" {
				edits = append(edits, edit{t.Start, toks[i+5].End, "FOR SYSTEM_TIME AS OF CONCAT('\\0lakesql-incremental-between\\0" +
					kind + "\\0', " + toks[i+3].Text() + ", '\\0', " + toks[i+5].Text() + ")"})
				i += 5
			}
		case t.IsWord("VERSION") && tokensAre(toks[i+1:], "AS", "OF"):
			if i == 0 || !toks[i-1].IsWord("FOR") {
				edits = append(edits, edit{t.Start, t.Start, "FOR "})
			}
			i += 2
		case t.IsWord("TIMESTAMP") && tokensAre(toks[i+1:], "AS", "OF"):
			start := t.Start
			if i > 0 && toks[i-1].IsWord("FOR") {
				start = toks[i-1].Start
			}
			x := toks[i+3]
			switch {
			case x.Kind == lexString:
				edits = append(edits, edit{start, x.End, "FOR SYSTEM_TIME AS OF TIMESTAMP(" + x.Text() + ")"})
				i += 3
			case x.Kind == lexNumber && isDigits(x.Text()):
				edits = append(edits, edit{start, x.End, "FOR SYSTEM_TIME AS OF FROM_UNIXTIME(" + x.Text() + ")"})
				i += 3
			default:
				edits = append(edits, edit{start, toks[i+2].End, "FOR SYSTEM_TIME AS OF"})
				i += 2
			}
		case t.IsWord("AS") && tokensAre(toks[i+1:], "OF", "TIMESTAMP") && toks[i+3].Kind == lexString:
			edits = append(edits, edit{toks[i+2].Start, toks[i+3].End, "TIMESTAMP(" + toks[i+3].Text() + ")"})
			i += 3
		}
	}
	return splice(q, edits)
}

// mentionsSnapshotWords reports whether q contains VERSION, TIMESTAMP or
// SYSTEM_TIME in any case (as a word or not): without one, rewriteQuery and
// hasUnsupportedRange have nothing to do, and a 1,000-row INSERT is not
// lexed for them.
func mentionsSnapshotWords(q string) bool {
	// One pass over q (containsFold of each word would be three).
	for i := 0; i < len(q); i++ {
		var w string
		switch q[i] | 0x20 { // only 'V'/'v', 'T'/'t', 'S'/'s' map to these
		case 'v':
			w = "version"
		case 't':
			w = "timestamp"
		case 's':
			w = "system_time"
		default:
			continue
		}
		if len(q)-i >= len(w) && hasPrefixFold(q[i:], w) {
			return true
		}
	}
	return false
}

// hasPrefixFold reports whether s starts with w (lower case) in any case
// of its ASCII letters, as containsFold compares.
func hasPrefixFold(s, w string) bool {
	for j := 0; j < len(w); j++ {
		if lowerASCII(s[j]) != w[j] {
			return false
		}
	}
	return true
}

// rangeKind classifies FOR <what> BETWEEN a AND b with literal operands:
// "version" (snapshot ids or tag names), "timestamp" (two strings) or
// "unixtime" (two numbers of seconds); "" when it is not such a range.
func rangeKind(what, a, b Token) string {
	lit := func(t Token) bool { return t.Kind == lexString || t.Kind == lexNumber && isDigits(t.Text()) }
	if !lit(a) || !lit(b) {
		return ""
	}
	switch {
	case what.IsWord("VERSION"):
		return "version"
	case what.IsWord("TIMESTAMP") || what.IsWord("SYSTEM_TIME"):
		if a.Kind == lexString && b.Kind == lexString {
			return "timestamp"
		}
		if a.Kind == lexNumber && b.Kind == lexNumber {
			return "unixtime"
		}
	}
	return ""
}

// hasUnsupportedRange reports a FOR VERSION/TIMESTAMP/SYSTEM_TIME BETWEEN
// (or FROM … TO, CONTAINED IN) that rewriteQuery does not turn into a
// snapshot range: operands that are not literals, or another form. GMS
// v0.20.0 would fail on it without a useful message.
func hasUnsupportedRange(q string) bool {
	if !mentionsSnapshotWords(q) {
		return false
	}
	return unsupportedRangeLexed(q)
}

// unsupportedRangeLexed is hasUnsupportedRange without the word check.
func unsupportedRangeLexed(q string) bool {
	toks, err := Lex(q)
	if err != nil {
		return false
	}
	for i := 0; i+2 < len(toks); i++ {
		if !toks[i].IsWord("FOR") {
			continue
		}
		w, op := toks[i+1], toks[i+2]
		if !(w.IsWord("VERSION") || w.IsWord("TIMESTAMP") || w.IsWord("SYSTEM_TIME")) {
			continue
		}
		if op.IsWord("FROM") || op.IsWord("CONTAINED") || op.IsWord("ALL") {
			return true
		}
		if op.IsWord("BETWEEN") && !(i+5 < len(toks) && toks[i+4].IsWord("AND") && rangeKind(w, toks[i+3], toks[i+5]) != "") {
			return true
		}
	}
	for i := 0; i+1 < len(toks); i++ {
		if toks[i].IsWord("VERSIONS") && (toks[i+1].IsWord("BETWEEN") || toks[i+1].IsWord("FROM") || toks[i+1].IsWord("ALL") || toks[i+1].IsWord("CONTAINED")) {
			return true
		}
	}
	return false
}

// errUnsupportedRange is the error for a snapshot range lakesql cannot take
// (1235).
func errUnsupportedRange() error {
	return mysql.NewSQLError(mysql.ERNotSupportedYet, mysql.SSClientError,
		"lakesql: a snapshot range is written FOR VERSION BETWEEN s AND e (snapshot ids or tags) or FOR TIMESTAMP BETWEEN '…' AND '…', with literal operands, on `t$audit_log` or `t$binlog`")
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// asOfEnd are the words that end the AS OF expression of a table factor.
var asOfEnd = map[string]bool{
	"WHERE": true, "JOIN": true, "INNER": true, "LEFT": true, "RIGHT": true, "CROSS": true, "NATURAL": true,
	"STRAIGHT_JOIN": true, "ON": true, "USING": true, "GROUP": true, "ORDER": true, "LIMIT": true, "HAVING": true,
	"WINDOW": true, "UNION": true, "EXCEPT": true, "INTERSECT": true, "AS": true, "FOR": true, "LOCK": true,
	"INTO": true, "SET": true, "VALUES": true, "SELECT": true, "RETURNING": true,
}

// hasAsOfPlaceholder reports whether a statement has a ? placeholder in an
// AS OF expression (AS OF ?, FOR SYSTEM_TIME AS OF ?, FOR TIMESTAMP AS OF ?,
// AS OF TIMESTAMP ?, AS OF TIMESTAMP(?), …), which GMS v0.20.0 crashes on
// when the statement is prepared. A ? inside a literal or comment is text.
func hasAsOfPlaceholder(q string) bool {
	toks, err := Lex(q)
	if err != nil {
		return false
	}
	for i := 0; i+1 < len(toks); i++ {
		if !toks[i].IsWord("AS") || !toks[i+1].IsWord("OF") {
			continue
		}
		depth := 0
		for j := i + 2; j < len(toks); j++ {
			t := toks[j]
			if t.Kind == lexPlaceholder {
				return true
			}
			if t.Kind == lexEOF || depth == 0 && (t.IsSymbol(",") || t.IsSymbol(")") || t.IsSymbol(";") ||
				t.Kind == lexWord && asOfEnd[strings.ToUpper(t.Text())]) {
				break
			}
			if t.IsSymbol("(") {
				depth++
			} else if t.IsSymbol(")") {
				depth--
			}
		}
	}
	return false
}

// errAsOfPlaceholder is the error for a prepared AS OF ? (1235).
func errAsOfPlaceholder() error {
	return mysql.NewSQLError(mysql.ERNotSupportedYet, mysql.SSClientError,
		"lakesql: AS OF with a ? placeholder is not supported in prepared statements; use a literal snapshot id, tag or timestamp (or client-side interpolation)")
}

func (h *handler) ComQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) error {
	if hasUnsupportedRange(query) {
		return errUnsupportedRange()
	}
	return provider.SQLError(h.Handler.ComQuery(ctx, c, rewriteQuery(query), callback))
}

func (h *handler) ComMultiQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) (string, error) {
	rest, err := h.Handler.ComMultiQuery(ctx, c, rewriteQuery(query), callback)
	return rest, provider.SQLError(err)
}

func (h *handler) ComPrepare(ctx context.Context, c *mysql.Conn, query string, prepare *mysql.PrepareData) ([]*querypb.Field, error) {
	if hasAsOfPlaceholder(query) {
		return nil, errAsOfPlaceholder()
	}
	if hasUnsupportedRange(query) {
		return nil, errUnsupportedRange()
	}
	fields, err := h.Handler.ComPrepare(ctx, c, rewriteQuery(query), prepare)
	return fields, provider.SQLError(err)
}
