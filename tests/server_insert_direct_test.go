package tests

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/provider"
	"github.com/lakesql/lakesql/sqlengine"
)

// INSERT … VALUES of literals into a Paimon table takes lakesql's direct
// path (sqlengine/insertvalues.go, provider/insert_values.go); SET
// lakesql_insert_direct = 0 sends it through GMS's INSERT path.
// TestInsertDirectEqualsInsertPath runs random multi-row INSERTs — every
// column type, good, edge and bad literals (integers, decimals, numbers
// with exponents, strings, dates, NULL, DEFAULT, TRUE, hex, an
// expression now and then), column lists in any order, IGNORE and
// REPLACE — through both paths into twin tables and requires the same
// outcome: the error, or the affected rows, ROW_COUNT(), SHOW WARNINGS
// and every row of the table.

// The twin tables are loadDirectDDL's (Paimon columns have no DEFAULT
// values: DEFAULT and columns left out are NULL).

// insertLiteral is a random SQL literal for column col: a value a strict
// INSERT takes, edge values included, or with bad one it may refuse.
func insertLiteral(r *rand.Rand, col string, bad, odd bool) string {
	pick := func(xs ...string) string { return xs[r.Intn(len(xs))] }
	quote := func(s string) string {
		return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", "''") + "'"
	}
	nullable := col != "id" && col != "nn"
	switch r.Intn(40) {
	case 0:
		if nullable || bad {
			return "NULL"
		}
	case 1:
		if nullable || bad {
			return "DEFAULT"
		}
	case 2:
		if !odd {
			break
		}
		return pick("TRUE", "FALSE", "0x41", "1+1", "-(3)", "- -2", "1e2", "'7'", "CONCAT('a','b')")
	}
	if bad {
		switch r.Intn(3) {
		case 0:
			return pick("'abc'", "'12abc'", "' 5'", "'+5'", "''", "99999999999999999999", "-9223372036854775809",
				"18446744073709551616", "123456789012345.123456", "'é漢字長すぎる文字列です'", "1.5", "-2.5", "1e400",
				"'2024-13-01'", "0.0000001", "-0.0")
		case 1:
			switch col {
			case "ti":
				return pick("128", "-129", "'128'")
			case "si":
				return pick("32768", "-32769")
			case "i":
				return pick("2147483648", "-2147483649", "4294967295")
			case "amt":
				return pick("10000000", "-12345678.5", "1.23456", "'1.23456'")
			case "fl", "dbl":
				return pick("3.4028235e39", "-1e39", "1e300", "2.5e-3", "'1e500'")
			case "s":
				return pick("'123456789'", "'é漢字長すぎる文'", "123456789012")
			case "c":
				return pick("'abcde'", "'x    y'")
			case "d", "dt", "dt3":
				return pick("'2023-02-29'", "'2024-13-01'", "'2024-01-01 24:00:00'", "'0000-00-00'", "'2024-1-5'",
					"'20240105'", "'0999-12-31'", "20240105", "'2024-01-01 10:00:00.1234567'")
			}
		}
	}
	switch col {
	case "id", "nn":
		return fmt.Sprint(r.Int63n(1000) - 20)
	case "i", "df":
		return pick(fmt.Sprint(r.Int31()-r.Int31()), "2147483647", "-2147483648", "0", "-0", "007", "42", "'42'", "3.0")
	case "ti":
		return pick(fmt.Sprint(r.Intn(256)-128), "127", "-128", "'-5'")
	case "si":
		return pick(fmt.Sprint(r.Intn(65536)-32768), "32767", "-32768")
	case "amt":
		return pick(fmt.Sprintf("%d.%03d", r.Intn(2000000)-1000000, r.Intn(1000)), "9999999.999", "-9999999.999", "0.5",
			"1.2345", "-0.000", "00012.1", "3", "0.0005", "'2.5'", "1e3", "-7")
	case "big":
		return pick(fmt.Sprintf("%d%d.%d", r.Int63(), r.Intn(1000000), r.Intn(100000)), "1.5", "-0.00001", "0", "'3.25'")
	case "dbl":
		return pick(fmt.Sprintf("%d.%d", r.Intn(100000)-50000, r.Intn(1000)), "0.1", "-0", "123456789012345678",
			"1.7976931348623157e308", "2.5", "0.30000000000000004", "1e-5", "'0.25'", "-4")
	case "fl":
		return pick(fmt.Sprintf("%d.%d", r.Intn(100000)-50000, r.Intn(1000)), "0.1", "-0", "16777217", "2.5", "0.3", "1e3")
	case "s", "ds":
		return quote(pick("", "a", "plain", "with,comma", "quote\"d", "tab\there", "nl\nline", "back\\slash", "12345678",
			"é漢", "NULL", "crlf\r\nx", "8charsé!", "'sq'", "trail  "))
	case "c":
		return quote(pick("ab", "abcd", "x ", "", "é"))
	case "t":
		return quote(pick("long text "+strings.Repeat("z", r.Intn(40)), "", "t"))
	case "d":
		return quote(pick(fmt.Sprintf("20%02d-%02d-%02d", r.Intn(40), 1+r.Intn(12), 1+r.Intn(28)), "2024-02-29",
			"1000-01-01", "9999-12-31", "1970-01-01", "2024-03-04 10:11:12"))
	case "dt", "dt3":
		return quote(pick(fmt.Sprintf("20%02d-%02d-%02d %02d:%02d:%02d", r.Intn(40), 1+r.Intn(12), 1+r.Intn(28), r.Intn(24), r.Intn(60), r.Intn(60)),
			"2024-01-01 00:00:00.5", "2024-01-01 00:00:00.123", "2024-01-01 00:00:00.1239", "2024-06-30 23:59:59.9999",
			"2024-01-01", "1000-01-01 00:00:00", "9999-12-31 23:59:59", "1969-12-31 23:59:59.999"))
	case "b":
		return pick("0", "1", "TRUE", "FALSE")
	}
	return "'x'"
}

