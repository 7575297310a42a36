package tests

// TestReadmeSQL runs the SQL examples of README.md as a newcomer would:
// every fenced block whose info string is exactly `sql`, in file order,
// statement by statement, on one connection of a fresh server over an empty
// warehouse. Any error fails the test, naming the block's line and the
// statement.
//
// Conventions for README authors:
//   - ```sql blocks must run as written, after every ```sql block above
//     them (later blocks may use what earlier ones created);
//   - a block that cannot run on a fresh warehouse (it needs a tag made by
//     Flink, a placeholder like `SELECT ...`, a value you fill in) is fenced
//     ```sql-norun: it is shown highlighted like SQL by most renderers and
//     skipped here;
//   - statements end with `;`; `--`, `#` and `/* */` comments are allowed
//     anywhere (they are not sent to the server).

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/sqlengine"
)

type sqlBlock struct {
	line  int // 1-based line of the opening fence
	stmts []string
}

func TestReadmeSQL(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	readme := filepath.Join(filepath.Dir(file), "..", "README.md")
	blocks, err := readmeSQLBlocks(readme)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) < 2 {
		t.Fatalf("README.md has %d ```sql blocks; the Writing and Querying examples are expected", len(blocks))
	}
	srv, err := sqlengine.New(context.Background(), sqlengine.Config{Warehouse: t.TempDir(), Host: "127.0.0.1", Port: 0})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Start() }()
	t.Cleanup(func() {
		srv.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("server did not stop")
		}
	})
	db, err := sql.Open("mysql", fmt.Sprintf("root@tcp(%s)/?parseTime=true", srv.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	waitReady(t, db)
	ctx := context.Background()
	conn, err := db.Conn(ctx) // one session: USE carries over, as in the mysql CLI
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	n := 0
	for _, b := range blocks {
		for _, q := range b.stmts {
			n++
			rows, err := conn.QueryContext(ctx, q)
			if err == nil {
				for rows.Next() {
				}
				err = rows.Err()
				if cerr := rows.Close(); err == nil {
					err = cerr
				}
			}
			if err != nil {
				t.Errorf("README.md block at line %d: %s\n  error: %v", b.line, q, err)
			}
		}
	}
	if n == 0 {
		t.Fatal("no statements found in the ```sql blocks")
	}
	t.Logf("ran %d statements from %d ```sql blocks", n, len(blocks))
}

// readmeSQLBlocks returns the ```sql blocks of a Markdown file, split into
// statements.
func readmeSQLBlocks(path string) ([]sqlBlock, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var blocks []sqlBlock
	var cur *strings.Builder
	fence, start := "", 0
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		trimmed := strings.TrimSpace(text)
		if cur == nil {
			if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
				marker := trimmed[:3]
				info := strings.TrimSpace(strings.TrimLeft(trimmed, marker[:1]))
				fence = trimmed[:len(trimmed)-len(strings.TrimLeft(trimmed, marker[:1]))]
				if strings.EqualFold(info, "sql") {
					cur, start = new(strings.Builder), line
				} else {
					// Skip any other block (sql-norun, sh, …) to its closing fence.
					for line++; sc.Scan(); line++ {
						if strings.HasPrefix(strings.TrimSpace(sc.Text()), fence) && strings.Trim(strings.TrimSpace(sc.Text()), fence[:1]) == "" {
							break
						}
					}
				}
			}
			continue
		}
		if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
			stmts, err := splitSQL(cur.String())
			if err != nil {
				return nil, fmt.Errorf("README.md block at line %d: %w", start, err)
			}
			blocks = append(blocks, sqlBlock{line: start, stmts: stmts})
			cur = nil
			continue
		}
		cur.WriteString(text)
		cur.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if cur != nil {
		return nil, fmt.Errorf("README.md block at line %d is not closed", start)
	}
	return blocks, nil
}

// splitSQL splits text into statements at semicolons outside quotes and
// comments, dropping comments and empty statements. A last statement
// without a semicolon is kept.
func splitSQL(text string) ([]string, error) {
	var out []string
	var b strings.Builder
	flush := func() {
		if s := strings.TrimSpace(b.String()); s != "" {
			out = append(out, s)
		}
		b.Reset()
	}
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			j := i + 1
			for ; j < len(text); j++ {
				if text[j] == '\\' && c != '`' {
					j++
					continue
				}
				if text[j] == c {
					if j+1 < len(text) && text[j+1] == c { // doubled quote
						j++
						continue
					}
					break
				}
			}
			if j >= len(text) {
				return nil, fmt.Errorf("unterminated %c quote in %q", c, strings.TrimSpace(text[i:min(len(text), i+60)]))
			}
			b.WriteString(text[i : j+1])
			i = j + 1
		case c == '#' || c == '-' && strings.HasPrefix(text[i:], "--") && (i+2 == len(text) || text[i+2] == ' ' || text[i+2] == '\t' || text[i+2] == '\n'):
			j := strings.IndexByte(text[i:], '\n')
			if j < 0 {
				i = len(text)
			} else {
				i += j
			}
			b.WriteByte(' ')
		case c == '/' && strings.HasPrefix(text[i:], "/*"):
			j := strings.Index(text[i+2:], "*/")
			if j < 0 {
				return nil, fmt.Errorf("unterminated /* comment")
			}
			i += 2 + j + 2
			b.WriteByte(' ')
		case c == ';':
			flush()
			i++
		default:
			b.WriteByte(c)
			i++
		}
	}
	flush()
	return out, nil
}

// TestSplitSQL: the README splitter keeps semicolons inside quotes and drops
// comments.
func TestSplitSQL(t *testing.T) {
	got, err := splitSQL("USE a; SELECT 'x;y', \"q\"\"q;\", `b;c` -- c;d\nFROM t; /* e; */ SELECT 1 # f;\n;;SELECT 2")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"USE a", "SELECT 'x;y', \"q\"\"q;\", `b;c`  \nFROM t", "SELECT 1", "SELECT 2"}
	if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
		t.Errorf("splitSQL:\n got %q\nwant %q", got, want)
	}
	if _, err := splitSQL("SELECT 'open"); err == nil {
		t.Error("unterminated quote: no error")
	}
}
