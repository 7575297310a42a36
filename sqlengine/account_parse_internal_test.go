package sqlengine

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// The statements the account layer recognises, on tokens: the cases the
// regular expressions they replaced got wrong are marked.
func TestParseAccountStatements(t *testing.T) {
	sp := map[string]*setPassword{
		"SET PASSWORD FOR 'bob'@'%' = 'pw'":               {"'bob'@'%'", "'pw'"},
		"set password for bob@localhost='p''w';":          {"bob@localhost", "'p''w'"},
		"SET PASSWORD = 'own'":                            {"", "'own'"},
		"SET PASSWORD FOR 'a=b'@'%' = 'pw'":               {"'a=b'@'%'", "'pw'"},
		"SET PASSWORD = 'pw' -- a note":                   {"", "'pw'"},              // regex: no match
		"/* c */ SET PASSWORD FOR u = \"pw\"":             {"u", `"pw"`},             // regex: no match
		"SET PASSWORD FOR 'u'@'%' = 'x' /* = 'y' */":      {"'u'@'%'", "'x'"},        // regex: no match
		"SET PASSWORD FOR u = 'a' 'b'":                    nil,                       // two strings
		"SET PASSWORD = 'pw' RETAIN CURRENT PASSWORD":     nil,                       // GMS answers
		"SET @x = 'SET PASSWORD = 1'":                     nil,                       //
		"SET PASSWORD FOR = 'pw'":                         nil,                       //
		"SELECT 1; SET PASSWORD = 'x'":                    nil,                       //
		"SET PASSWORD FOR `we``ird`@`%` = 'pw'":           {"`we``ird`@`%`", "'pw'"}, //
		"SET PASSWORD FOR 'bob'@'%' = 'it''s \\' = here'": {"'bob'@'%'", `'it''s \' = here'`},
	}
	for q, want := range sp {
		got, ok := parseSetPassword(q)
		if ok != (want != nil) || ok && got != *want {
			t.Errorf("parseSetPassword(%q) = %+v, %v; want %+v", q, got, ok, want)
		}
	}

	ar := map[string]*alterRequireStmt{
		"ALTER USER 'plain'@'%' REQUIRE SSL":           {"plain", "%", true},
		"alter user plain require none;":               {"plain", "%", false},
		"ALTER USER IF EXISTS `b``q`@`h` REQUIRE X509": {"b`q", "h", true}, // regex: no match
		"ALTER USER u@localhost REQUIRE SSL":           {"u", "localhost", true},
		"ALTER USER u@127.0.0.1 REQUIRE NONE":          {"u", "127.0.0.1", false},
		"ALTER USER app-1@my-host.example REQUIRE SSL": {"app-1", "my-host.example", true},
		"ALTER USER 'u' @ 'h' REQUIRE SSL":             {"u", "h", true},
		"ALTER USER 'u'@% REQUIRE SSL":                 {"u", "%", true},
		"ALTER USER 'it''s'@'%' REQUIRE SSL":           {"it's", "%", true},
		"ALTER USER 'a\\'b'@'%' REQUIRE SSL":           {"a'b", "%", true}, // regex: no match
		"ALTER USER u REQUIRE SSL -- note":             {"u", "%", true},   // regex: no match
		"ALTER /* c */ USER u REQUIRE SSL":             {"u", "%", true},   // regex: no match
		"ALTER USER u IDENTIFIED BY 'REQUIRE SSL'":     nil,
		"ALTER USER u REQUIRE CIPHER 'x'":              nil,
		"ALTER USER u REQUIRE SSL AND X509":            nil,
		"ALTER USER REQUIRE SSL":                       nil,
	}
	for q, want := range ar {
		got, ok := parseAlterRequire(q)
		if ok != (want != nil) || ok && got != *want {
			t.Errorf("parseAlterRequire(%q) = %+v, %v; want %+v", q, got, ok, want)
		}
	}

	for q, want := range map[string]bool{
		"SHOW GRANTS":                            true,
		"show grants for current_user;":          true,
		"SHOW GRANTS FOR CURRENT_USER ( )":       true,
		"SHOW GRANTS -- mine":                    true, // regex: no match
		"/* c */ SHOW GRANTS":                    true, // regex: no match
		"SHOW GRANTS FOR 'bob'@'%'":              false,
		"SHOW GRANTS FOR CURRENT_USER() USING r": false,
		"SELECT 'SHOW GRANTS'":                   false,
	} {
		if got := isShowOwnGrants(q); got != want {
			t.Errorf("isShowOwnGrants(%q) = %v", q, got)
		}
	}

	for q, want := range map[string]bool{
		"SELECT user FROM mysql.user":       true,
		"select * from Mysql . db":          true,
		"SELECT * FROM `mysql`.`user`":      true, // regex: no match
		"SELECT CURRENT_USER()":             true,
		"show grants for 'bob'":             true,
		"SELECT 'mysql.user', 'grants'":     false, // regex: matched
		"SELECT mysql_col FROM t":           false,
		"SELECT 1 -- CURRENT_USER":          false, // regex: matched
		"INSERT INTO t VALUES ('x')":        false,
		"SELECT `current_user` FROM grants": false,
	} {
		if got := readsAccounts(q); got != want {
			t.Errorf("readsAccounts(%q) = %v", q, got)
		}
	}
}

