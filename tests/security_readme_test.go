package tests

import (
	"os"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/sqlengine"
)

// readmeSQL returns the statements of the ```sql blocks of the README
// section that starts with heading, in order (```sql-norun blocks are
// left out).
func readmeSQL(t *testing.T, heading string) []string {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i := strings.Index(text, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("README has no section %q", heading)
	}
	text = text[i+len(heading)+2:]
	if j := strings.Index(text, "\n## "); j >= 0 {
		text = text[:j]
	}
	var stmts []string
	for {
		k := strings.Index(text, "```sql\n")
		if k < 0 {
			break
		}
		text = text[k+len("```sql\n"):]
		end := strings.Index(text, "```")
		if end < 0 {
			t.Fatal("unterminated ```sql block")
		}
		for _, s := range strings.Split(text[:end], ";\n") {
			if s = strings.TrimSpace(s); s != "" {
				stmts = append(stmts, strings.TrimSuffix(s, ";"))
			}
		}
		text = text[end+3:]
	}
	return stmts
}

// TestSecurityREADME runs the SQL of the README's "Users, privileges and
// TLS" section as written, as root on a fresh TLS server, and checks that
// the accounts it creates work as it says.
func TestSecurityREADME(t *testing.T) {
	stmts := readmeSQL(t, "## Users, privileges and TLS")
	if len(stmts) < 4 {
		t.Fatalf("README section has %d statements", len(stmts))
	}
	cert, key, pool := selfSignedCert(t, t.TempDir())
	registerTLS(t, "lakesql-readme", pool)
	srv := startSecure(t, sqlengine.Config{Warehouse: t.TempDir(), Security: sqlengine.SecurityConfig{TLSCert: cert, TLSKey: key}})
	root := mustConnect(t, srv.Addr(), "root", "", "", "")
	mustExec(t, root, stmts...)
	etl := mustConnect(t, srv.Addr(), "etl", "etl-secret", "", "")
	mustExec(t, etl, "CREATE DATABASE readme", "CREATE TABLE readme.t (id BIGINT PRIMARY KEY)", "INSERT INTO readme.t VALUES (1)")
	_, err := connectAs(t, srv.Addr(), "analyst", "analyst-secret", "", "")
	wantErrNumber(t, "analyst (REQUIRE SSL) without TLS", err, 1045)
	an := mustConnect(t, srv.Addr(), "analyst", "analyst-secret", "readme", "tls=lakesql-readme")
	_, err = an.Exec("INSERT INTO t VALUES (2)")
	wantErrNumber(t, "analyst writes", err, 1142)
	// SET PASSWORD for one's own account.
	mustExec(t, etl, "SET PASSWORD = 'etl-new'")
	_, err = connectAs(t, srv.Addr(), "etl", "etl-secret", "", "")
	wantErrNumber(t, "etl's old password", err, 1045)
	mustConnect(t, srv.Addr(), "etl", "etl-new", "", "")
}
