package tests

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/lakesql/lakesql/sqlengine"
)

// LOAD DATA [LOCAL] INFILE reads its input with lakesql's reader
// (sqlengine/loaddata.go, MySQL's reading rules; GMS v0.20.0's own loader
// cannot read ordinary CSV) and converts the fields straight to Paimon
// values (sqlengine/loadinto.go, provider/load.go; server_load_direct_test.go
// compares it with the INSERT path): the rows are buffered in the
// statement's transaction and the commit writes them with one
// lsmwrite.TableWrite, so one LOAD statement is one Paimon snapshot per table.
//
//   - server-side files are opened by the server, only inside
//     --secure-file-priv (default: disabled, error 1290) and only for
//     accounts with FILE;
//   - LOCAL needs the global local_infile=1 (default 0) and the client's
//     consent (go-sql-driver: allowAllFiles=true or mysql.RegisterLocalFile /
//     RegisterReaderHandler; the mysql CLI: --local-infile=1).

// startWarehouseServer starts a writable lakesql server over warehouse wh
// and returns its address; the server stops at the end of the test.
func startWarehouseServer(t testing.TB, wh string) string {
	t.Helper()
	return startServerConfig(t, sqlengine.Config{Warehouse: wh, Host: "127.0.0.1", Port: 0})
}

// startFilesServer is startWarehouseServer with secure_file_priv = files,
// for the server-side LOAD DATA INFILE tests.
func startFilesServer(t testing.TB, wh, files string) string {
	t.Helper()
	return startServerConfig(t, sqlengine.Config{Warehouse: wh, Host: "127.0.0.1", Port: 0,
		Security: sqlengine.SecurityConfig{SecureFilePriv: files}})
}

// startServerConfig starts a server with cfg; it stops at the end of the test.
func startServerConfig(t testing.TB, cfg sqlengine.Config) string {
	t.Helper()
	srv, err := sqlengine.New(context.Background(), cfg)
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
	return srv.Addr()
}