func TestContainsFold(t *testing.T) {
	for _, c := range []struct {
		s, w string
		want bool
	}{{"SELECT CURRENT_USER()", "current_user", true}, {"a MySQL b", "mysql", true}, {"mysq", "mysql", false},
		{"CURRENTxUSER", "current_user", false}, {"", "a", false}} {
		if got := containsFold(c.s, c.w); got != c.want {
			t.Errorf("containsFold(%q, %q) = %v", c.s, c.w, got)
		}
		if got := strings.Contains(strings.ToLower(c.s), c.w); got != c.want {
			t.Errorf("model disagrees on %q", c.s)
		}
	}
}

func TestMaxExecutionTimeHint(t *testing.T) {
	for q, want := range map[string]int64{
		"SELECT /*+ MAX_EXECUTION_TIME(10) */ 1":                                     10,
		"select/*+max_execution_time( 7 )*/1":                                        7,
		"(SELECT /*+ MAX_EXECUTION_TIME(5) */ 1)":                                    5,
		"((SELECT /*+ MAX_EXECUTION_TIME(6) */ 1))":                                  6,  // regex: no match
		"/* c */ SELECT /*+ MAX_EXECUTION_TIME(5) */ 1":                              5,  // regex: no match
		"SELECT /*+ SET_VAR(sort_buffer_size = 16*1024) MAX_EXECUTION_TIME(20) */ 1": 20, // regex: no match
		"SELECT /*+ BKA(t1) MAX_EXECUTION_TIME(30) NO_ICP(t1) */ 1":                  30,
		"SELECT /*+ QB_NAME('MAX_EXECUTION_TIME(5)') */ 1":                           -1, // regex: 5
		"SELECT /* MAX_EXECUTION_TIME(5) */ 1":                                       -1,
		"SELECT 1, (SELECT /*+ MAX_EXECUTION_TIME(5) */ 2)":                          -1,
		"SELECT 'x /*+ MAX_EXECUTION_TIME(5) */'":                                    -1,
		"INSERT INTO t SELECT /*+ MAX_EXECUTION_TIME(5) */ 1":                        -1,
		"SELECT /*+ MAX_EXECUTION_TIME(1.5) */ 1":                                    -1,
		"SELECT /*+ MAX_EXECUTION_TIME(99999999999999999999) */ 1":                   -1, // out of range: ignored, as MySQL warns and ignores it
		"SELECT /*+ MAX_EXECUTION_TIME(5)":                                           -1,
		"SELECT 1 /*+ MAX_EXECUTION_TIME(5) */":                                      -1,
	} {
		ms, ok := maxExecutionTimeHint(q)
		if !ok {
			ms = -1
		}
		if ms != want {
			t.Errorf("maxExecutionTimeHint(%q) = %d, want %d", q, ms, want)
		}
	}
}

