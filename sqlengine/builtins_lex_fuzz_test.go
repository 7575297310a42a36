package sqlengine

import (
	"strings"
	"testing"
)

// FuzzFixLexing: the rewrite for vitess changes no token of the statement
// as MySQL reads it (same kinds and values, in order), leaves no two
// adjacent minus signs and no `\_` or `\%` escape in a string, and returns
// a statement that does not lex unchanged.
func FuzzFixLexing(f *testing.F) {
	for _, s := range []string{
		`SELECT --21255`, `SELECT 5---2`, `SELECT 1---`, "SELECT 1 --\tx\nFROM t", `SELECT 1--`,
		`SELECT * FROM t WHERE s LIKE '%\_%' OR s LIKE "%\%%"`, `SELECT 'a\'\_', 'it''s --1', '\\_'`,
		"SELECT `a--b`, /* --1 '\\_' */ 2 # --3 '\\_'", `SET @'v\_w' = 1`, "SELECT @`a\\_` --1", `SELECT '\_`,
	} {
		f.Add(s)
	}
	type tk struct {
		kind lexKind
		val  string
	}
	lexed := func(q string) ([]tk, error) {
		toks, err := Lex(q)
		out := make([]tk, len(toks))
		for i, t := range toks {
			out[i] = tk{t.Kind, t.Value()}
		}
		return out, err
	}
	f.Fuzz(func(t *testing.T, q string) {
		got := fixLexing(q)
		want, err := lexed(q)
		if err != nil {
			if got != q {
				t.Fatalf("%q does not lex (%v) but was rewritten to %q", q, err, got)
			}
			return
		}
		toks, err := Lex(got)
		if err != nil {
			t.Fatalf("fixLexing(%q) = %q does not lex: %v", q, got, err)
		}
		have, _ := lexed(got)
		if len(have) != len(want) {
			t.Fatalf("fixLexing(%q) = %q: %d tokens, want %d", q, got, len(have), len(want))
		}
		for i := range want {
			if have[i] != want[i] {
				t.Fatalf("fixLexing(%q) = %q: token %d is %v, want %v", q, got, i, have[i], want[i])
			}
		}
		for _, x := range toks {
			if x.IsSymbol("-") && x.End < len(got) && got[x.End] == '-' {
				t.Fatalf("fixLexing(%q) = %q keeps -- at %d", q, got, x.Start)
			}
			if x.Kind != lexString {
				continue
			}
			s := x.Text()
			for j := 0; j+1 < len(s); j++ {
				if s[j] == '\\' {
					if s[j+1] == '_' || s[j+1] == '%' {
						t.Fatalf("fixLexing(%q) = %q keeps the escape %s in %s", q, got, s[j:j+2], s)
					}
					j++
				}
			}
		}
		if strings.Count(got, "\\") < strings.Count(q, "\\") {
			t.Fatalf("fixLexing(%q) = %q lost a backslash", q, got)
		}
	})
}
