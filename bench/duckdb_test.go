package bench_test

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"
	_ "github.com/go-sql-driver/mysql"

	"github.com/lakesql/lakesql/sqlengine"
)

// TestDuckDBPeer loads BENCH_ROWS (default 1M) generated rows into a
// lakesql append table with LOAD DATA, then runs the same queries through
// lakesql and through DuckDB reading the table's Parquet files directly,
// checks both agree and prints the timings and lakesql/DuckDB ratios.
// There are no timing assertions.
//
//	cd bench && go test -run DuckDBPeer -v
func TestDuckDBPeer(t *testing.T) {
	n := 1_000_000
	if s := os.Getenv("BENCH_ROWS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	if testing.Short() {
		n = 50_000
	}
	ctx := context.Background()
	wh, loadDir := t.TempDir(), t.TempDir()
	srv, err := sqlengine.New(ctx, sqlengine.Config{Warehouse: wh, Host: "127.0.0.1", Port: 0,
		Security: sqlengine.SecurityConfig{SecureFilePriv: loadDir}}) // server-side LOAD DATA INFILE reads files
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Start() }()
	defer func() { srv.Close(); <-done }()
	my, err := sql.Open("mysql", fmt.Sprintf("root@tcp(%s)/?parseTime=true&interpolateParams=true", srv.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer my.Close()
	my.SetMaxOpenConns(1)
	for deadline := time.Now().Add(10 * time.Second); my.Ping() != nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("server not ready")
		}
	}
	for _, q := range []string{
		"CREATE DATABASE b", "USE b",
		"CREATE TABLE t (id BIGINT NOT NULL, grp INT, name VARCHAR(32), price DOUBLE, amt DECIMAL(12, 2), d DATE)",
	} {
		if _, err := my.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	csv := filepath.Join(loadDir, "t.csv")
	writeCSV(t, csv, n)
	start := time.Now()
	if _, err := my.Exec(fmt.Sprintf(`LOAD DATA INFILE '%s' INTO TABLE t FIELDS TERMINATED BY ','`, csv)); err != nil {
		t.Fatal(err)
	}
	load := time.Since(start)
	fmt.Printf("LOAD DATA %d rows into lakesql: %v (%.0f rows/s)\n", n, load, float64(n)/load.Seconds())

	duck, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer duck.Close()
	files := filepath.Join(wh, "b.db", "t", "bucket-0", "*.parquet")
	if _, err := duck.Exec(fmt.Sprintf("CREATE VIEW t AS SELECT * FROM read_parquet('%s')", files)); err != nil {
		t.Fatal(err)
	}
	queries := []struct{ name, q string }{
		{"count", "SELECT COUNT(*) FROM t"},
		{"sum", "SELECT SUM(price), COUNT(amt) FROM t"},
		{"filter", "SELECT COUNT(*), MAX(name) FROM t WHERE grp = 7 AND price > 1000"},
		{"group by", "SELECT grp, COUNT(*), SUM(price) FROM t GROUP BY grp ORDER BY grp LIMIT 5"},
		{"point", "SELECT name, price FROM t WHERE id = 424242"},
		{"top-n", "SELECT id, price FROM t ORDER BY price DESC, id LIMIT 10"},
	}
	fmt.Printf("%-10s %12s %12s %8s\n", "query", "lakesql", "duckdb", "ratio")
	for _, q := range queries {
		lt, lrows := timeQuery(t, my, q.q)
		dt, drows := timeQuery(t, duck, q.q)
		if !sameRows(lrows, drows) {
			t.Errorf("%s: lakesql %v, DuckDB %v", q.name, lrows, drows)
		}
		fmt.Printf("%-10s %12v %12v %7.1fx\n", q.name, lt.Round(time.Microsecond), dt.Round(time.Microsecond), float64(lt)/float64(dt))
	}
}

func writeCSV(t *testing.T, path string, n int) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	day := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		fmt.Fprintf(w, "%d,%d,name-%07d,%g,%d.%02d,%s\n", i, i%100, i, float64(i%5000)*0.5, i%100000, i%100, day.AddDate(0, 0, i%1000).Format("2006-01-02"))
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// timeQuery runs q twice (the first run warms caches) and returns the
// second run's time and rows as text.
func timeQuery(t *testing.T, db *sql.DB, q string) (time.Duration, [][]string) {
	t.Helper()
	var out [][]string
	var el time.Duration
	for run := 0; run < 2; run++ {
		out = nil
		start := time.Now()
		rows, err := db.Query(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			rec := make([]string, len(vals))
			for i, v := range vals {
				rec[i] = norm(v)
			}
			out = append(out, rec)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		el = time.Since(start)
	}
	return el, out
}

// norm prints numbers alike whichever driver returned them.
func norm(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		return norm(string(x))
	case string:
		if f, err := strconv.ParseFloat(x, 64); err == nil {
			return norm(f)
		}
		return x
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return strconv.FormatInt(int64(x), 10)
		}
		return strconv.FormatFloat(x, 'g', 10, 64)
	case float32:
		return norm(float64(x))
	case int64, int32, int, uint64, int16, int8:
		return fmt.Sprint(x)
	case *big.Int:
		return x.String()
	}
	return fmt.Sprint(v)
}

func sameRows(a, b [][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if a[i][j] != b[i][j] {
				return false
			}
		}
	}
	return true
}