func TestRewriteShowCollationAndTableStatus(t *testing.T) {
	const coll = "FROM information_schema.collations"
	for q, want := range map[string]string{
		"SHOW COLLATION":                     coll + " ORDER BY",
		"show  collation like 'utf8mb4%';":   coll + " WHERE collation_name LIKE 'utf8mb4%' ORDER BY",
		"SHOW COLLATION LIKE 'a''b\\'c'":     coll + ` WHERE collation_name LIKE 'a''b\'c' ORDER BY`,
		"SHOW COLLATION LIKE 'utf8%' -- c":   coll + " WHERE collation_name LIKE 'utf8%' ORDER BY", // regex: no match
		"/* x */ SHOW COLLATION":             coll + " ORDER BY",                                   // regex: no match
		"SHOW COLLATION WHERE Charset = 'x'": "",
		"SELECT 'SHOW COLLATION'":            "",
		"SHOW COLLATION LIKE 'a' 'b' 'c'":    "",
	} {
		got := rewriteShowCollation(q)
		if want == "" && got != q || want != "" && !strings.Contains(got, want) {
			t.Errorf("rewriteShowCollation(%q) = %q, want it to contain %q", q, got, want)
		}
	}

	cur := func() (string, error) { return "cur", nil }
	const where = "FROM information_schema.tables WHERE table_schema = "
	for q, want := range map[string]string{
		"SHOW TABLE STATUS":                             where + "'cur' ORDER BY table_name",
		"show table status in d like 't%';":             where + "'d' AND table_name LIKE 't%' ORDER BY table_name",
		"SHOW TABLE STATUS FROM `my``db`":               where + "'my`db' ORDER BY",
		"SHOW TABLE STATUS FROM `it's`":                 where + `'it\'s' ORDER BY`,
		"SHOW TABLE STATUS WHERE `Comment` = ';'":       "AS `tables` WHERE `Comment` = ';' ORDER BY `Name`",
		"SHOW TABLE STATUS WHERE Name = 'a' -- why":     "AS `tables` WHERE Name = 'a' ORDER BY `Name`",   // regex: ORDER BY inside the comment
		"SHOW TABLE STATUS LIKE 't' /* c */":            where + "'cur' AND table_name LIKE 't' ORDER BY", // regex: no match
		"SHOW /* c */ TABLE STATUS":                     where + "'cur'",                                  // regex: no match
		"SHOW TABLE STATUS LIKE 't' WHERE Name = 'x'":   "",
		"SELECT 1 FROM t WHERE x = 'SHOW TABLE STATUS'": "",
	} {
		got, err := rewriteShowTableStatus(q, cur)
		if err != nil || want == "" && got != q || want != "" && !strings.Contains(got, want) {
			t.Errorf("rewriteShowTableStatus(%q) = %q, %v, want it to contain %q", q, got, err, want)
		}
	}
	if _, err := rewriteShowTableStatus("SHOW TABLE STATUS", func() (string, error) { return "", nil }); err == nil {
		t.Error("SHOW TABLE STATUS without a database: no error")
	}
}

// FuzzAccountStatements: the account statements' readers never panic on
// any text, and an account they read back lexes as the text it came from.
func FuzzAccountStatements(f *testing.F) {
	for _, s := range []string{"SET PASSWORD FOR 'bob'@'%' = 'pw'", "ALTER USER u@127.0.0.1 REQUIRE NONE",
		"ALTER USER 'u' @ REQUIRE SSL", "SHOW GRANTS FOR CURRENT_USER()", "SELECT * FROM `mysql`.user",
		"SELECT /*+ MAX_EXECUTION_TIME(5) */ 1", "SHOW TABLE STATUS WHERE", "SHOW COLLATION LIKE"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		if sp, ok := parseSetPassword(q); ok {
			toks, err := Lex(sp.password)
			if err != nil || len(toks) != 2 || toks[0].Kind != lexString {
				t.Fatalf("parseSetPassword(%q): password %q is not one string", q, sp.password)
			}
		}
		parseAlterRequire(q)
		isShowOwnGrants(q)
		readsAccounts(q)
		maxExecutionTimeHint(q)
		rewriteShowCollation(q)
		rewriteShowTableStatus(q, func() (string, error) { return "d", nil })
	})
}

// TestHintPrefilter: maxExecutionTimeHint skips lexing a statement without
// "/*+": on random statements built from hint-like pieces, the hint
// dialect makes a lexHint token only when the text holds "/*+".
func TestHintPrefilter(t *testing.T) {
	pieces := []string{"SELECT", " ", "/*", "+", "*/", "/*+ MAX_EXECUTION_TIME(5) */", "'", "`", "\"", "--", "#", "\n", "(", "1", "/", "*", "!", "x", ";"}
	r := rand.New(rand.NewPCG(11, 12))
	for range 50000 {
		var b strings.Builder
		for range 1 + r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		q := b.String()
		toks, _ := lexText(q, hintDialect, 0)
		hint := false
		for _, tk := range toks {
			hint = hint || tk.Kind == lexHint
		}
		if hint && !strings.Contains(q, "/*+") {
			t.Fatalf("%q: a hint token without /*+", q)
		}
	}
}