// openWarehouseDB opens a pool to addr/db with extra DSN parameters and
// waits until the server answers.
func openWarehouseDB(t testing.TB, addr, db, params string) *sql.DB {
	t.Helper()
	d, err := sql.Open("mysql", fmt.Sprintf("root@tcp(%s)/%s?parseTime=true&interpolateParams=true%s", addr, db, params))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	deadline := time.Now().Add(10 * time.Second)
	for d.Ping() != nil {
		if time.Now().After(deadline) {
			t.Fatal("server not ready")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return d
}

func mustExec(t testing.TB, q queryer, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := q.ExecContext(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// ---- the generated CSV ----------------------------------------------------

// loadCols are the columns of the load tables, in CSV order.
const loadCols = "id, name, price, amt, d, ts, note"

const loadColumnsDDL = `id BIGINT NOT NULL, name VARCHAR(64), price DOUBLE, amt DECIMAL(12,2), d DATE, ts DATETIME, note VARCHAR(32)`

// loadRow is row i of the generated data (id = i*7+1 so keys spread
// over buckets out of order), as the CSV text of each column ("\N" = NULL)
// and as the text the server returns (NULL = "NULL"). gen shifts the
// non-key values, so a later generation upserts new values over old keys.
func loadRow(i, gen int) (csv, want [7]string) {
	id := strconv.Itoa(i*7 + 1)
	name := fmt.Sprintf("name-%06d-g%d", i, gen)
	price := strconv.FormatFloat(float64(i+gen)*0.25, 'f', -1, 64)
	amt := fmt.Sprintf("%d.%02d", (i+gen)%100000, (i*3+gen)%100)
	day := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, (i+gen)%1000)
	d := day.Format("2006-01-02")
	ts := day.Add(time.Duration((i*37+gen)%86400) * time.Second).Format("2006-01-02 15:04:05")
	note := "n" + strconv.Itoa((i+gen)%13)
	csv = [7]string{id, name, price, amt, d, ts, note}
	want = csv
	want[4] = d + " 00:00:00" // DATE columns scan as time.Time
	switch {
	case i%10 == 3:
		csv[6], want[6] = `\N`, "NULL"
	case i%10 == 5:
		csv[2], want[2] = `\N`, "NULL"
		csv[3], want[3] = `\N`, "NULL"
	case i%10 == 7:
		csv[4], want[4] = `\N`, "NULL"
		csv[5], want[5] = `\N`, "NULL"
	}
	if want[2] != "NULL" {
		// The server returns DOUBLEs in Go's shortest form.
		f, _ := strconv.ParseFloat(price, 64)
		want[2] = fmt.Sprint(f)
	}
	return csv, want
}

// writeLoadCSV writes rows [0, n) of generation gen with a header line;
// quoted encloses every field in double quotes.
func writeLoadCSV(w io.Writer, n, gen int, quoted bool) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	bw.WriteString(strings.ReplaceAll(loadCols, " ", "") + "\n")
	for i := 0; i < n; i++ {
		csv, _ := loadRow(i, gen)
		for j, f := range csv {
			if j > 0 {
				bw.WriteByte(',')
			}
			if quoted {
				bw.WriteByte('"')
				bw.WriteString(f)
				bw.WriteByte('"')
			} else {
				bw.WriteString(f)
			}
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

func writeLoadFile(t testing.TB, dir string, n, gen int, quoted bool) string {
	t.Helper()
	p := filepath.Join(dir, fmt.Sprintf("load-%d-%d-%v.csv", n, gen, quoted))
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeLoadCSV(f, n, gen, quoted); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

func loadStmt(local bool, file, table string, quoted bool) string {
	l := ""
	if local {
		l = "LOCAL "
	}
	enc := ""
	if quoted {
		enc = ` OPTIONALLY ENCLOSED BY '"'`
	}
	return fmt.Sprintf(`LOAD DATA %sINFILE '%s' INTO TABLE %s FIELDS TERMINATED BY ','%s LINES TERMINATED BY '\n' IGNORE 1 LINES (%s)`,
		l, file, table, enc, loadCols)
}

// snapshotCount is the number of snapshots of table (its $snapshots rows).
func snapshotCount(t testing.TB, q queryer, table string) int {
	t.Helper()
	name := "`" + table + "$snapshots`"
	if db, tb, ok := strings.Cut(table, "."); ok {
		name = db + ".`" + tb + "$snapshots`"
	}
	got := queryStrings(t, q, "SELECT COUNT(*) FROM "+name)
	n, _ := strconv.Atoi(got[0][0])
	return n
}

// checkLoaded checks table holds exactly rows [0, n) of generation gen:
// the count, aggregates over every column against the generator, and
// a spread of point lookups.
func checkLoaded(t *testing.T, q queryer, table string, n, gen int) {
	t.Helper()
	var (
		priceSum float64
		amtSum   int64 // cents
		notes    int
		dates    int
	)
	for i := 0; i < n; i++ {
		csv, _ := loadRow(i, gen)
		if csv[2] != `\N` {
			f, _ := strconv.ParseFloat(csv[2], 64)
			priceSum += f
		}
		if csv[3] != `\N` {
			c, _ := strconv.ParseInt(strings.Replace(csv[3], ".", "", 1), 10, 64)
			amtSum += c
		}
		if csv[6] != `\N` {
			notes++
		}
		if csv[4] != `\N` {
			dates++
		}
	}
	// GMS v0.20.0 sums DECIMALs in float64: compare that sum with a
	// relative tolerance (the point lookups below check exact decimals).
	got := queryStrings(t, q, "SELECT COUNT(*), COUNT(DISTINCT id), SUM(price), COUNT(note), COUNT(d), COUNT(ts), MAX(id), SUM(amt) FROM "+table)
	want := []string{strconv.Itoa(n), strconv.Itoa(n), fmt.Sprint(priceSum),
		strconv.Itoa(notes), strconv.Itoa(dates), strconv.Itoa(dates), strconv.Itoa((n-1)*7 + 1)}
	if strings.Join(got[0][:7], "|") != strings.Join(want, "|") {
		t.Errorf("%s aggregates (count, distinct ids, sum price, notes, dates, datetimes, max id) = %q, want %q", table, got[0][:7], want)
	}
	if s, err := strconv.ParseFloat(got[0][7], 64); err != nil || math.Abs(s-float64(amtSum)/100) > 1e-9*float64(amtSum)/100 {
		t.Errorf("%s SUM(amt) = %s, want %d.%02d", table, got[0][7], amtSum/100, amtSum%100)
	}
	for _, i := range []int{0, 1, 3, 5, 7, 9, 12345 % n, n / 2, n/2 + 3, n/2 + 5, n/2 + 7, n - 1} {
		_, w := loadRow(i, gen)
		got := queryStrings(t, q, "SELECT "+loadCols+" FROM "+table+" WHERE id = ?", i*7+1)
		if len(got) != 1 || strings.Join(got[0], "|") != strings.Join(w[:], "|") {
			t.Errorf("%s row %d = %q, want %q", table, i, got, w)
		}
	}
}

// TestServerLoadData loads 200k generated rows into a 4-bucket
// primary-key table and a bucket-unaware append table, server-side and
// LOCAL, and checks one snapshot per statement, every value type, NULLs
// and upserts over existing keys.
func TestServerLoadData(t *testing.T) {
	n := 200_000
	if testing.Short() {
		n = 20_000
	}
	wh := t.TempDir()
	dir := t.TempDir()
	addr := startFilesServer(t, wh, dir)
	boot := openWarehouseDB(t, addr, "", "")
	mustExec(t, boot, "CREATE DATABASE ld")
	db := openWarehouseDB(t, addr, "ld", "&allowAllFiles=true")
	mustExec(t, db,
		"CREATE TABLE pk ("+loadColumnsDDL+", PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '4')",
		"CREATE TABLE ap ("+loadColumnsDDL+")",
	)
	plain := writeLoadFile(t, dir, n, 0, false)

	for _, table := range []string{"pk", "ap"} {
		start := time.Now()
		res, err := db.Exec(loadStmt(false, plain, table, false))
		if err != nil {
			t.Fatalf("LOAD DATA INFILE into %s: %v", table, err)
		}
		el := time.Since(start)
		if ra, err := res.RowsAffected(); err != nil || ra != int64(n) {
			t.Errorf("LOAD DATA into %s: rows affected %d (%v), want %d", table, ra, err, n)
		}
		t.Logf("LOAD DATA INFILE %d rows into %s: %v (%.0f rows/s)", n, table, el, float64(n)/el.Seconds())
		if got := snapshotCount(t, db, table); got != 1 {
			t.Errorf("%s has %d snapshots after one LOAD, want 1", table, got)
		}
		checkLoaded(t, db, table, n, 0)
	}
	// The primary-key table spread its rows over the 4 bucket folders.
	for b := 0; b < 4; b++ {
		ents, err := os.ReadDir(filepath.Join(wh, "ld.db", "pk", fmt.Sprintf("bucket-%d", b)))
		if err != nil || len(ents) == 0 {
			t.Errorf("pk bucket-%d: %d files (%v)", b, len(ents), err)
		}
	}
	if _, err := os.Stat(filepath.Join(wh, "ld.db", "pk", "bucket-4")); err == nil {
		t.Error("pk has a bucket-4 folder with bucket = 4")
	}

	// LOCAL, all fields enclosed, generation 1 over the same keys: the
	// primary-key table upserts (still n rows, new values), the append table
	// doubles.
	mustExec(t, db, "SET GLOBAL local_infile = 1")
	quoted := writeLoadFile(t, dir, n, 1, true)
	for _, table := range []string{"pk", "ap"} {
		start := time.Now()
		if _, err := db.Exec(loadStmt(true, quoted, table, true)); err != nil {
			t.Fatalf("LOAD DATA LOCAL INFILE into %s: %v", table, err)
		}
		t.Logf("LOAD DATA LOCAL INFILE %d enclosed rows into %s: %v", n, table, time.Since(start))
		if got := snapshotCount(t, db, table); got != 2 {
			t.Errorf("%s has %d snapshots after two LOADs, want 2", table, got)
		}
	}
	checkLoaded(t, db, "pk", n, 1)
	if got := queryStrings(t, db, "SELECT COUNT(*), COUNT(DISTINCT id) FROM ap"); got[0][0] != strconv.Itoa(2*n) || got[0][1] != strconv.Itoa(n) {
		t.Errorf("ap after two loads: count, distinct ids = %q, want %d, %d", got[0], 2*n, n)
	}
	if got := queryStrings(t, db, "SELECT COUNT(*) FROM ap WHERE name LIKE '%-g1'"); got[0][0] != strconv.Itoa(n) {
		t.Errorf("ap rows of the second load = %s, want %d", got[0][0], n)
	}
	// The old snapshot still reads the first generation.
	if got := queryStrings(t, db, "SELECT name FROM pk AS OF 1 WHERE id = 8"); len(got) != 1 || got[0][0] != "name-000001-g0" {
		t.Errorf("pk AS OF 1, id 8 = %q", got)
	}
}

// TestServerLoadDataLocalHandlers loads through go-sql-driver's two opt-in
// mechanisms for LOCAL: a registered file path and a reader handler.
func TestServerLoadDataLocalHandlers(t *testing.T) {
	wh := t.TempDir()
	addr := startWarehouseServer(t, wh)
	mustExec(t, openWarehouseDB(t, addr, "", ""), "CREATE DATABASE ld")
	db := openWarehouseDB(t, addr, "ld", "") // no allowAllFiles
	mustExec(t, db, "CREATE TABLE pk ("+loadColumnsDDL+", PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '2')",
		"SET GLOBAL local_infile = 1")
	dir := t.TempDir()
	p := writeLoadFile(t, dir, 1000, 0, false)

	// Not registered: the driver refuses, nothing is written.
	if _, err := db.Exec(loadStmt(true, p, "pk", false)); err == nil {
		t.Error("LOAD DATA LOCAL of an unregistered file succeeded without allowAllFiles")
	}
	if got := snapshotCount(t, db, "pk"); got != 0 {
		t.Errorf("the refused LOCAL load left %d snapshots", got)
	}

	mysql.RegisterLocalFile(p)
	defer mysql.DeregisterLocalFile(p)
	if _, err := db.Exec(loadStmt(true, p, "pk", false)); err != nil {
		t.Fatalf("LOAD DATA LOCAL of a registered file: %v", err)
	}
	checkLoaded(t, db, "pk", 1000, 0)

	mysql.RegisterReaderHandler("gen2", func() io.Reader {
		var b bytes.Buffer
		writeLoadCSV(&b, 1000, 2, false)
		return &b
	})
	defer mysql.DeregisterReaderHandler("gen2")
	if _, err := db.Exec(loadStmt(true, "Reader::gen2", "pk", false)); err != nil {
		t.Fatalf("LOAD DATA LOCAL from a reader handler: %v", err)
	}
	checkLoaded(t, db, "pk", 1000, 2)
	if got := snapshotCount(t, db, "pk"); got != 2 {
		t.Errorf("%d snapshots after two LOCAL loads, want 2", got)
	}
}

// TestServerLoadDataCLI loads through `mysql --local-infile=1`.
func TestServerLoadDataCLI(t *testing.T) {
	bin, err := exec.LookPath("mysql")
	if err != nil {
		t.Fatalf("the mysql command-line client is not installed (.ci/run installs mariadb-client): %v", err)
	}
	wh := t.TempDir()
	addr := startWarehouseServer(t, wh)
	db := openWarehouseDB(t, addr, "", "")
	mustExec(t, db, "CREATE DATABASE ld", "CREATE TABLE ld.ap ("+loadColumnsDDL+")", "SET GLOBAL local_infile = 1")
	p := writeLoadFile(t, t.TempDir(), 5000, 0, false)
	host, port, _ := net.SplitHostPort(addr)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--protocol=TCP", "-h", host, "-P", port, "-u", "root", "--skip-ssl",
		"--local-infile=1", "-vvv", "-D", "ld", "-e", loadStmt(true, p, "ap", false))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mysql --local-infile=1: %v\n%s", err, out)
	}
	// MySQL's info string of a LOAD DATA, which the client prints: the
	// parts that fit the 35 bytes vitess's OK packet allows (fitInfo in
	// sqlengine/protocol.go).
	if !strings.Contains(string(out), "Records: 5000  Deleted: 0") {
		t.Errorf("mysql -vvv output lacks LOAD DATA's info string:\n%s", out)
	}
	checkLoaded(t, db, "ld.ap", 5000, 0)
	if got := snapshotCount(t, db, "ld.ap"); got != 1 {
		t.Errorf("%d snapshots after one CLI load, want 1", got)
	}
}

// BenchmarkServerLoadData loads LAKESQL_LOAD_ROWS (default 1M) generated
// rows per iteration with one LOAD DATA INFILE into a fresh 4-bucket
// primary-key table and a fresh append table, and reports rows/s.
//
//	go test ./tests/ -run '^$' -bench ServerLoadData -benchtime 1x
func BenchmarkServerLoadData(b *testing.B) {
	n := 1_000_000
	if s := os.Getenv("LAKESQL_LOAD_ROWS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	wh := b.TempDir()
	files := b.TempDir()
	addr := startFilesServer(b, wh, files)
	mustExec(b, openWarehouseDB(b, addr, "", ""), "CREATE DATABASE ld")
	db := openWarehouseDB(b, addr, "ld", "")
	p := writeLoadFile(b, files, n, 0, false)
	for _, kind := range []string{"pk", "ap"} {
		b.Run(kind, func(b *testing.B) {
			var total time.Duration
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				table := fmt.Sprintf("%s%d", kind, i)
				ddl := "CREATE TABLE " + table + " (" + loadColumnsDDL + ")"
				if kind == "pk" {
					ddl = "CREATE TABLE " + table + " (" + loadColumnsDDL + ", PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '4')"
				}
				mustExec(b, db, ddl)
				b.StartTimer()
				start := time.Now()
				mustExec(b, db, loadStmt(false, p, table, false))
				total += time.Since(start)
			}
			b.ReportMetric(float64(n)*float64(b.N)/total.Seconds(), "rows/s")
		})
	}
}

// TestServerLoadDataCSV checks MySQL's LOAD DATA reading rules on ordinary
// CSV: optional quotes, quoted terminators and newlines, doubled and
// escaped quotes, escape sequences, \N and NULL, empty and missing fields,
// blank lines, CRLF lines and the tab-separated default format.
func TestServerLoadDataCSV(t *testing.T) {
	wh := t.TempDir()
	dir := t.TempDir()
	addr := startFilesServer(t, wh, dir)
	mustExec(t, openWarehouseDB(t, addr, "", ""), "CREATE DATABASE ld")
	db := openWarehouseDB(t, addr, "ld", "")
	csv := "id,s,n,d,dt\n" +
		"1,plain,10,2024-01-02,2024-01-02 03:04:05.5\n" +
		"2,\"with, comma\",20,\"2024-01-03\",\"2024-01-03 00:00:00\"\n" +
		"3,\"say \"\"hi\"\"\",\\N,\\N,\\N\n" +
		"4,\"NULL\",NULL,,\n" +
		"5,\"line\nbreak\",5,2024-02-29,2024-02-29 23:59:59.123456\n" +
		"6,tab\\there,6,2024-03-01,2024-03-01\n" +
		"7,\"\",\\N,2024-03-02,2024-03-02 01:02:03\n" +
		"8,esc\\,comma,8\n" +
		"9,\"esc \\\"q\\\"\",9,2024-12-31,2024-12-31 23:59:59\n" +
		"10,\\Nope,\"11\",\"\\N\",2024-01-01 00:00:00.000001\n" +
		"\n"
	want := [][]string{
		{"1", "plain", "10", "2024-01-02 00:00:00", "2024-01-02 03:04:05.5"},
		{"2", "with, comma", "20", "2024-01-03 00:00:00", "2024-01-03 00:00:00"},
		{"3", `say "hi"`, "NULL", "NULL", "NULL"},
		{"4", "NULL", "NULL", "NULL", "NULL"},
		{"5", "line\nbreak", "5", "2024-02-29 00:00:00", "2024-02-29 23:59:59.123456"},
		{"6", "tab\there", "6", "2024-03-01 00:00:00", "2024-03-01 00:00:00"},
		{"7", "", "NULL", "2024-03-02 00:00:00", "2024-03-02 01:02:03"},
		{"8", "esc,comma", "8", "NULL", "NULL"},
		{"9", `esc "q"`, "9", "2024-12-31 00:00:00", "2024-12-31 23:59:59"},
		{"10", "Nope", "11", "NULL", "2024-01-01 00:00:00.000001"},
	}
	const ddl = "CREATE TABLE %s (id INT NOT NULL, s VARCHAR(64), n INT, d DATE, dt DATETIME(6), PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1')"
	check := func(table string) {
		t.Helper()
		got := queryStrings(t, db, "SELECT id, s, n, d, dt FROM "+table+" ORDER BY id")
		diffRows(t, table, got, want)
		if n := snapshotCount(t, db, table); n != 1 {
			t.Errorf("%s: %d snapshots after one LOAD, want 1", table, n)
		}
	}

	mustExec(t, db, fmt.Sprintf(ddl, "c1"))
	p := filepath.Join(dir, "c.csv")
	if err := os.WriteFile(p, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, fmt.Sprintf(`LOAD DATA INFILE '%s' INTO TABLE c1 FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '"' LINES TERMINATED BY '\n' IGNORE 1 LINES (id, s, n, d, dt)`, p))
	check("c1")

	// The same file with CRLF line ends (a quoted LF stays in the field).
	mustExec(t, db, fmt.Sprintf(ddl, "c2"))
	crlf := strings.ReplaceAll(csv, ",\"line\nbreak\",", ",\"line\x00break\",")
	crlf = strings.ReplaceAll(strings.ReplaceAll(crlf, "\n", "\r\n"), "\x00", "\n")
	p2 := filepath.Join(dir, "crlf.csv")
	if err := os.WriteFile(p2, []byte(crlf), 0o644); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, fmt.Sprintf(`LOAD DATA INFILE '%s' INTO TABLE c2 FIELDS TERMINATED BY ',' ENCLOSED BY '"' LINES TERMINATED BY '\r\n' IGNORE 1 LINES (id, s, n, d, dt)`, p2))
	check("c2")

	// MySQL's default format: tab-separated, no quotes, backslash escapes,
	// and no column list (every column, in table order).
	mustExec(t, db, fmt.Sprintf(ddl, "c3"))
	var tsv strings.Builder
	for _, r := range want {
		for j, v := range r {
			if j > 0 {
				tsv.WriteByte('\t')
			}
			switch {
			case v == "NULL" && j > 1:
				tsv.WriteString(`\N`)
				continue
			case j == 3:
				v = v[:10]
			}
			tsv.WriteString(strings.NewReplacer("\\", `\\`, "\t", `\t`, "\n", `\n`).Replace(v))
		}
		tsv.WriteByte('\n')
	}
	p3 := filepath.Join(dir, "c.tsv")
	if err := os.WriteFile(p3, []byte(tsv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, fmt.Sprintf(`LOAD DATA INFILE '%s' INTO TABLE c3`, p3))
	check("c3")

	// User variables and SET are left to GMS's own loader.
	mustExec(t, db, fmt.Sprintf(ddl, "c4"))
	p4 := filepath.Join(dir, "vars.csv")
	if err := os.WriteFile(p4, []byte("1,abc\n2,def\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, fmt.Sprintf(`LOAD DATA INFILE '%s' INTO TABLE c4 FIELDS TERMINATED BY ',' (id, @s) SET s = UPPER(@s)`, p4))
	if got := queryStrings(t, db, "SELECT id, s FROM c4 ORDER BY id"); len(got) != 2 || got[0][1] != "ABC" || got[1][1] != "DEF" {
		t.Errorf("LOAD DATA with SET: %q", got)
	}

	// A bad value fails the whole LOAD: no row and no snapshot is left.
	p5 := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(p5, []byte("20,ok,1\n21,ok,2\n22,bad,notanumber\n23,ok,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(fmt.Sprintf(`LOAD DATA INFILE '%s' INTO TABLE c1 FIELDS TERMINATED BY ',' (id, s, n)`, p5)); err == nil {
		t.Error("LOAD DATA with a bad INT value succeeded")
	}
	if n := snapshotCount(t, db, "c1"); n != 1 {
		t.Errorf("c1: %d snapshots after a failed LOAD, want 1", n)
	}
	if got := queryStrings(t, db, "SELECT COUNT(*) FROM c1 WHERE id >= 20"); got[0][0] != "0" {
		t.Errorf("the failed LOAD left %s rows", got[0][0])
	}
	mustExec(t, db, "SELECT 1") // the session's next statement must not commit the failed one
	if got := queryStrings(t, db, "SELECT COUNT(*) FROM c1"); got[0][0] != "10" {
		t.Errorf("c1 has %s rows after the failed LOAD, want 10", got[0][0])
	}

	// A file outside secure_file_priv is refused (the variable is read-only
	// at run time: only its check is exercised here with the default "").
	if _, err := db.Exec(fmt.Sprintf(`LOAD DATA INFILE '%s' INTO TABLE c4`, filepath.Join(dir, "missing.csv"))); err == nil {
		t.Error("LOAD DATA of a missing file succeeded")
	}
}
