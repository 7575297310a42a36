package terminal_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/sqlengine"
	"github.com/lakesql/lakesql/sqlengine/terminal"
)

func open(t *testing.T) *terminal.Session {
	t.Helper()
	s, err := terminal.Open(context.Background(), terminal.Options{Engine: sqlengine.Config{Warehouse: "mem://"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func exec(t *testing.T, s *terminal.Session, script, format string) string {
	t.Helper()
	var out bytes.Buffer
	if err := s.Exec(context.Background(), script, terminal.ExecOptions{Format: format, Out: &out}); err != nil {
		t.Fatalf("%s: %v", script, err)
	}
	return out.String()
}

// randomText is a string with the characters that need quoting in CSV and
// JSON, or empty.
func randomText(r *rand.Rand) string {
	parts := []string{"a", "b c", ",", `"`, "'", "\n", "é", " ", "\\", "x;y", "NULL", "\t"}
	n := r.IntN(5)
	var b strings.Builder
	for range n {
		b.WriteString(parts[r.IntN(len(parts))])
	}
	return b.String()
}

type row struct {
	id int64
	s  *string
	d  *float64
}

// TestFormatsAgainstModel: random rows written with INSERT come back
// exactly in CSV (read with encoding/csv) and JSON (read with
// encoding/json), NULL distinct from ”.
func TestFormatsAgainstModel(t *testing.T) {
	seed := time.Now().UnixNano()
	r := rand.New(rand.NewPCG(uint64(seed), 7))
	t.Logf("seed %d", seed)
	s := open(t)
	exec(t, s, "CREATE TABLE f (id BIGINT PRIMARY KEY, s STRING, d DOUBLE)", "")
	var model []row
	var ins []string
	for i := range 40 {
		rw := row{id: int64(i)}
		if r.IntN(4) > 0 {
			v := randomText(r)
			rw.s = &v
		}
		if r.IntN(4) > 0 {
			v := float64(r.IntN(1000)) / 8
			rw.d = &v
		}
		model = append(model, rw)
		sv, dv := "NULL", "NULL"
		if rw.s != nil {
			sv = "'" + strings.NewReplacer(`\`, `\\`, "'", "''").Replace(*rw.s) + "'"
		}
		if rw.d != nil {
			dv = strconv.FormatFloat(*rw.d, 'f', -1, 64)
		}
		ins = append(ins, fmt.Sprintf("(%d, %s, %s)", i, sv, dv))
	}
	exec(t, s, "INSERT INTO f VALUES "+strings.Join(ins, ", "), "")

	recs, err := csv.NewReader(strings.NewReader(exec(t, s, "SELECT * FROM f ORDER BY id", terminal.FormatCSV))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(model)+1 || strings.Join(recs[0], ",") != "id,s,d" {
		t.Fatalf("csv: %d records, header %v", len(recs), recs[0])
	}
	// encoding/csv cannot tell NULL (an empty field) from "" (a quoted
	// empty field); the raw text can.
	raw := exec(t, s, "SELECT s FROM f ORDER BY id", terminal.FormatCSV)
	for i, m := range model {
		got := recs[i+1]
		want := []string{strconv.FormatInt(m.id, 10), "", ""}
		if m.s != nil {
			want[1] = *m.s
		}
		if m.d != nil {
			want[2] = strconv.FormatFloat(*m.d, 'f', -1, 64)
		}
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Errorf("csv row %d = %q, want %q", i, got, want)
		}
		if m.s != nil && *m.s == "" && !strings.Contains(raw, "\"\"") {
			t.Errorf("an empty string is not written as \"\"")
		}
	}

	var objs []map[string]any
	if err := json.Unmarshal([]byte(exec(t, s, "SELECT * FROM f ORDER BY id", terminal.FormatJSON)), &objs); err != nil {
		t.Fatal(err)
	}
	for i, m := range model {
		o := objs[i]
		if o["id"] != float64(m.id) {
			t.Errorf("json id %v, want %d", o["id"], m.id)
		}
		if (m.s == nil) != (o["s"] == nil) || m.s != nil && o["s"] != *m.s {
			t.Errorf("json row %d s = %#v, want %v", i, o["s"], m.s)
		}
		if (m.d == nil) != (o["d"] == nil) || m.d != nil && o["d"] != *m.d {
			t.Errorf("json row %d d = %#v, want %v", i, o["d"], m.d)
		}
	}

	table := exec(t, s, "SELECT id, d FROM f WHERE id < 3 ORDER BY id", terminal.FormatTable)
	if !strings.HasPrefix(table, "+----+") || strings.Count(table, "\n") != 3+3+1 {
		t.Errorf("table:\n%s", table)
	}
}

// TestExecStopsAtFirstError: a script stops at its first error (as mysql
// -e does) and reports it with the MySQL code; with Continue it goes on.
func TestExecStopsAtFirstError(t *testing.T) {
	s := open(t)
	exec(t, s, "CREATE TABLE e (id BIGINT PRIMARY KEY)", "")
	err := s.Exec(context.Background(), "INSERT INTO e VALUES (1); SELECT * FROM nosuch; INSERT INTO e VALUES (2)", terminal.ExecOptions{Out: io.Discard})
	if err == nil || !strings.Contains(terminal.ErrorText(err), "ERROR 1146 (42S02)") {
		t.Errorf("error %v", err)
	}
	var msgs bytes.Buffer
	_ = s.Exec(context.Background(), "SELECT * FROM nosuch; INSERT INTO e VALUES (3)", terminal.ExecOptions{Out: io.Discard, Msgs: &msgs, Continue: true})
	if got := exec(t, s, "SELECT id FROM e ORDER BY id", terminal.FormatCSV); got != "id\r\n1\r\n3\r\n" {
		t.Errorf("rows %q (want 1 and 3: the script stopped before 2, Continue ran 3)", got)
	}
	if !strings.Contains(msgs.String(), "ERROR 1146") || !strings.Contains(msgs.String(), "Query OK, 1 row affected") {
		t.Errorf("messages %q", msgs.String())
	}
}

// TestShellScript drives the shell with piped input: statements over
// several lines, helpers, an error that does not end the shell, \q.
func TestShellScript(t *testing.T) {
	s := open(t)
	in := "CREATE TABLE sh (id BIGINT PRIMARY KEY,\n  v STRING);\nINSERT INTO sh VALUES (1, 'one;two'),\n (2, 'two');\n" +
		"SELECT v FROM sh\n WHERE id = 1;\n\\d\n\\d sh\n\\l\nSELECT * FROM nosuch;\nSELECT count(*) AS n FROM sh;\n\\nope\n" +
		"SELECT 'discarded' +\n\\c\nSELECT 'typed' AS after_c;\n\\q\nSELECT 'after quit';\n"
	var out bytes.Buffer
	err := s.Shell(context.Background(), terminal.ShellOptions{In: io.NopCloser(strings.NewReader(in)), Out: &out, Err: &out})
	if err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{"| one;two |", "| Tables_in_default |", "| sh                |", "| Field | Type", "| information_schema |",
		"ERROR 1146", "| n |\n+---+\n| 2 |", "Query OK, 2 rows affected", `unknown command \nope`, "| typed   |"} {
		if !strings.Contains(got, want) {
			t.Errorf("shell output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "after quit") || strings.Contains(got, "discarded") {
		t.Errorf("the shell ran a statement after \\q")
	}
}

// TestLoadAgainstModel: random rows written as CSV (with a header, quotes,
// commas, newlines in fields, CRLF line ends) and loaded in one statement
// read back exactly; plain progress lines report bytes read.
func TestLoadAgainstModel(t *testing.T) {
	seed := time.Now().UnixNano()
	r := rand.New(rand.NewPCG(uint64(seed), 9))
	t.Logf("seed %d", seed)
	s := open(t)
	exec(t, s, "CREATE TABLE l (id BIGINT PRIMARY KEY, s STRING, n INT)", "")
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.UseCRLF = r.IntN(2) == 0
	w.Write([]string{"id", "s", "n"})
	want := map[int64]string{}
	const rows = 3000
	for i := range int64(rows) {
		v := randomText(r)
		if v == "" || strings.TrimSpace(v) != v {
			v = "x" + v + "x" // empty and space-padded fields are ambiguous in CSV
		}
		w.Write([]string{strconv.FormatInt(i, 10), v, strconv.Itoa(int(i) * 3)})
		if v == "NULL" {
			v = "" // MySQL's LOAD DATA: an unquoted NULL is NULL (shown as an empty CSV field)
		}
		want[i] = v
	}
	w.Flush()
	file := filepath.Join(t.TempDir(), "in.csv")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var prog bytes.Buffer
	n, err := s.Load(context.Background(), terminal.LoadOptions{File: file, Table: "default.l", Header: true,
		Progress: &prog, ProgressEvery: time.Nanosecond})
	if err != nil || n != rows {
		t.Fatalf("load: %d rows, %v", n, err)
	}
	if !strings.Contains(prog.String(), "% )") && !strings.Contains(prog.String(), "read (") {
		t.Errorf("no progress lines:\n%s", prog.String())
	}
	if !strings.Contains(prog.String(), fmt.Sprintf("%d rows from", rows)) {
		t.Errorf("no final line:\n%s", prog.String())
	}
	recs, err := csv.NewReader(strings.NewReader(exec(t, s, "SELECT id, s, n FROM l ORDER BY id", terminal.FormatCSV))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != rows+1 {
		t.Fatalf("%d rows back, want %d", len(recs)-1, rows)
	}
	for _, rec := range recs[1:] {
		id, _ := strconv.ParseInt(rec[0], 10, 64)
		if rec[1] != want[id] || rec[2] != strconv.FormatInt(id*3, 10) {
			t.Errorf("row %d = %q, want s %q", id, rec, want[id])
		}
	}
	var snaps string
	snaps = exec(t, s, "SELECT count(*) FROM `l$snapshots`", terminal.FormatCSV)
	if snaps != "count(*)\r\n1\r\n" {
		t.Errorf("the load made %q snapshots, want one", snaps)
	}
}