func TestInsertDirectEqualsInsertPath(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	trials := 60
	if testing.Short() {
		trials = 15
	}
	wh, dir := t.TempDir(), t.TempDir()
	addr := startFilesServer(t, wh, dir)
	mustExec(t, openWarehouseDB(t, addr, "", ""), "CREATE DATABASE idd")
	db := openWarehouseDB(t, addr, "idd", "")
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()

	direct0 := provider.InsertedRows()
	outcomes := map[string]int{}
	for trial := 0; trial < trials; trial++ {
		pk := r.Intn(3) > 0
		ddl := "CREATE TABLE %s (" + loadDirectDDL + ")"
		if pk {
			ddl = "CREATE TABLE %s (" + loadDirectDDL + ", PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '" + fmt.Sprint(1+r.Intn(4)) + "')"
		}
		cols := slices.Clone(loadDirectCols)
		list := r.Intn(2) == 0
		if list {
			r.Shuffle(len(cols), func(i, j int) { cols[i], cols[j] = cols[j], cols[i] })
			cols = cols[:4+r.Intn(len(cols)-3)]
			for _, c := range []string{"id", "nn"} {
				if !slices.Contains(cols, c) && r.Intn(10) > 0 {
					cols = append(cols, c)
				}
			}
		}
		// A statement with a bad value (most fail), with literals GMS's
		// path keeps (an expression, TRUE, hex: the whole statement goes
		// there), or neither.
		bad, odd := r.Intn(3) == 0, r.Intn(4) == 0
		// Two trials in three only have literals the splice front reads
		// (insert_splice_lex.go), so most of them go through it.
		plain := r.Intn(3) > 0
		var sb strings.Builder
		verb := "INSERT"
		switch r.Intn(6) {
		case 0:
			verb = "REPLACE"
		case 1:
			verb = "INSERT IGNORE"
		}
		sb.WriteString(verb + " INTO %s")
		if list {
			sb.WriteString(" (" + strings.Join(cols, ", ") + ")")
		}
		sb.WriteString(" VALUES ")
		rows := 1 + r.Intn(60)
		for k := 0; k < rows; k++ {
			if k > 0 {
				sb.WriteString(", ")
			}
			sb.WriteByte('(')
			for j, c := range cols {
				if j > 0 {
					sb.WriteByte(',')
				}
				lit := insertLiteral(r, c, bad && r.Intn(200) == 0, odd)
				for try := 0; plain && !spliceable(lit) && try < 50; try++ {
					lit = insertLiteral(r, c, bad && r.Intn(200) == 0, odd)
				}
				sb.WriteString(lit)
			}
			sb.WriteByte(')')
		}
		stmt := sb.String()

		var res [2]string
		var took [2]bool
		for k, direct := range []int{1, 0} {
			table := fmt.Sprintf("t%d_%d", trial, k)
			mustExec(t, conn, fmt.Sprintf(ddl, table), fmt.Sprintf("SET lakesql_insert_direct = %d", direct))
			before, spliced := provider.InsertedRows(), sqlengine.SplicedInserts()
			out, err := conn.ExecContext(ctx, fmt.Sprintf(stmt, table))
			took[k] = provider.InsertedRows() != before
			if sqlengine.SplicedInserts() != spliced {
				if direct == 0 {
					t.Errorf("trial %d: with lakesql_insert_direct = 0 the splice front ran the INSERT", trial)
				}
				outcomes["spliced"]++
			}
			var b strings.Builder
			if err != nil {
				fmt.Fprintf(&b, "error: %v\n", err)
			} else {
				n, _ := out.RowsAffected()
				fmt.Fprintf(&b, "affected %d\n", n)
			}
			for _, w := range queryStrings(t, conn, "SHOW WARNINGS") {
				fmt.Fprintf(&b, "warning %q\n", w)
			}
			if err == nil {
				fmt.Fprintf(&b, "row_count %v\n", queryStrings(t, conn, "SELECT ROW_COUNT()"))
			}
			for _, row := range queryStrings(t, conn, "SELECT * FROM "+table+" ORDER BY id, i, s, amt, dt") {
				fmt.Fprintf(&b, "%q\n", row)
			}
			res[k] = b.String()
			switch {
			case err != nil:
				outcomes["error"]++
			case strings.Contains(res[k], "warning"):
				outcomes["inserted with warnings"]++
			default:
				outcomes["inserted"]++
			}
		}
		if took[1] {
			t.Errorf("trial %d: with lakesql_insert_direct = 0 the direct path inserted rows", trial)
		}
		if took[0] {
			outcomes["direct"]++
		}
		if testing.Verbose() {
			t.Logf("trial %d (direct %v): %s", trial, took[0], strings.SplitN(res[0], "\n", 2)[0])
		}
		if res[0] != res[1] {
			t.Errorf("trial %d: %s\ndirect path:\n%s\nINSERT path:\n%s", trial, fmt.Sprintf(stmt, "t"), res[0], res[1])
		}
	}
	t.Logf("outcomes (both paths): %v", outcomes)
	if provider.InsertedRows() == direct0 || outcomes["direct"] < trials/4 {
		t.Errorf("too few INSERTs took the direct path: %d of %d", outcomes["direct"], trials)
	}
	if outcomes["spliced"] < trials/10 {
		t.Errorf("too few INSERTs went through the splice front: %d of %d", outcomes["spliced"], trials)
	}
	if outcomes["error"] == 0 || outcomes["inserted"] == 0 || outcomes["inserted with warnings"] == 0 {
		t.Errorf("the trials did not cover failing, clean and warning INSERTs: %v", outcomes)
	}
}

