package sqlengine

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/procedures"
)

// argsText renders parsed arguments as name=>kind:value for comparison.
func argsText(st *callStmt) string {
	var parts []string
	for _, a := range st.args {
		kind := map[procedures.ValueKind]string{procedures.KindNull: "null", procedures.KindString: "s",
			procedures.KindNumber: "n", procedures.KindBool: "b"}[a.Value.Kind]
		p := fmt.Sprintf("%s:%s", kind, a.Value)
		if a.Name != "" {
			p = a.Name + "=>" + p
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}

func TestParseCall(t *testing.T) {
	for _, c := range []struct {
		q, catalog, proc, args string
	}{
		{"CALL sys.create_tag('db.t', 'v1')", "", "create_tag", "s:db.t, s:v1"},
		{"call SYS.Create_Tag(table => 'db.t', tag => 'v1');", "", "create_tag", "table=>s:db.t, tag=>s:v1"},
		// The design document's call, verbatim: catalog prefix, Spark's
		// double-quoted partition spec.
		{`CALL paimon.sys.compact(table => 'orders', partitions => "dt='2026-07-25'")`, "paimon", "compact",
			"table=>s:orders, partitions=>s:dt='2026-07-25'"},
		{"CALL `paimon`.`sys`.`rollback_to`(`table` => 't', snapshot_id => 3)", "paimon", "rollback_to", "table=>s:t, snapshot_id=>n:3"},
		// => inside strings is text, not an arrow.
		{"CALL sys.create_tag('t', 'a=>b', time_retained => '1 d')", "", "create_tag", "s:t, s:a=>b, time_retained=>s:1 d"},
		{`CALL sys.delete_tag(table => "x => 'y'", tag => 'p,q')`, "", "delete_tag", "table=>s:x => 'y', tag=>s:p,q"},
		{"CALL sys.expire_snapshots('t', -1, +2, NULL, 10)", "", "expire_snapshots", "s:t, n:-1, n:2, null:NULL, n:10"},
		{"CALL sys.remove_orphan_files(table => 't', dry_run => true)", "", "remove_orphan_files", "table=>s:t, dry_run=>b:TRUE"},
		{"CALL sys.x()", "", "x", ""},
		{"CALL sys.x ( 't' ) /* c */ ; ", "", "x", "s:t"},
		{"CALL sys.create_tag('it''s', 'a\\'b')", "", "create_tag", "s:it's, s:a'b"},
		{"CALL sys.create_tag(table=>'t',tag=>'v')", "", "create_tag", "table=>s:t, tag=>s:v"},
	} {
		st, ok, err := parseCall(c.q)
		if !ok || err != nil {
			t.Errorf("%s: ok=%v err=%v", c.q, ok, err)
			continue
		}
		if st.catalog != c.catalog || st.proc != c.proc || argsText(st) != c.args {
			t.Errorf("%s:\n got catalog=%q proc=%q args=%q\nwant catalog=%q proc=%q args=%q", c.q, st.catalog, st.proc, argsText(st), c.catalog, c.proc, c.args)
		}
	}
}

func TestParseCallNotOurs(t *testing.T) {
	// Stored procedures and other statements go to GMS untouched.
	for _, q := range []string{"CALL p()", "CALL mydb.p(1)", "CALL a.b.c.d()", "SELECT 'CALL sys.x()'", "CALLX sys.x()", "CALL", "CALL 'sys'.x()"} {
		if _, ok, _ := parseCall(q); ok {
			t.Errorf("%s: taken by the CALL front", q)
		}
	}
}

func TestParseCallErrors(t *testing.T) {
	for _, c := range []struct{ q, want string }{
		{"CALL sys.x", "expected ("},
		{"CALL sys.x('a'", "expected , or )"},
		{"CALL sys.x('a' 'b')", "expected , or )"},
		{"CALL sys.x(a)", "must be a literal"},
		{"CALL sys.x(t => )", "must be a literal"},
		{"CALL sys.x(t = > 'a')", "must be a literal"},
		{"CALL sys.x('a') extra", "unexpected"},
		{"CALL sys.x(1 + 2)", "expected , or )"},
		{"CALL sys.x(now())", "must be a literal"},
		{"CALL sys.x(,)", "must be a literal"},
	} {
		_, ok, err := parseCall(c.q)
		if !ok || !errors.Is(err, errCallSyntax) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: ok=%v err=%v, want a syntax error mentioning %q", c.q, ok, err, c.want)
		}
	}
}
