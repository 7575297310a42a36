package sqlengine

import "testing"

func TestRewriteQuery(t *testing.T) {
	cases := map[string]string{
		"SELECT * FROM t FOR TIMESTAMP AS OF '2026-01-01 00:00:00'": "SELECT * FROM t FOR SYSTEM_TIME AS OF TIMESTAMP('2026-01-01 00:00:00')",
		"SELECT * FROM t TIMESTAMP AS OF '2026-01-01 00:00:00'":     "SELECT * FROM t FOR SYSTEM_TIME AS OF TIMESTAMP('2026-01-01 00:00:00')",
		"SELECT * FROM t FOR TIMESTAMP AS OF 1767225600":            "SELECT * FROM t FOR SYSTEM_TIME AS OF FROM_UNIXTIME(1767225600)",
		"SELECT * FROM t AS OF TIMESTAMP '2026-01-01 00:00:00'":     "SELECT * FROM t AS OF TIMESTAMP('2026-01-01 00:00:00')",
		"SELECT * FROM t VERSION AS OF 3":                           "SELECT * FROM t FOR VERSION AS OF 3",
		"SELECT * FROM t FOR VERSION AS OF 'tag1'":                  "SELECT * FROM t FOR VERSION AS OF 'tag1'",
		"SELECT * FROM t AS OF 3":                                   "SELECT * FROM t AS OF 3",
	}
	for in, want := range cases {
		if got := rewriteQuery(in); got != want {
			t.Errorf("rewriteQuery(%q) = %q, want %q", in, got, want)
		}
	}
	for _, q := range []string{"SELECT * FROM t AS OF ?", "select * from t as of timestamp(?)", "SELECT * FROM t FOR SYSTEM_TIME AS OF ?"} {
		if !asOfPlaceholder.MatchString(q) {
			t.Errorf("placeholder not detected in %q", q)
		}
	}
}
