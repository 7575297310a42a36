package tests

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// toolReplay is one statement of testdata/tool_replays.sql.
type toolReplay struct {
	tool, sql string
	columns   []string // nil: not checked
	rows      bool     // at least one row
	args      []any    // run as a server-side prepared statement with these
	errCode   uint16   // the MySQL error the statement must fail with
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
					case strings.HasPrefix(p, "args="):
						for _, a := range strings.Split(strings.ReplaceAll(strings.TrimPrefix(p, "args="), "{db}", db), ",") {
							cur.args = append(cur.args, a)
						}
					case strings.HasPrefix(p, "error="):
						n, err := strconv.Atoi(strings.TrimPrefix(p, "error="))
						if err != nil {
							t.Fatalf("%s: %q", cur.tool, p)
						}
						cur.errCode = uint16(n)
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
	s.exec(t, "INSERT INTO plain VALUES (1, 'one')")
	ctx := context.Background()
	// Drivers that prepare statements on the server (Connector/ODBC's
	// catalog functions, JDBC PreparedStatement) use the binary protocol.
	prepDB, err := sql.Open("mysql", fmt.Sprintf("root@tcp(%s)/ddl", s.addr))
	if err != nil {
		t.Fatal(err)
	}
	defer prepDB.Close()
	prep, err := prepDB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer prep.Close()
	replays := loadToolReplays(t, "ddl")
	if len(replays) < 50 {
		t.Fatalf("only %d replays parsed", len(replays))
	}
	tools := map[string]bool{}
	for _, r := range replays {
		tools[strings.SplitN(r.tool, ":", 2)[0]] = true
		var cols []string
		var rows [][]any
		var err error
		if r.args != nil {
			cols, rows, err = queryRows(ctx, prep, r.sql, r.args...)
		} else {
			cols, rows, err = queryRows(ctx, s.conn, r.sql)
		}
		if r.errCode != 0 {
			if mysqlErrNo(err) != r.errCode {
				t.Errorf("%s: %v, want MySQL error %d\n%s", r.tool, err, r.errCode, r.sql)
			}
			continue
		}
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
		case strings.Contains(r.tool, "partial-revokes") || strings.Contains(r.tool, "get-global-variable"):
			// Metabase compares the value with "ON": booleans are ON/OFF.
			if got := replayRows(rows); got != "[[partial_revokes OFF]]" && got != "[[local_infile OFF]]" {
				t.Errorf("%s: %s", r.tool, got)
			}
		case strings.Contains(r.tool, "privilege-grants-for-user"):
			if len(rows) == 0 || !strings.HasPrefix(textOf(rows[0][0]), "GRANT ") || !strings.Contains(textOf(rows[0][0]), " ON *.* TO ") {
				t.Errorf("%s: %s", r.tool, replayRows(rows))
			}
		case strings.Contains(r.tool, "describe-fields-sql"):
			var got []string
			for _, row := range rows {
				got = append(got, strings.Join([]string{textOf(row[3]), textOf(row[0]), textOf(row[1]), textOf(row[4]),
					textOf(row[6]), textOf(row[7]), textOf(row[8]), textOf(row[11])}, ":"))
			}
			want := []string{"orders:order_id:0:BIGINT:1:1:0:NULL", "orders:dt:1:VARCHAR:1:1:0:NULL", "orders:amount:2:DECIMAL:0:0:1:money",
				"plain:id:0:INT:1:1:0:NULL", "plain:v:1:VARCHAR:0:0:1:NULL"}
			if !slices.Equal(got, want) {
				t.Errorf("%s: fields\n got %q\nwant %q", r.tool, got, want)
			}
		case strings.Contains(r.tool, "table_status_i_s"):
			if got := replayRows(rows); got != "[[orders the orders TABLE ddl] [plain  TABLE ddl]]" {
				t.Errorf("%s: %s", r.tool, got)
			}
		case strings.Contains(r.tool, "columns_i_s"):
			var got []string
			for _, row := range rows {
				got = append(got, textOf(row[3])+":"+textOf(row[4])+":"+textOf(row[10])+":"+textOf(row[11])+":"+textOf(row[16]))
			}
			if want := []string{"order_id:bigint:NO::1", "dt:varchar:NO::2", "amount:decimal:YES:money:3"}; !slices.Equal(got, want) {
				t.Errorf("%s: columns %q, want %q", r.tool, got, want)
			}
		case strings.Contains(r.tool, "server_list_dbkeys"):
			// Connector/ODBC reads Non_unique, Seq_in_index and Column_name by position.
			var got []string
			for _, row := range rows {
				got = append(got, textOf(row[1])+":"+textOf(row[2])+":"+textOf(row[3])+":"+textOf(row[4]))
			}
			if want := []string{"0:PRIMARY:1:order_id", "0:PRIMARY:2:dt"}; !slices.Equal(got, want) {
				t.Errorf("%s: keys %q, want %q", r.tool, got, want)
			}
		case strings.Contains(r.tool, "isReadOnly"):
			if got := replayRows(rows); got != "[[1]]" {
				t.Errorf("%s: %s after SET SESSION TRANSACTION READ ONLY", r.tool, got)
			}
		case strings.Contains(r.tool, "getTransactionIsolation"):
			if got := replayRows(rows); got != "[[READ-UNCOMMITTED]]" {
				t.Errorf("%s: %s after Tableau's READ UNCOMMITTED", r.tool, got)
			}
		case strings.Contains(r.tool, "getInformationSchemaCollation"):
			// MySQL 8.0's information_schema columns are utf8mb3.
			if got := replayRows(rows); got != "[[utf8mb3_general_ci]]" {
				t.Errorf("%s: %s", r.tool, got)
			}
		case strings.Contains(r.tool, "its NULLABLE clause"):
			if got := replayRows(rows); got != "[[order_id 0 NO] [dt 0 NO] [amount 1 NO]]" {
				t.Errorf("%s: %s", r.tool, got)
			}
		case strings.Contains(r.tool, "select_star"):
			if got := replayRows(rows); got != "[[1 one]]" {
				t.Errorf("%s: %s", r.tool, got)
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
	for _, tool := range []string{"metabase", "superset", "sqlalchemy", "dbeaver", "grafana", "tableau/odbc", "tableau", "connector/j"} {
		if !tools[tool] {
			t.Errorf("no replay of %s", tool)
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
