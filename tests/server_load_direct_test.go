package tests

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/provider"
)

// LOAD DATA into a Paimon table takes lakesql's direct path
// (sqlengine/loadinto.go, provider/load.go); SET lakesql_load_direct = 0
// sends it through GMS's INSERT path. TestLoadDirectEqualsInsertPath loads
// random files — quoting, doubled and escaped quotes, escapes, \N and NULL,
// empty and missing fields, CRLF lines, IGNORE n LINES, column lists,
// LOCAL, REPLACE and IGNORE, good values, edge values and bad ones — through both
// paths into twin tables and requires the same outcome: the error, or the
// affected rows, SHOW WARNINGS and every row of the table.

// loadDirectDDL is the twin tables' columns: every type the direct path
// converts itself, the ones it leaves to the INSERT path's steps, NOT NULL
// and literal defaults.
const loadDirectDDL = `id BIGINT NOT NULL, i INT, ti TINYINT, si SMALLINT, amt DECIMAL(10,3), big DECIMAL(30,5),
	dbl DOUBLE, fl FLOAT, s VARCHAR(12), c CHAR(4), t TEXT, d DATE, dt DATETIME, dt3 DATETIME(3),
	nn INT NOT NULL, df INT, ds VARCHAR(10), b BOOLEAN`

var loadDirectCols = []string{"id", "i", "ti", "si", "amt", "big", "dbl", "fl", "s", "c", "t", "d", "dt", "dt3", "nn", "df", "ds", "b"}

// loadValue returns a random field text for column col (raw: NULL is
// `\N`; the caller quotes and escapes): a value a strict INSERT takes,
// edge values included, or with bad one it may refuse.
func loadValue(r *rand.Rand, col string, bad bool) string {
	pick := func(xs ...string) string { return xs[r.Intn(len(xs))] }
	if bad {
		switch r.Intn(3) {
		case 0:
			return pick("abc", "12abc", " 5", "+5", "0x10", "-", ".5", "5.", "--1", "１２", "", `\N`,
				"99999999999999999999", "-9223372036854775809", "123456789012345.123456", "é漢字長すぎる文字列です")
		case 1:
			switch col {
			case "ti":
				return pick("128", "-129")
			case "si":
				return pick("32768", "-32769")
			case "i":
				return pick("2147483648", "-2147483649")
			case "amt":
				return pick("10000000", "-12345678.5")
			case "fl", "dbl":
				return pick("3.4028235e39", "-1e39", "1e300", "2.5e-3")
			case "s":
				return pick("123456789", "é漢字長すぎる文")
			case "c":
				return pick("abcde", "x    y")
			case "d", "dt", "dt3":
				return pick("2023-02-29", "2024-13-01", "2024-01-01 24:00:00", "0000-00-00", "2024-1-5", "20240105", "0999-12-31")
			}
		}
	}
	if col != "id" && col != "nn" && r.Intn(25) == 0 {
		if col == "s" || col == "ds" || col == "t" || col == "c" {
			return pick(`\N`, "", "NULL")
		}
		return `\N`
	}
	switch col {
	case "id", "nn":
		return fmt.Sprint(r.Int63n(1000) - 20)
	case "i", "df":
		return pick(fmt.Sprint(r.Int31()-r.Int31()), "2147483647", "-2147483648", "0", "-0", "007", "42")
	case "ti":
		return pick(fmt.Sprint(r.Intn(256)-128), "127", "-128")
	case "si":
		return pick(fmt.Sprint(r.Intn(65536)-32768), "32767", "-32768")
	case "amt":
		return pick(fmt.Sprintf("%d.%03d", r.Intn(2000000)-1000000, r.Intn(1000)), "9999999.999", "-9999999.999", "0.5",
			"1.2345", "-0.000", "00012.1", "3", "0.0005")
	case "big":
		return pick(fmt.Sprintf("%d%d.%d", r.Int63(), r.Intn(1000000), r.Intn(100000)), "1.5", "-0.00001", "0")
	case "dbl":
		return pick(fmt.Sprintf("%d.%d", r.Intn(100000)-50000, r.Intn(1000)), "0.1", "-0", "123456789012345678",
			"179769313486231570000000000000000000000", "2.5", "0.30000000000000004")
	case "fl":
		return pick(fmt.Sprintf("%d.%d", r.Intn(100000)-50000, r.Intn(1000)), "0.1", "-0", "16777217", "2.5", "0.3")
	case "s", "ds":
		return pick("", "a", "plain", "with,comma", "quote\"d", "tab\there", "nl\nline", "back\\slash", "12345678",
			"é漢", "NULL", `\N`+"x", "crlf\r\nx", "8charsé!", "'sq'")
	case "c":
		return pick("ab", "abcd", "x ", "", "é")
	case "t":
		return pick("long text "+strings.Repeat("z", r.Intn(40)), "", "t")
	case "d":
		return pick(fmt.Sprintf("20%02d-%02d-%02d", r.Intn(40), 1+r.Intn(12), 1+r.Intn(28)), "2024-02-29",
			"1000-01-01", "9999-12-31", "1970-01-01")
	case "dt", "dt3":
		return pick(fmt.Sprintf("20%02d-%02d-%02d %02d:%02d:%02d", r.Intn(40), 1+r.Intn(12), 1+r.Intn(28), r.Intn(24), r.Intn(60), r.Intn(60)),
			"2024-01-01 00:00:00.5", "2024-01-01 00:00:00.123", "2024-01-01 00:00:00.1239", "2024-06-30 23:59:59.9999",
			"2024-01-01", "1000-01-01 00:00:00", "9999-12-31 23:59:59", "1969-12-31 23:59:59.999")
	case "b":
		return pick("0", "1")
	}
	return "x"
}

