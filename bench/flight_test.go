package main

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/lakesql/lakesql/sqlengine"
	"github.com/lakesql/lakesql/sqlengine/flight"
)

// writeFlightCSV writes n rows of the scanned table.
func writeFlightCSV(t *testing.T, path string, n int) {
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

// TestFlightVsMySQL scans BENCH_FLIGHT_ROWS (default 10M) rows through
// lakesql's Arrow Flight SQL endpoint (arrow-go's Flight SQL client) and
// through the MySQL protocol (go-sql-driver, text rows into RawBytes), and
// prints the time, rows/s and bytes/s of each and their ratio. The bytes
// are the result's Arrow buffer bytes for both (the same data), and the
// MySQL protocol's value bytes are printed too. No timing assertions.
//
//	cd bench && go test -run FlightVsMySQL -v -timeout 60m
//
// (A test of the bench module, beside the workload command: it runs the
// server in process, as the Flight SQL endpoint is not part of the
// command's child server.)
func TestFlightVsMySQL(t *testing.T) {
	n := 10_000_000
	if s := os.Getenv("BENCH_FLIGHT_ROWS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	if testing.Short() {
		n = 100_000
	}
	ctx := context.Background()
	wh, loadDir := t.TempDir(), t.TempDir()
	srv, err := sqlengine.New(ctx, sqlengine.Config{Warehouse: wh, Host: "127.0.0.1", Port: 0,
		Security: sqlengine.SecurityConfig{SecureFilePriv: loadDir}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Start() }()
	fs, err := flight.Listen("127.0.0.1:0", srv)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { fs.Close(); srv.Close(); <-done }()
	my, err := sql.Open("mysql", fmt.Sprintf("root@tcp(%s)/?interpolateParams=true", srv.Addr()))
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
	for _, q := range []string{"CREATE DATABASE f",
		"CREATE TABLE f.t (id BIGINT NOT NULL, grp INT, name VARCHAR(32), price DOUBLE, amt DECIMAL(12, 2), d DATE)"} {
		if _, err := my.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	csv := filepath.Join(loadDir, "t.csv")
	writeFlightCSV(t, csv, n)
	start := time.Now()
	if _, err := my.Exec(fmt.Sprintf(`LOAD DATA INFILE '%s' INTO TABLE f.t FIELDS TERMINATED BY ','`, csv)); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("LOAD DATA %d rows: %v\n", n, time.Since(start).Round(time.Millisecond))
	os.Remove(csv)

	const q = "SELECT * FROM f.t"
	cl, err := flightsql.NewClient(fs.Addr(), nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	flightScan := func() (time.Duration, int64, int64) {
		start := time.Now()
		info, err := cl.Execute(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		var rows, bytes int64
		for _, ep := range info.Endpoint {
			rdr, err := cl.DoGet(ctx, ep.Ticket)
			if err != nil {
				t.Fatal(err)
			}
			for rdr.Next() {
				rec := rdr.RecordBatch()
				rows += rec.NumRows()
				for _, c := range rec.Columns() {
					for _, b := range c.Data().Buffers() {
						if b != nil {
							bytes += int64(b.Len())
						}
					}
				}
			}
			if err := rdr.Err(); err != nil {
				t.Fatal(err)
			}
			rdr.Release()
		}
		return time.Since(start), rows, bytes
	}
	mysqlScan := func() (time.Duration, int64, int64) {
		start := time.Now()
		rs, err := my.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		defer rs.Close()
		cols, _ := rs.Columns()
		vals := make([]sql.RawBytes, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		var rows, bytes int64
		for rs.Next() {
			if err := rs.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			rows++
			for _, v := range vals {
				bytes += int64(len(v))
			}
		}
		if err := rs.Err(); err != nil {
			t.Fatal(err)
		}
		return time.Since(start), rows, bytes
	}
	flightScan() // warm the manifest and file caches
	ft, frows, fbytes := flightScan()
	mt, mrows, mbytes := mysqlScan()
	if frows != int64(n) || mrows != int64(n) {
		t.Fatalf("rows: Flight %d, MySQL %d, want %d", frows, mrows, n)
	}
	fmt.Printf("full scan of %d rows (6 columns), %d Arrow bytes; MySQL text values %d bytes\n", n, fbytes, mbytes)
	fmt.Printf("%-14s %10s %14s %12s\n", "protocol", "time", "rows/s", "MB/s (Arrow)")
	for _, r := range []struct {
		name string
		d    time.Duration
	}{{"Flight SQL", ft}, {"MySQL", mt}} {
		fmt.Printf("%-14s %10v %14.0f %12.1f\n", r.name, r.d.Round(time.Millisecond), float64(n)/r.d.Seconds(), float64(fbytes)/r.d.Seconds()/1e6)
	}
	fmt.Printf("Flight SQL is %.1fx faster\n", float64(mt)/float64(ft))
}
