package sqlengine

import (
	"reflect"
	"testing"
)

func TestLex(t *testing.T) {
	type tk struct {
		kind lexKind
		val  string
	}
	cases := map[string][]tk{
		"SELECT 'a''b', \"c\\\"d\", `e``f`": {{lexWord, "SELECT"}, {lexString, "a'b"}, {lexSymbol, ","}, {lexString, `c"d`}, {lexSymbol, ","}, {lexQuotedIdent, "e`f"}},
		"a<=>b -- c\n#d\n/* e */ f":         {{lexWord, "a"}, {lexSymbol, "<=>"}, {lexWord, "b"}, {lexWord, "f"}},
		"x--1":                              {{lexWord, "x"}, {lexSymbol, "-"}, {lexSymbol, "-"}, {lexNumber, "1"}},
		"1.5e-3 .5 0x1F 12abc ?":            {{lexNumber, "1.5e-3"}, {lexNumber, ".5"}, {lexNumber, "0x1F"}, {lexWord, "12abc"}, {lexPlaceholder, "?"}},
		"@a @@session.x @'q r' t$1":         {{lexVariable, "a"}, {lexVariable, "session.x"}, {lexVariable, "q r"}, {lexWord, "t$1"}},
		`'\n\%'`:                            {{lexString, "\n\\%"}},
		"/*!80000 SELECT */ 1":              {{lexNumber, "1"}},
	}
	for in, want := range cases {
		toks, err := Lex(in)
		if err != nil {
			t.Errorf("Lex(%q): %v", in, err)
			continue
		}
		var got []tk
		for _, x := range toks[:len(toks)-1] {
			got = append(got, tk{x.Kind, x.Value()})
			if in[x.Start:x.End] != x.Text() {
				t.Errorf("Lex(%q): token %q at [%d,%d)", in, x.Text(), x.Start, x.End)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Lex(%q) = %v, want %v", in, got, want)
		}
	}
	for _, bad := range []string{"'abc", "`abc", "/* abc", `"a\"`} {
		if _, err := Lex(bad); err == nil {
			t.Errorf("Lex(%q): no error", bad)
		}
	}
}

func TestSQLStringLiteralRoundTrip(t *testing.T) {
	for _, s := range []string{"", "a'b", `c\d`, "e\nf\x00g\x1a", `\%_`, "日本"} {
		toks, err := Lex(sqlStringLiteral(s))
		if err != nil || len(toks) != 2 || toks[0].Kind != lexString || toks[0].Value() != s {
			t.Errorf("sqlStringLiteral(%q) = %s lexes as %v, %v", s, sqlStringLiteral(s), toks, err)
		}
	}
}

// FuzzRewriteQuery: the lexer never panics, tokens are the source's bytes,
// and the time-travel rewrite leaves every string literal and quoted
// identifier as it was.
func FuzzRewriteQuery(f *testing.F) {
	for _, s := range []string{"SELECT * FROM t VERSION AS OF 3 WHERE s = 'VERSION AS OF 3'",
		"SELECT 'TIMESTAMP AS OF 7' FROM t TIMESTAMP AS OF '2026-01-01'", "select `a` from t as of timestamp 'x' # c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		toks, err := Lex(q)
		if err != nil {
			return
		}
		var before []string
		for _, x := range toks {
			if q[x.Start:x.End] != x.Text() {
				t.Fatalf("token %q is not the source at [%d,%d)", x.Text(), x.Start, x.End)
			}
			if x.Kind == lexString || x.Kind == lexQuotedIdent {
				before = append(before, x.Text())
			}
		}
		after, err := Lex(rewriteQuery(q))
		if err != nil {
			t.Fatalf("rewrite of %q does not lex: %v", q, err)
		}
		var got []string
		for _, x := range after {
			if x.Kind == lexString || x.Kind == lexQuotedIdent {
				got = append(got, x.Text())
			}
		}
		if !reflect.DeepEqual(before, got) {
			t.Fatalf("rewrite of %q changed literals: %q → %q", q, before, got)
		}
	})
}