// loadFormat is one LOAD statement's file format.
type loadFormat struct {
	term, line, enc string
	always          bool // enclose every field (else at random)
}

// loadFieldText formats one field: NULLs stay `\N` (or the bare word
// NULL when enclosing), escapes for the escape character and terminators.
func (f loadFormat) field(r *rand.Rand, v string) string {
	if v == `\N` || v == "NULL" && f.enc != "" && r.Intn(2) == 0 {
		return v
	}
	v = strings.ReplaceAll(v, `\`, `\\`)
	quote := f.enc != "" && (f.always || r.Intn(3) == 0 || strings.Contains(v, f.term) || strings.Contains(v, f.line))
	if quote {
		if r.Intn(2) == 0 {
			v = strings.ReplaceAll(v, f.enc, f.enc+f.enc)
		} else {
			v = strings.ReplaceAll(v, f.enc, `\`+f.enc)
		}
		return f.enc + v + f.enc
	}
	v = strings.ReplaceAll(v, f.term, `\`+f.term)
	v = strings.ReplaceAll(v, "\n", `\n`)
	v = strings.ReplaceAll(v, "\r", `\r`)
	v = strings.ReplaceAll(v, "\t", `\t`)
	if f.enc != "" && strings.HasPrefix(v, f.enc) {
		v = `\` + v
	}
	return v
}

func TestLoadDirectEqualsInsertPath(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	trials := 40
	if testing.Short() {
		trials = 12
	}
	wh, dir := t.TempDir(), t.TempDir()
	addr := startFilesServer(t, wh, dir)
	mustExec(t, openWarehouseDB(t, addr, "", ""), "CREATE DATABASE ldd")
	db := openWarehouseDB(t, addr, "ldd", "&allowAllFiles=true")
	mustExec(t, db, "SET GLOBAL local_infile = 1")
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()

	direct0 := provider.LoadedRows()
	outcomes := map[string]int{}
	for trial := 0; trial < trials; trial++ {
		pk := r.Intn(3) > 0
		ddl := "CREATE TABLE %s (" + loadDirectDDL + ")"
		if pk {
			ddl = "CREATE TABLE %s (" + loadDirectDDL + ", PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '" + fmt.Sprint(1+r.Intn(4)) + "')"
		}
		// The file's columns: every column in order, or a random subset in
		// random order (columns left out take their defaults).
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
		formats := []loadFormat{{",", "\n", `"`, false}, {",", "\r\n", `"`, true}, {"\t", "\n", "", false}, {"||", "\n", "'", false}, {",", "\n", "", false}}
		f := formats[r.Intn(len(formats))]
		bad := r.Intn(3) == 0
		short := r.Intn(4) == 0
		ignoreLines := r.Intn(3)
		var file strings.Builder
		for k := 0; k < ignoreLines; k++ {
			file.WriteString("header " + fmt.Sprint(k) + f.line)
		}
		rows := 1 + r.Intn(120)
		for k := 0; k < rows; k++ {
			if r.Intn(40) == 0 {
				file.WriteString(f.line) // a blank line
			}
			n := len(cols)
			if short && r.Intn(15) == 0 {
				n = 1 + r.Intn(len(cols)) // a short record: the rest take defaults
			}
			for j := 0; j < n; j++ {
				if j > 0 {
					file.WriteString(f.term)
				}
				v := loadValue(r, cols[j], bad && r.Intn(40) == 0)
				file.WriteString(f.field(r, v))
			}
			if r.Intn(30) == 0 {
				file.WriteString(f.term + "extra") // an extra field is ignored
			}
			file.WriteString(f.line)
		}
		p := filepath.Join(dir, fmt.Sprintf("f%d.txt", trial))
		if err := os.WriteFile(p, []byte(file.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		mode := ""
		switch r.Intn(6) {
		case 0:
			mode = "REPLACE "
		case 1:
			mode = "IGNORE "
		}
		enc := ""
		if f.enc != "" {
			enc = fmt.Sprintf(" OPTIONALLY ENCLOSED BY '%s'", strings.ReplaceAll(f.enc, "'", "''"))
			if f.always && r.Intn(2) == 0 {
				enc = fmt.Sprintf(" ENCLOSED BY '%s'", f.enc)
			}
		}
		colList := ""
		if list {
			colList = " (" + strings.Join(cols, ", ") + ")"
		}
		lineTerm := map[string]string{"\n": `\n`, "\r\n": `\r\n`}[f.line]
		fieldTerm := map[string]string{",": ",", "\t": `\t`, "||": "||"}[f.term]
		local := ""
		if r.Intn(3) == 0 {
			local = "LOCAL " // without REPLACE: IGNORE's handling of bad values
		}
		stmt := fmt.Sprintf("LOAD DATA %sINFILE '%s' %sINTO TABLE %%s FIELDS TERMINATED BY '%s'%s LINES TERMINATED BY '%s' IGNORE %d LINES%s",
			local, p, mode, fieldTerm, enc, lineTerm, ignoreLines, colList)

		var res [2]string
		for k, direct := range []int{1, 0} {
			table := fmt.Sprintf("t%d_%d", trial, k)
			mustExec(t, conn, fmt.Sprintf(ddl, table), fmt.Sprintf("SET lakesql_load_direct = %d", direct))
			before := provider.LoadedRows()
			out, err := conn.ExecContext(ctx, fmt.Sprintf(stmt, table))
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
			for _, row := range queryStrings(t, conn, "SELECT * FROM "+table+" ORDER BY id, i, s, amt, dt") {
				fmt.Fprintf(&b, "%q\n", row)
			}
			res[k] = b.String()
			if direct == 0 && provider.LoadedRows() != before {
				t.Errorf("trial %d: with lakesql_load_direct = 0 the direct path loaded rows", trial)
			}
			switch {
			case err != nil:
				outcomes["error"]++
			case strings.Contains(res[k], "warning"):
				outcomes["loaded with warnings"]++
			default:
				outcomes["loaded"]++
			}
		}
		if testing.Verbose() {
			t.Logf("trial %d: %s", trial, strings.SplitN(res[0], "\n", 2)[0])
		}
		if res[0] != res[1] {
			t.Errorf("trial %d: %s\nfile:\n%s\ndirect path:\n%s\nINSERT path:\n%s", trial, fmt.Sprintf(stmt, "t"), file.String(), res[0], res[1])
		}
	}
	t.Logf("outcomes (both paths): %v", outcomes)
	if provider.LoadedRows() == direct0 {
		t.Error("no LOAD took the direct path")
	}
	if outcomes["error"] == 0 || outcomes["loaded"] == 0 || outcomes["loaded with warnings"] == 0 {
		t.Errorf("the trials did not cover both failing and succeeding loads: %v", outcomes)
	}
}

// TestLoadDirectInTransaction: inside BEGIN … COMMIT a direct LOAD is one
// statement of the transaction: its rows are read back before the commit,
// a failing LOAD drops only its own rows, ROLLBACK drops everything, and
// the commit is one snapshot.
func TestLoadDirectInTransaction(t *testing.T) {
	wh, dir := t.TempDir(), t.TempDir()
	addr := startFilesServer(t, wh, dir)
	mustExec(t, openWarehouseDB(t, addr, "", ""), "CREATE DATABASE ldt")
	db := openWarehouseDB(t, addr, "ldt", "")
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	good := filepath.Join(dir, "good.csv")
	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(good, []byte("1,a\n2,b\n3,c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("10,x\n11,y\nz,12\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	load := func(p string) error {
		_, err := conn.ExecContext(ctx, fmt.Sprintf("LOAD DATA INFILE '%s' INTO TABLE t FIELDS TERMINATED BY ','", p))
		return err
	}
	mustExec(t, conn, "CREATE TABLE t (id INT NOT NULL, s VARCHAR(4), PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '2')")
	before := provider.LoadedRows()
	mustExec(t, conn, "BEGIN", "INSERT INTO t VALUES (100, 'i')")
	if err := load(good); err != nil {
		t.Fatal(err)
	}
	if err := load(bad); err == nil || mysqlErrNo(err) != 1366 {
		t.Fatalf("LOAD of a bad id: %v, want 1366", err)
	}
	if got := queryStrings(t, conn, "SELECT id, s FROM t ORDER BY id"); fmt.Sprint(got) != "[[1 a] [2 b] [3 c] [100 i]]" {
		t.Errorf("inside the transaction: %v", got)
	}
	mustExec(t, conn, "COMMIT")
	if got := queryStrings(t, conn, "SELECT id, s FROM t ORDER BY id"); fmt.Sprint(got) != "[[1 a] [2 b] [3 c] [100 i]]" {
		t.Errorf("after COMMIT: %v", got)
	}
	if n := snapshotCount(t, conn, "t"); n != 1 {
		t.Errorf("%d snapshots after one transaction, want 1", n)
	}
	mustExec(t, conn, "BEGIN")
	if err := load(good); err != nil {
		t.Fatal(err)
	}
	mustExec(t, conn, "DELETE FROM t WHERE id = 100", "ROLLBACK")
	if got := queryStrings(t, conn, "SELECT COUNT(*) FROM t"); got[0][0] != "4" {
		t.Errorf("after ROLLBACK: %v rows, want 4", got)
	}
	if provider.LoadedRows()-before != 6 {
		t.Errorf("the direct path loaded %d rows, want 6 (two good loads)", provider.LoadedRows()-before)
	}
}
