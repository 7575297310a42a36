package sqlengine

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// randomStatement builds statements from pieces that lex into every token
// kind, comments and errors (unterminated strings and comments).
func randomStatement(r *rand.Rand) string {
	pieces := []string{"SELECT", " ", "a", "`b c`", "'x''y'", `"q\"z"`, "12", "1.5e3", "?", "@v", "@@session.x", "<=>", ",",
		"(", ")", "-- c\n", "/* c */", "#c\n", "/*!80000 x */", "mysql.user", "Grants", "CURRENT_USER", "'", "/*", "é", "\t", ";"}
	var b strings.Builder
	for range 1 + r.IntN(12) {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// TestLexMemoEqualsLexing: the memoised lexer (every length, with and
// without a token limit, from many goroutines whose statements share the
// memo's slots) returns what lexing the text returns.
func TestLexMemoEqualsLexing(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 99))
			for range 3000 {
				s := randomStatement(r)
				if r.IntN(50) == 0 {
					s = strings.Repeat(s+" ", maxMemoLex/len(s+" ")+1) // too long for the memo
				}
				limit := 0
				if r.IntN(3) == 0 {
					limit = 1 + r.IntN(4)
				}
				for range 2 { // a miss, then (unless another goroutine took the slot) a hit
					got, gotErr := lexLimit(s, mysqlDialect, limit)
					want, wantErr := lexText(s, mysqlDialect, limit)
					if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || len(got) != len(want) || len(want) > 0 && !reflect.DeepEqual(got, want) {
						errs <- fmt.Errorf("lexLimit(%q, %d) = %v, %v; lexing gives %v, %v", s, limit, got, gotErr, want, wantErr)
						return
					}
					if limit == 0 && len(s) <= maxMemoLex && cap(got) != len(got) {
						errs <- fmt.Errorf("lexLimit(%q, %d): capacity %d > length %d: an append would write into the shared tokens", s, limit, cap(got), len(got))
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestParseDDLFirstTokenCheck: parseDDL (which skips statements whose first
// token is not CREATE, ALTER or SHOW) answers what parsing every statement
// whole answers (what tryDDL reads of it), for random statements: DDL, other statements, comments
// (executable ones too), unterminated strings and comments.
func TestParseDDLFirstTokenCheck(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	heads := []string{"", " ", "CREATE TABLE t (a INT)", "create table ", "ALTER TABLE t ADD c INT", "alter\ttable t ", "SHOW CREATE TABLE t",
		"SHOW CREATE PAIMON TABLE t", "SELECT 1", "/*!80000 CREATE TABLE x (a INT) */", "-- c\n", "--c\nCREATE TABLE u (b INT)", "# x\n",
		"/* c */ ALTER TABLE t ", "(", "'", "CREATE\u00a0TABLE ", "ALTER", "CREATE", "SHOW"}
	for range 20000 {
		var b strings.Builder
		for range 1 + r.IntN(3) {
			b.WriteString(heads[r.IntN(len(heads))])
		}
		b.WriteString(randomStatement(r))
		q := b.String()
		s1, ok1, err1 := parseDDL(q)
		s2, ok2, err2 := parseDDLText(q)
		// (tryDDL reads the statement and error only when ok)
		if ok1 != ok2 || ok1 && (fmt.Sprint(err1) != fmt.Sprint(err2) || fmt.Sprintf("%#v", s1) != fmt.Sprintf("%#v", s2)) {
			t.Fatalf("parseDDL(%q) = %#v, %v, %v; parsed whole: %#v, %v, %v", q, s1, ok1, err1, s2, ok2, err2)
		}
	}
}
