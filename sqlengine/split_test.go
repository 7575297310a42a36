package sqlengine_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/sqlengine"
)

func TestSplitStatements(t *testing.T) {
	for _, c := range []struct {
		in    string
		stmts []string
		rest  string
	}{
		{"SELECT 1; SELECT 2;", []string{"SELECT 1", "SELECT 2"}, ""},
		{"SELECT 1;\nSELECT 2", []string{"SELECT 1"}, "\nSELECT 2"},
		{"SELECT 'a;b'; SELECT `c;d`;", []string{"SELECT 'a;b'", "SELECT `c;d`"}, ""},
		{"SELECT 1 -- x;\n;", []string{"SELECT 1 -- x;"}, ""},
		{"SELECT /* ; */ 1;", []string{"SELECT /* ; */ 1"}, ""},
		{"INSERT INTO t VALUES ('it''s;');", []string{"INSERT INTO t VALUES ('it''s;')"}, ""},
		{"SELECT 1; SELECT 'open;", []string{"SELECT 1"}, " SELECT 'open;"},
		{"SELECT 1; /* open", []string{"SELECT 1"}, " /* open"},
		{";;  ;", nil, ""},
		{"SELECT 1; -- only a comment\n", []string{"SELECT 1"}, ""},
		{"", nil, ""},
	} {
		stmts, rest := sqlengine.SplitStatements(c.in)
		if !reflect.DeepEqual(stmts, c.stmts) || rest != c.rest {
			t.Errorf("SplitStatements(%q) = %q, %q; want %q, %q", c.in, stmts, rest, c.stmts, c.rest)
		}
	}
}

// FuzzSplitStatements: splitting never panics, each statement is non-empty
// and a substring of the script in order, and splitting the statements
// joined with ';' again gives the same statements.
func FuzzSplitStatements(f *testing.F) {
	for _, s := range []string{"SELECT 1; SELECT 'a;b'", "SELECT `x;` -- c;\n;", "/* ; */ SELECT 2;", "SELECT 'open", "\"a\\\";\";;"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		stmts, rest := sqlengine.SplitStatements(script)
		pos := 0
		for _, s := range stmts {
			if s == "" {
				t.Fatalf("empty statement from %q", script)
			}
			i := strings.Index(script[pos:], s)
			if i < 0 {
				t.Fatalf("statement %q is not in order in %q", s, script)
			}
			pos += i + len(s)
			_ = sqlengine.StatementKind(s)
		}
		if rest != "" && !strings.HasSuffix(script, rest) {
			t.Fatalf("rest %q is not the end of %q", rest, script)
		}
		again, _ := sqlengine.SplitStatements(strings.Join(stmts, "\n;\n") + "\n;")
		if len(stmts) > 0 && !reflect.DeepEqual(again, stmts) {
			t.Fatalf("re-splitting %q gives %q", stmts, again)
		}
	})
}
