package sqlengine_test

import (
	"reflect"
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
