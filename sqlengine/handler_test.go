package sqlengine

import "testing"

func TestRewriteQuery(t *testing.T) {
	cases := map[string]string{
		"SELECT * FROM t FOR TIMESTAMP AS OF '2026-01-01 00:00:00'": "SELECT * FROM t FOR SYSTEM_TIME AS OF TIMESTAMP('2026-01-01 00:00:00')",
		"SELECT * FROM t TIMESTAMP AS OF '2026-01-01 00:00:00'":     "SELECT * FROM t FOR SYSTEM_TIME AS OF TIMESTAMP('2026-01-01 00:00:00')",
		"SELECT * FROM t FOR TIMESTAMP AS OF 1767225600":            "SELECT * FROM t FOR SYSTEM_TIME AS OF FROM_UNIXTIME(1767225600)",
		"SELECT * FROM t for timestamp as of NOW()":                 "SELECT * FROM t FOR SYSTEM_TIME AS OF NOW()",
		"SELECT * FROM t AS OF TIMESTAMP '2026-01-01 00:00:00'":     "SELECT * FROM t AS OF TIMESTAMP('2026-01-01 00:00:00')",
		"SELECT * FROM t VERSION AS OF 3":                           "SELECT * FROM t FOR VERSION AS OF 3",
		"SELECT * FROM t version  as\nof 3":                         "SELECT * FROM t FOR version  as\nof 3",
		"SELECT * FROM t FOR VERSION AS OF 'tag1'":                  "SELECT * FROM t FOR VERSION AS OF 'tag1'",
		"SELECT * FROM t AS OF 3":                                   "SELECT * FROM t AS OF 3",
		"SELECT * FROM t /* c */ VERSION /* d */ AS OF 3":           "SELECT * FROM t /* c */ FOR VERSION /* d */ AS OF 3",
		// Issue 14 item 10: text inside literals, comments and quoted
		// identifiers is never rewritten.
		"INSERT INTO t VALUES (193, 1, 'see VERSION AS OF 3')":        "INSERT INTO t VALUES (193, 1, 'see VERSION AS OF 3')",
		"SELECT 'TIMESTAMP AS OF 7'":                                  "SELECT 'TIMESTAMP AS OF 7'",
		`SELECT "VERSION AS OF 3", 'it''s TIMESTAMP AS OF 7'`:         `SELECT "VERSION AS OF 3", 'it''s TIMESTAMP AS OF 7'`,
		`SELECT 'a\' VERSION AS OF 3'`:                                `SELECT 'a\' VERSION AS OF 3'`,
		"SELECT 1 -- VERSION AS OF 3\n":                               "SELECT 1 -- VERSION AS OF 3\n",
		"SELECT 1 # TIMESTAMP AS OF 7":                                "SELECT 1 # TIMESTAMP AS OF 7",
		"SELECT /* AS OF TIMESTAMP '2026-01-01' */ 1":                 "SELECT /* AS OF TIMESTAMP '2026-01-01' */ 1",
		"SELECT `VERSION AS OF 3` FROM t":                             "SELECT `VERSION AS OF 3` FROM t",
		"SELECT * FROM t VERSION AS OF 3 WHERE s = 'VERSION AS OF 4'": "SELECT * FROM t FOR VERSION AS OF 3 WHERE s = 'VERSION AS OF 4'",
		"SELECT 'unterminated VERSION AS OF 3":                        "SELECT 'unterminated VERSION AS OF 3",
		// Snapshot ranges of $audit_log / $binlog.
		"SELECT * FROM `t$audit_log` FOR VERSION BETWEEN 1 AND 5 WHERE id = 1":            "SELECT * FROM `t$audit_log` FOR SYSTEM_TIME AS OF CONCAT('\\0lakesql-incremental-between\\0version\\0', 1, '\\0', 5) WHERE id = 1",
		"SELECT * FROM `t$binlog` for version between 'a' and 'b'":                        "SELECT * FROM `t$binlog` FOR SYSTEM_TIME AS OF CONCAT('\\0lakesql-incremental-between\\0version\\0', 'a', '\\0', 'b')",
		"SELECT * FROM `t$audit_log` FOR TIMESTAMP BETWEEN '2026-01-01' AND '2026-02-01'": "SELECT * FROM `t$audit_log` FOR SYSTEM_TIME AS OF CONCAT('\\0lakesql-incremental-between\\0timestamp\\0', '2026-01-01', '\\0', '2026-02-01')",
		"SELECT * FROM `t$audit_log` FOR SYSTEM_TIME BETWEEN 1767225600 AND 1767225601":   "SELECT * FROM `t$audit_log` FOR SYSTEM_TIME AS OF CONCAT('\\0lakesql-incremental-between\\0unixtime\\0', 1767225600, '\\0', 1767225601)",
		// A column named version or timestamp in a WHERE clause is not a range.
		"SELECT * FROM t WHERE version BETWEEN 1 AND 5":         "SELECT * FROM t WHERE version BETWEEN 1 AND 5",
		"SELECT * FROM t WHERE `timestamp` BETWEEN '1' AND '2'": "SELECT * FROM t WHERE `timestamp` BETWEEN '1' AND '2'",
		"SELECT 'FOR VERSION BETWEEN 1 AND 5'":                  "SELECT 'FOR VERSION BETWEEN 1 AND 5'",
	}
	for in, want := range cases {
		if got := rewriteQuery(in); got != want {
			t.Errorf("rewriteQuery(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestHasAsOfPlaceholder(t *testing.T) {
	for q, want := range map[string]bool{
		"SELECT * FROM t AS OF ?":                              true,
		"select * from t as of timestamp(?)":                   true,
		"SELECT * FROM t AS OF TIMESTAMP ?":                    true,
		"SELECT * FROM t FOR SYSTEM_TIME AS OF ?":              true,
		"SELECT * FROM t FOR TIMESTAMP AS OF ?":                true,
		"SELECT * FROM t FOR VERSION AS OF ? WHERE id = 1":     true,
		"SELECT * FROM t AS OF (?) x JOIN u ON t.id = u.id":    true,
		"SELECT * FROM t AS OF 3 WHERE id = ?":                 false,
		"SELECT * FROM t AS OF 3 x JOIN u ON x.id = ?":         false,
		"SELECT 'AS OF ?'":                                     false,
		"SELECT * FROM t WHERE s = 'AS OF ?' AND id = ?":       false,
		"SELECT * FROM t /* AS OF ? */ WHERE id = ?":           false,
		"SELECT `AS OF ?` FROM t WHERE id = ?":                 false,
		"SELECT * FROM t AS OF TIMESTAMP '2026-01-01' LIMIT ?": false,
	} {
		if got := hasAsOfPlaceholder(q); got != want {
			t.Errorf("hasAsOfPlaceholder(%q) = %v, want %v", q, got, want)
		}
	}
}

func TestHasUnsupportedRange(t *testing.T) {
	for q, want := range map[string]bool{
		"SELECT * FROM `t$audit_log` FOR VERSION BETWEEN 1 AND 5":       false,
		"SELECT * FROM `t$audit_log` FOR TIMESTAMP BETWEEN '1' AND '2'": false,
		"SELECT * FROM `t$audit_log` FOR VERSION BETWEEN ? AND ?":       true,
		"SELECT * FROM `t$audit_log` FOR VERSION BETWEEN 1+1 AND 5":     true,
		"SELECT * FROM `t$audit_log` FOR VERSION FROM 1 TO 5":           true,
		"SELECT * FROM `t$audit_log` FOR SYSTEM_TIME ALL":               true,
		"SELECT * FROM `t$audit_log` VERSIONS BETWEEN 1 AND 5":          true,
		"SELECT * FROM `t$audit_log` FOR TIMESTAMP BETWEEN '1' AND 2":   true,
		"SELECT * FROM t WHERE version BETWEEN ? AND ?":                 false,
		"SELECT 'FOR VERSION BETWEEN ? AND ?'":                          false,
		"SELECT * FROM t FOR VERSION AS OF 3":                           false,
	} {
		if got := hasUnsupportedRange(q); got != want {
			t.Errorf("hasUnsupportedRange(%q) = %v, want %v", q, got, want)
		}
	}
}

func TestFitInfo(t *testing.T) {
	for in, want := range map[string]string{
		"Statement prepared":                                  "Statement prepared                 ",
		"Rows matched: 1  Changed: 1  Warnings: 0":            "Rows matched: 1  Changed: 1        ",
		"Records: 2  Duplicates: 0  Warnings: 0":              "Records: 2  Duplicates: 0          ",
		"Rows matched: 1234567890123  Changed: 1234567890123": "Rows matched: 1234567890123        ",
		"x" + string(make([]byte, 40)):                        "",
	} {
		got := fitInfo(in)
		if got != want || got != "" && len(got) != okInfoLen {
			t.Errorf("fitInfo(%q) = %q, want %q", in, got, want)
		}
	}
}
