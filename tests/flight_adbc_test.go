package tests

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/lakesql/lakesql/internal/testutil"
	"github.com/lakesql/lakesql/sqlengine"
	"github.com/lakesql/lakesql/sqlengine/flight"
)

// adbcRows is the size of the scan the ADBC test fetches.
const adbcRows = 1_000_000

// genRows streams "id,name,d" lines for LOAD DATA LOCAL: id i, name
// "n<i mod 1000>", d i/2.
type genRows struct {
	i, n int
	buf  bytes.Buffer
}

func (g *genRows) Read(p []byte) (int, error) {
	for g.buf.Len() < len(p) && g.i < g.n {
		fmt.Fprintf(&g.buf, "%d,n%d,%g\n", g.i, g.i%1000, float64(g.i)/2)
		g.i++
	}
	if g.buf.Len() == 0 {
		return 0, io.EOF
	}
	return g.buf.Read(p)
}

// TestFlightADBC: the ADBC Flight SQL driver from Python (pinned in
// tests/flight/requirements.txt) logs in with a MySQL account's password,
// fetches a 1M-row plain scan with cursor.fetch_arrow_table() and gets
// every row with the Arrow types of the columns; a filtered query, time
// travel, a system table, a bound parameter, the catalog (adbc_get_objects,
// adbc_get_table_schema) and the account's privileges work as over MySQL.
func TestFlightADBC(t *testing.T) {
	py := testutil.Python(t)
	if err := exec.Command(py, "-c", "import adbc_driver_flightsql, pyarrow").Run(); err != nil {
		if testutil.RequireTools() {
			t.Fatalf("adbc-driver-flightsql is not installed in %s: %v", py, err)
		}
		t.Skipf("adbc-driver-flightsql is not installed in %s: run .ci/run once to install it", py)
	}
	ctx := context.Background()
	eng, err := sqlengine.New(ctx, sqlengine.Config{Warehouse: t.TempDir(), Host: "127.0.0.1", Port: 0,
		Security: sqlengine.SecurityConfig{LocalInfile: true}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- eng.Start() }()
	fs, err := flight.Listen("127.0.0.1:0", eng)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { fs.Close(); eng.Close(); <-done }()

	db, err := sql.Open("mysql", "root@tcp("+eng.Addr()+")/?allowAllFiles=true")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for deadline := time.Now().Add(10 * time.Second); db.Ping() != nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("server not ready")
		}
	}
	mysql.RegisterReaderHandler("adbc-rows", func() io.Reader { return &genRows{n: adbcRows} })
	defer mysql.DeregisterReaderHandler("adbc-rows")
	for _, q := range []string{
		"CREATE DATABASE flt",
		"CREATE TABLE flt.big (id BIGINT, name STRING, d DOUBLE) WITH ('bucket' = '4', 'bucket-key' = 'id')",
		"LOAD DATA LOCAL INFILE 'Reader::adbc-rows' INTO TABLE flt.big FIELDS TERMINATED BY ','",
		"CREATE USER 'analyst'@'%' IDENTIFIED BY 'analyst-pw'",
		"GRANT SELECT ON flt.* TO 'analyst'@'%'",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	cmd := exec.Command(py, "flight/adbc_check.py", "grpc://"+fs.Addr(), "analyst", "analyst-pw")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("adbc_check.py: %v\n%s", err, stderr.String())
	}
	var got struct {
		ScanSeconds float64           `json:"scan_seconds"`
		Rows        int               `json:"rows"`
		Types       map[string]string `json:"types"`
		SumID       int64             `json:"sum_id"`
		SumD        float64           `json:"sum_d"`
		Names       int               `json:"names"`
		Nulls       int               `json:"nulls"`
		First       []map[string]any  `json:"first"`
		AsOf1       int               `json:"as_of_1"`
		Snapshots   int               `json:"snapshots"`
		Param       []map[string]any  `json:"param"`
		Insert      string            `json:"insert"`
		Objects     [][3]string       `json:"objects"`
		TableSchema map[string]string `json:"table_schema"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("adbc_check.py output %q: %v\n%s", stdout.String(), err, stderr.String())
	}
	t.Logf("ADBC fetch_arrow_table of %d rows: %.2fs", got.Rows, got.ScanSeconds)
	n := int64(adbcRows)
	wantTypes := map[string]string{"id": "int64", "name": "string", "d": "double"}
	switch {
	case got.Rows != adbcRows:
		t.Errorf("rows %d, want %d", got.Rows, adbcRows)
	case got.SumID != n*(n-1)/2:
		t.Errorf("sum(id) %d, want %d", got.SumID, n*(n-1)/2)
	case got.SumD != float64(n*(n-1)/2)/2:
		t.Errorf("sum(d) %v, want %v", got.SumD, float64(n*(n-1)/2)/2)
	case got.Names != 1000 || got.Nulls != 0:
		t.Errorf("names %d (nulls %d), want 1000 distinct", got.Names, got.Nulls)
	case fmt.Sprint(got.Types) != fmt.Sprint(wantTypes) || fmt.Sprint(got.TableSchema) != fmt.Sprint(wantTypes):
		t.Errorf("types %v, table schema %v; want %v", got.Types, got.TableSchema, wantTypes)
	case fmt.Sprint(got.First) != "[map[id:0 name:n0] map[id:1 name:n1] map[id:2 name:n2]]":
		t.Errorf("filtered query %v", got.First)
	case got.AsOf1 != adbcRows || got.Snapshots != 1:
		t.Errorf("AS OF 1: %d rows; $snapshots: %d rows", got.AsOf1, got.Snapshots)
	case fmt.Sprint(got.Param) != "[map[name:n42]]":
		t.Errorf("bound parameter: %v", got.Param)
	case !strings.Contains(got.Insert, "1142"):
		t.Errorf("INSERT by a read-only account: %q, want error 1142", got.Insert)
	case fmt.Sprint(got.Objects) != "[[lakesql flt big]]":
		t.Errorf("adbc_get_objects: %v", got.Objects)
	}
}