// spliceable: lit is a literal the splice front reads (no backslash, no
// keyword but NULL, no expression, no hex).
func spliceable(lit string) bool {
	if n := strings.TrimLeft(lit, "-0123456789"); n == "" && len(lit) > 18 {
		return false // an integer beyond int64's 18 digits
	}
	if strings.ContainsAny(lit, `\"`) || strings.HasPrefix(lit, "0x") || strings.Contains(lit, "(") || strings.Contains(lit, "- ") {
		return false
	}
	switch strings.ToUpper(lit) {
	case "DEFAULT", "TRUE", "FALSE":
		return false
	}
	return true
}

// TestInsertDirectInTransaction: inside BEGIN … COMMIT a direct INSERT is
// one statement of the transaction: its rows are read back before the
// commit, a failing INSERT drops only its own rows (MySQL's statement
// atomicity), ROLLBACK drops everything, and the commit is one snapshot.
// Prepared INSERTs with placeholders insert the same rows.
func TestInsertDirectInTransaction(t *testing.T) {
	wh, dir := t.TempDir(), t.TempDir()
	addr := startFilesServer(t, wh, dir)
	mustExec(t, openWarehouseDB(t, addr, "", ""), "CREATE DATABASE idt")
	db := openWarehouseDB(t, addr, "idt", "")
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	mustExec(t, conn, "CREATE TABLE t (id INT NOT NULL, s VARCHAR(4), amt DECIMAL(6,2), PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '2')")
	before := provider.InsertedRows()
	mustExec(t, conn, "BEGIN", "INSERT INTO t VALUES (1, 'a', 1.5), (2, 'b', -2.25), (3, 'c', NULL)")
	_, err = conn.ExecContext(ctx, "INSERT INTO t VALUES (10, 'x', 1), (11, 'y', 'z'), (12, 'w', 3)")
	if mysqlErrNo(err) != 1366 || !strings.Contains(err.Error(), "at row 2") {
		t.Fatalf("INSERT of a bad amount: %v, want 1366 at row 2", err)
	}
	want := "[[1 a 1.50] [2 b -2.25] [3 c NULL]]"
	if got := queryStrings(t, conn, "SELECT id, s, amt FROM t ORDER BY id"); fmt.Sprint(got) != want {
		t.Errorf("inside the transaction: %v, want %s", got, want)
	}
	mustExec(t, conn, "COMMIT")
	if got := queryStrings(t, conn, "SELECT id, s, amt FROM t ORDER BY id"); fmt.Sprint(got) != want {
		t.Errorf("after COMMIT: %v, want %s", got, want)
	}
	if n := snapshotCount(t, conn, "t"); n != 1 {
		t.Errorf("%d snapshots after one transaction, want 1", n)
	}
	mustExec(t, conn, "BEGIN", "INSERT INTO t VALUES (4, 'd', 4)", "ROLLBACK")
	if got := queryStrings(t, conn, "SELECT COUNT(*) FROM t"); got[0][0] != "3" {
		t.Errorf("after ROLLBACK: %v rows, want 3", got)
	}
	if n := provider.InsertedRows() - before; n != 4 {
		t.Errorf("the direct path inserted %d rows, want 4 (two good INSERTs)", n)
	}
	// A prepared INSERT (server-side: COM_STMT_PREPARE/EXECUTE).
	pdb := openWarehouseDB(t, addr, "idt", "&interpolateParams=false")
	res, err := pdb.ExecContext(ctx, "INSERT INTO t VALUES (?, ?, ?), (?, ?, ?)", 5, "e", "5.25", 6, nil, 6)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 2 {
		t.Errorf("prepared INSERT: %d rows affected, want 2", n)
	}
	if got := queryStrings(t, conn, "SELECT id, s, amt FROM t WHERE id >= 5 ORDER BY id"); fmt.Sprint(got) != "[[5 e 5.25] [6 NULL 6.00]]" {
		t.Errorf("prepared INSERT: %v", got)
	}
	t.Logf("prepared INSERT took the direct path: %v", provider.InsertedRows()-before > 4)
}
