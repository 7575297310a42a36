package sqlengine

import "testing"

func FuzzParseCall(f *testing.F) {
	for _, s := range []string{
		"CALL sys.create_tag('t', 'v1')",
		`CALL paimon.sys.compact(table => 'orders', partitions => "dt='2026-07-25'")`,
		"CALL sys.x(a => -1, b => TRUE, NULL)",
		"CALL sys.x('unterminated",
		"CALL `sys`.`x`(`table` => 'a=>b')",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		st, ok, err := parseCall(q)
		if ok && err == nil && (st == nil || st.proc == "") {
			t.Fatalf("%q: parsed without a procedure", q)
		}
	})
}
