package tests

import (
	"bufio"
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestStrictValues runs the corpus tests/testdata/strict_values.txt: each
// statement fails with MySQL's exact error code and stores nothing (the
// table's rows and snapshot count are unchanged, and the connection keeps
// working).
func TestStrictValues(t *testing.T) {
	s := startDDLServer(t)
	f, err := os.Open("testdata/strict_values.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	state := func(table string) (string, string) {
		rows := queryStrings(t, s.conn, "SELECT * FROM "+quoteIdent(table)+" ORDER BY 1")
		snaps := queryStrings(t, s.conn, "SELECT COUNT(*) FROM "+quoteIdent(table+"$snapshots"))
		return strings.Join(flatten(rows), "|"), snaps[0][0]
	}
	sc := bufio.NewScanner(f)
	cases := 0
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		switch {
		case text == "" || strings.HasPrefix(text, "#"):
			continue
		case strings.HasPrefix(text, "setup:"):
			s.exec(t, strings.TrimSpace(strings.TrimPrefix(text, "setup:")))
			continue
		}
		parts := strings.SplitN(text, " ", 3)
		if len(parts) != 3 {
			t.Fatalf("strict_values.txt:%d: want CODE TABLE STATEMENT", line)
		}
		code, err := strconv.Atoi(parts[0])
		if err != nil {
			t.Fatalf("strict_values.txt:%d: code %q", line, parts[0])
		}
		table, q := parts[1], parts[2]
		cases++
		rowsBefore, snapsBefore := state(table)
		_, err = s.conn.ExecContext(ctx, q)
		switch {
		case err == nil:
			t.Errorf("strict_values.txt:%d: %s: succeeded, want error %d", line, q, code)
		case int(mysqlErrNo(err)) != code:
			t.Errorf("strict_values.txt:%d: %s: %v, want error %d", line, q, err, code)
		}
		rowsAfter, snapsAfter := state(table)
		if rowsAfter != rowsBefore || snapsAfter != snapsBefore {
			t.Errorf("strict_values.txt:%d: %s changed the table: rows %s → %s, snapshots %s → %s", line, q, rowsBefore, rowsAfter, snapsBefore, snapsAfter)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cases < 40 {
		t.Fatalf("only %d cases read", cases)
	}
}

func flatten(rows [][]string) []string {
	var out []string
	for _, r := range rows {
		out = append(out, strings.Join(r, ","))
	}
	return out
}

// TestStrictValuesHugeAndIgnore: a 16 MB string into VARCHAR(5) fails with
// 1406 and a short message; INSERT IGNORE and UPDATE IGNORE clamp with a
// warning, as MySQL does; values that fit are stored exactly.
func TestStrictValuesHugeAndIgnore(t *testing.T) {
	s := startDDLServer(t)
	s.exec(t, "CREATE TABLE h (id BIGINT, s VARCHAR(5), ti TINYINT, bi BIGINT, i INT, PRIMARY KEY (id) NOT ENFORCED)")
	huge := strings.Repeat("x", 16<<20)
	_, err := s.conn.ExecContext(context.Background(), "INSERT INTO h (id, s) VALUES (1, '"+huge+"')")
	if mysqlErrNo(err) != 1406 {
		t.Errorf("16 MB string into VARCHAR(5): %.200v, want 1406", err)
	}
	if err != nil && len(err.Error()) > 600 {
		t.Errorf("error message is %d bytes long", len(err.Error()))
	}
	_, err = s.conn.ExecContext(context.Background(), "INSERT INTO h (id, ti) VALUES (1, '"+huge+"')")
	if mysqlErrNo(err) != 1366 || len(err.Error()) > 600 {
		t.Errorf("16 MB string into TINYINT: %.200v (%d bytes), want a short 1366", err, len(err.Error()))
	}
	// INSERT IGNORE: MySQL's warnings (code and text), the closest valid values.
	s.exec(t, "INSERT IGNORE INTO h (id, ti, s, i) VALUES (5, -1000, 'abcdefgh', '12abc')")
	// (GMS lists warnings newest first; MySQL oldest first: compare as sets.)
	warn := flatten(queryStrings(t, s.conn, "SHOW WARNINGS"))
	wantWarn := []string{
		"Warning,1264,Out of range value for column 'ti' at row 1",
		"Warning,1265,Data truncated for column 'i' at row 1",
		"Warning,1265,Data truncated for column 's' at row 1",
	}
	slices.Sort(warn)
	if !slices.Equal(warn, wantWarn) {
		t.Errorf("SHOW WARNINGS after INSERT IGNORE:\n got %q\nwant %q", warn, wantWarn)
	}
	if got := queryStrings(t, s.conn, "SELECT ti, s, i FROM h WHERE id = 5"); strings.Join(got[0], ",") != "-128,abcde,12" {
		t.Errorf("INSERT IGNORE stored %q, want -128, abcde, 12", got[0])
	}
	s.exec(t, "DELETE FROM h WHERE id = 5")
	s.exec(t,
		"INSERT IGNORE INTO h (id, ti) VALUES (2, 1000)",
		"INSERT INTO h (id, bi, i, ti) VALUES (3, '9223372036854775807', ' 12 ', '1.5')",
		"INSERT INTO h (id, bi) VALUES (4, -9223372036854775808)",
	)
	got := queryStrings(t, s.conn, "SELECT id, ti, bi, i FROM h ORDER BY id")
	want := [][]string{{"2", "127", "NULL", "NULL"}, {"3", "2", "9223372036854775807", "12"}, {"4", "NULL", "-9223372036854775808", "NULL"}}
	if strings.Join(flatten(got), "|") != strings.Join(flatten(want), "|") {
		t.Errorf("rows %q, want %q", got, want)
	}
	// MERGE INTO goes through GMS's conversion: the code is still 1264.
	s.exec(t, "CREATE TABLE src (id BIGINT, v INT, PRIMARY KEY (id) NOT ENFORCED)", "INSERT INTO src VALUES (3, 1000)")
	s.fails(t, "MERGE INTO h t USING src s ON t.id = s.id WHEN MATCHED THEN UPDATE SET ti = s.v", 1264)
	s.fails(t, "MERGE INTO h t USING src s ON t.id = s.id + 10 WHEN NOT MATCHED THEN INSERT (id, ti) VALUES (s.id + 10, s.v)", 1264)
	s.exec(t, "UPDATE IGNORE h SET ti = 1000 WHERE id = 3")
	if got := queryStrings(t, s.conn, "SELECT ti FROM h WHERE id = 3"); got[0][0] != "127" {
		t.Errorf("UPDATE IGNORE: ti = %s, want 127 (clamped)", got[0][0])
	}
}
