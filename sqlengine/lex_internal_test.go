package sqlengine

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"
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

// TestStatementPrefilters checks the cheap tests that spare a whole-text
// lex against what they stand for, on random statements: containsFold
// against strings.Contains of the lower-cased text, firstTokenIs against
// the first token of Lex, and rewriteQuery/hasUnsupportedRange never
// changing their answer when mentionsSnapshotWords is false.
func TestStatementPrefilters(t *testing.T) {
	for _, q := range []string{"SELECT * FROM t FOR system_time BETWEEN 1 AND 2", "select * from t version as of 3",
		"SELECT * FROM t FOR TIMESTAMP FROM 1 TO 2", "select * from t$audit_log for versions between 1 and 2"} {
		if rewriteLexed(q) == q && !unsupportedRangeLexed(q) || !mentionsSnapshotWords(q) {
			t.Fatalf("%q: a snapshot form the word check must let through", q)
		}
	}
	seed := time.Now().UnixNano()
	r := rand.New(rand.NewSource(seed))
	parts := []string{"INSERT", "into", "t", "VALUES", "(", ")", ",", "'a b'", "1", "select", "do", "Show", "kill", "SET",
		"version", "Versions", "timestamp", "SYSTEM_TIME", "for", "as", "of", "between", "and", "/* c */", "-- x\n", " ", "\t",
		"mysql", ".", "user", "GRANTS", "current_user", "VERSIO", "TIMESTAM", "(", "`do`", "x'00'", "2026", "_"}
	for range 5000 {
		var b strings.Builder
		for range r.Intn(12) {
			b.WriteString(parts[r.Intn(len(parts))])
			if r.Intn(3) > 0 {
				b.WriteByte(' ')
			}
		}
		q := b.String()
		for _, w := range []string{"version", "timestamp", "system_time", "mysql", "grants", "current_user"} {
			if got, want := containsFold(q, w), strings.Contains(strings.ToLower(q), w); got != want {
				t.Fatalf("seed %d: containsFold(%q, %s) = %v, want %v", seed, q, w, got, want)
			}
		}
		words := []string{"DO", "SHOW", "KILL", "SET", "SELECT", "("}
		toks, err := Lex(q)
		want := err != nil || len(toks) == 0
		for _, w := range words {
			want = want || len(toks) > 0 && (toks[0].IsWord(w) || toks[0].IsSymbol(w))
		}
		if got := firstTokenIs(q, words...); got != want && err == nil {
			t.Fatalf("seed %d: firstTokenIs(%q) = %v, want %v", seed, q, got, want)
		}
		if !mentionsSnapshotWords(q) {
			if rewriteLexed(q) != q || unsupportedRangeLexed(q) {
				t.Fatalf("seed %d: %q has no snapshot word but is rewritten or refused", seed, q)
			}
		}
	}
}
