package tests

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// toolReplay is one statement of testdata/tool_replays.sql.
type toolReplay struct {
	tool, sql string
	columns   []string // nil: not checked
	rows      bool     // at least one row
}

func loadToolReplays(t *testing.T, db string) []toolReplay {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "tool_replays.sql"))
	if err != nil {
		t.Fatal(err)
	}
	var out []toolReplay
	var cur *toolReplay
	flush := func() {
		if cur != nil {
			cur.sql = strings.TrimSpace(cur.sql)
			if i := strings.Index(cur.sql, " | "); i >= 0 {
				parts := strings.Split(cur.sql[i+3:], " | ")
				cur.sql = cur.sql[:i]
				for _, p := range parts {
					switch p = strings.TrimSpace(p); {
					case p == "rows>0":
						cur.rows = true
					case p != "":
						cur.columns = strings.Split(strings.ReplaceAll(p, "{db}", db), ",")
					}
				}
			}
			out = append(out, *cur)
			cur = nil
		}
	}
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "-- @ "):
			flush()
			cur = &toolReplay{tool: strings.TrimPrefix(line, "-- @ ")}
		case strings.HasPrefix(line, "--") || cur == nil:
		default:
			cur.sql += " " + strings.ReplaceAll(line, "{db}", db)
		}
	}
	flush()
	return out
}

// TestServerToolReplays replays the connect and schema-sync statements of
// MySQL tools and drivers (testdata/tool_replays.sql, each naming its
// source) against a server with a partitioned composite-key table and a
// plain one: each must be answered as MySQL answers it (no error, the
// result columns MySQL returns, rows where MySQL has some), and the key and
// column rows must tell the truth about the tables.
func TestServerToolReplays(t *testing.T) {
	s := startDDLServer(t)
	s.exec(t, "CREATE TABLE orders (order_id BIGINT, dt STRING, amount DECIMAL(10,2) COMMENT 'money', "+
		"PRIMARY KEY (order_id, dt) NOT ENFORCED) COMMENT 'the orders' PARTITIONED BY (dt)",
		"CREATE TABLE plain (id INT PRIMARY KEY, v VARCHAR(10))")
	ctx := context.Background()
	replays := loadToolReplays(t, "ddl")
	if len(replays) < 15 {
		t.Fatalf("only %d replays parsed", len(replays))
	}
	for _, r := range replays {
		cols, rows, err := queryRows(ctx, s.conn, r.sql)
		if err != nil {
			t.Errorf("%s: %v\n%s", r.tool, err, r.sql)
			continue
		}
		if r.columns != nil && !slices.Equal(cols, r.columns) {
			t.Errorf("%s: columns %q, want %q", r.tool, cols, r.columns)
		}
		if r.rows && len(rows) == 0 {
			t.Errorf("%s: no rows\n%s", r.tool, r.sql)
		}
		switch {
		case strings.Contains(r.tool, "getPrimaryKeys"):
			var got []string
			for _, row := range rows {
				got = append(got, textOf(row[3])+":"+textOf(row[4]))
			}
			if !slices.Equal(got, []string{"order_id:1", "dt:2"}) {
				t.Errorf("%s: primary key rows %q", r.tool, got)
			}
		case strings.Contains(r.tool, "getTables"):
			var got []string
			for _, row := range rows {
				got = append(got, textOf(row[2])+":"+textOf(row[3])+":"+textOf(row[4]))
			}
			// REMARKS is the table's comment, as tools show it.
			if !slices.Equal(got, []string{"orders:TABLE:the orders", "plain:TABLE:"}) {
				t.Errorf("%s: tables %q", r.tool, got)
			}
		case strings.Contains(r.tool, "type=value"):
			if got := replayRows(rows); got != "[[amount decimal] [order_id bigint]]" {
				t.Errorf("%s: %s", r.tool, got)
			}
		case strings.Contains(r.tool, "type=metric"):
			if got := replayRows(rows); got != "[[dt varchar]]" {
				t.Errorf("%s: %s", r.tool, got)
			}
		case strings.Contains(r.tool, "showDatabases"):
			if got := replayRows(rows); !strings.Contains(got, "[ddl]") || strings.Contains(got, "information_schema") {
				t.Errorf("%s: %s", r.tool, got)
			}
		case strings.Contains(r.tool, "db-default-timezone"):
			// Metabase parses the offset ("+00:00"-like "00:00"); NULL makes it guess.
			if len(rows) != 1 || textOf(rows[0][2]) == "" || textOf(rows[0][2]) == "NULL" {
				t.Errorf("%s: %v", r.tool, rows)
			}
		case strings.Contains(r.tool, "MADB"):
			var got []string
			for _, row := range rows {
				got = append(got, textOf(row[3])+":"+textOf(row[4])+":"+textOf(row[7])+":"+textOf(row[8]))
			}
			if want := []string{"order_id:BIGINT:0:", "dt:VARCHAR:0:", "amount:DECIMAL:1:money"}; !slices.Equal(got, want) {
				t.Errorf("%s: columns %q, want %q", r.tool, got, want)
			}
		}
	}
}

// replayRows prints rows as [[a b] [c d]] with textOf values.
func replayRows(rows [][]any) string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		for _, v := range r {
			out[i] = append(out[i], textOf(v))
		}
	}
	return fmt.Sprint(out)
}
