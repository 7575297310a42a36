package flight_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/lakesql/lakesql/sqlengine"
	lflight "github.com/lakesql/lakesql/sqlengine/flight"
)

// env is an embedded lakesql server with its Flight SQL endpoint.
type env struct {
	eng *sqlengine.Server
	fs  *lflight.Server
}

func start(t *testing.T) *env {
	t.Helper()
	eng, err := sqlengine.New(context.Background(), sqlengine.Config{Warehouse: "mem://", Embedded: true})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- eng.Start() }()
	fs, err := lflight.Listen("127.0.0.1:0", eng)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		fs.Close()
		eng.Close()
		<-done
	})
	return &env{eng: eng, fs: fs}
}

// sql runs statements as root over an in-process MySQL connection.
func (e *env) sql(t *testing.T, stmts ...string) {
	t.Helper()
	db, err := e.eng.OpenDB("root", "localhost", "default", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func (e *env) client(t *testing.T) *flightsql.Client {
	t.Helper()
	c, err := flightsql.NewClient(e.fs.Addr(), nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// fetch reads every batch of a FlightInfo into one table-like record.
func fetch(ctx context.Context, c *flightsql.Client, info *flight.FlightInfo, err error) (arrow.RecordBatch, error) {
	if err != nil {
		return nil, err
	}
	var recs []arrow.RecordBatch
	var sc *arrow.Schema
	for _, ep := range info.Endpoint {
		rdr, err := c.DoGet(ctx, ep.Ticket)
		if err != nil {
			return nil, err
		}
		sc = rdr.Schema()
		for rdr.Next() {
			rec := rdr.RecordBatch()
			rec.Retain()
			recs = append(recs, rec)
		}
		err = rdr.Err()
		rdr.Release()
		if err != nil {
			return nil, err
		}
	}
	if sc == nil {
		return nil, errors.New("no endpoint")
	}
	tbl := array.NewTableFromRecords(sc, recs)
	defer tbl.Release()
	cols := make([]arrow.Array, sc.NumFields())
	for i := range cols {
		a, err := array.Concatenate(tbl.Column(i).Data().Chunks(), memory.DefaultAllocator)
		if err != nil {
			if len(tbl.Column(i).Data().Chunks()) == 0 {
				a = array.MakeArrayOfNull(memory.DefaultAllocator, sc.Field(i).Type, 0)
			} else {
				return nil, err
			}
		}
		cols[i] = a
	}
	return array.NewRecordBatch(sc, cols, tbl.NumRows()), nil
}

func fetchFn(ctx context.Context, c *flightsql.Client, f func() (*flight.FlightInfo, error)) (arrow.RecordBatch, error) {
	info, err := f()
	return fetch(ctx, c, info, err)
}

func query(t *testing.T, c *flightsql.Client, ctx context.Context, q string) arrow.RecordBatch {
	t.Helper()
	info, err := c.Execute(ctx, q)
	rec, err := fetch(ctx, c, info, err)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return rec
}

// sortedRows prints a record's rows, sorted, for comparisons that ignore
// the order of parallel splits.
func sortedRows(rec arrow.RecordBatch) []string {
	out := make([]string, rec.NumRows())
	for i := range out {
		var b strings.Builder
		for j := range int(rec.NumCols()) {
			if j > 0 {
				b.WriteString("|")
			}
			b.WriteString(rec.Column(j).ValueStr(i))
		}
		out[i] = b.String()
	}
	sortStrings(out)
	return out
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

const typesTable = `CREATE TABLE types (
  id BIGINT, i INT, si SMALLINT, ti TINYINT, b BOOLEAN, f FLOAT, d DOUBLE, dc DECIMAL(12, 3),
  s STRING, vc VARCHAR(20), bin BYTES, dt DATE, ts TIMESTAMP(6), ltz TIMESTAMP(3) WITH LOCAL TIME ZONE,
  PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '3')`

// TestFlightPlainScanMatchesRowPath: random rows of every scalar type read
// through Flight SQL come back the same from a plain scan (column batches
// straight to Arrow) and from the row path (WHERE forces it), with the
// same Arrow types, and match what was written.
func TestFlightPlainScanMatchesRowPath(t *testing.T) {
	seed := time.Now().UnixNano()
	r := rand.New(rand.NewPCG(uint64(seed), 3))
	t.Logf("seed %d", seed)
	e := start(t)
	e.sql(t, typesTable)
	var vals []string
	want := map[int64]string{}
	for id := range int64(300) {
		null := func(v string) string {
			if r.IntN(5) == 0 {
				return "NULL"
			}
			return v
		}
		row := fmt.Sprintf("(%d, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)", id,
			null(fmt.Sprint(r.Int32N(1<<30)-1<<29)), null(fmt.Sprint(r.IntN(60000)-30000)), null(fmt.Sprint(r.IntN(250)-125)),
			null([]string{"TRUE", "FALSE"}[r.IntN(2)]), null(fmt.Sprint(float32(r.IntN(1000))/4)), null(fmt.Sprint(float64(r.IntN(100000))/16)),
			null(fmt.Sprintf("%d.%03d", r.IntN(1000000)-500000, r.IntN(1000))), null(fmt.Sprintf("'s%d, \"x\"'", r.IntN(1000))),
			null(fmt.Sprintf("'v%d'", r.IntN(50))), null(fmt.Sprintf("X'%02x%02x'", r.IntN(256), r.IntN(256))),
			null(fmt.Sprintf("'20%02d-%02d-%02d'", r.IntN(30), 1+r.IntN(12), 1+r.IntN(28))),
			null(fmt.Sprintf("'2026-01-%02d 10:11:12.%06d'", 1+r.IntN(28), r.IntN(1000000))),
			null(fmt.Sprintf("'2026-02-%02d 01:02:03.%03d'", 1+r.IntN(28), r.IntN(1000))))
		vals = append(vals, row)
		want[id] = row
	}
	for i := 0; i < len(vals); i += 100 {
		e.sql(t, "INSERT INTO types VALUES "+strings.Join(vals[i:min(i+100, len(vals))], ", "))
	}
	ctx := context.Background()
	c := e.client(t)
	plain := query(t, c, ctx, "SELECT * FROM types")
	rows := query(t, c, ctx, "SELECT * FROM types WHERE id >= 0")
	if plain.NumRows() != 300 || rows.NumRows() != 300 {
		t.Fatalf("plain scan %d rows, row path %d, want 300", plain.NumRows(), rows.NumRows())
	}
	if !plain.Schema().Equal(rows.Schema()) {
		// Nullability may differ between the paths; the types may not.
		for i := range plain.Schema().NumFields() {
			if !arrow.TypeEqual(plain.Schema().Field(i).Type, rows.Schema().Field(i).Type) {
				t.Errorf("column %s: plain scan %s, row path %s", plain.Schema().Field(i).Name, plain.Schema().Field(i).Type, rows.Schema().Field(i).Type)
			}
		}
	}
	ps, rs := sortedRows(plain), sortedRows(rows)
	for i := range ps {
		if ps[i] != rs[i] {
			t.Errorf("row %d: plain scan %s, row path %s", i, ps[i], rs[i])
			break
		}
	}
	// A known row, value by value, from the plain scan.
	e.sql(t, "INSERT INTO types VALUES (1000, 7, -3, 5, TRUE, 1.5, 2.25, -123.456, 'hé', 'v', X'0102', '2026-03-04', "+
		"'2026-03-04 05:06:07.123456', '2026-03-04 05:06:07.123')")
	all := query(t, c, ctx, "SELECT * FROM types")
	found := false
	for i := range int(all.NumRows()) {
		if all.Column(0).(*array.Int64).Value(i) != 1000 {
			continue
		}
		found = true
		var got []string
		for j := 1; j < int(all.NumCols()); j++ {
			got = append(got, all.Column(j).ValueStr(i))
		}
		wantVals := []string{"7", "-3", "5", "1", "1.5", "2.25", "-123.456", "hé", "v", "AQI=", "2026-03-04",
			"2026-03-04T05:06:07.123456", "2026-03-04T05:06:07.123"}
		if strings.Join(got, "|") != strings.Join(wantVals, "|") {
			t.Errorf("row 1000:\n got %q\nwant %q", got, wantVals)
		}
	}
	if !found {
		t.Error("row 1000 not read")
	}
	_ = want
	// A projection in another order, with an alias, is still a plain scan
	// and agrees with the row path.
	a := sortedRows(query(t, c, ctx, "SELECT s AS text, id FROM types"))
	b := sortedRows(query(t, c, ctx, "SELECT s AS text, id FROM types WHERE id <= 1000"))
	if strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Errorf("projection with alias differs between the paths")
	}
}

// TestFlightCatalogTimeTravelAndUpdates covers the catalog calls, time
// travel (every spelling) and system tables, updates and DDL through the
// fronts, prepared statements with parameters, and errors with MySQL's
// codes.
func TestFlightCatalogTimeTravelAndUpdates(t *testing.T) {
	e := start(t)
	ctx := context.Background()
	c := e.client(t)
	if _, err := c.ExecuteUpdate(ctx, "CREATE DATABASE shop"); err != nil {
		t.Fatal(err)
	}
	// Flink DDL through the DDL front.
	if _, err := c.ExecuteUpdate(ctx, "CREATE TABLE shop.orders (id BIGINT, dt STRING, v STRING, PRIMARY KEY (id, dt) NOT ENFORCED) PARTITIONED BY (dt) WITH ('bucket' = '2')"); err != nil {
		t.Fatal(err)
	}
	n, err := c.ExecuteUpdate(ctx, "INSERT INTO shop.orders VALUES (1, 'a', 'x'), (2, 'b', 'y')")
	if err != nil || n != 2 {
		t.Fatalf("insert: %d, %v", n, err)
	}
	if _, err := c.ExecuteUpdate(ctx, "UPDATE shop.orders SET v = 'z' WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	cur := sortedRows(query(t, c, ctx, "SELECT id, v FROM shop.orders"))
	if strings.Join(cur, ",") != "1|z,2|y" {
		t.Errorf("current rows %v", cur)
	}
	for _, q := range []string{"SELECT id, v FROM shop.orders AS OF 1", "SELECT id, v FROM shop.orders FOR VERSION AS OF 1", "SELECT id, v FROM shop.orders VERSION AS OF 1"} {
		if got := sortedRows(query(t, c, ctx, q)); strings.Join(got, ",") != "1|x,2|y" {
			t.Errorf("%s: %v", q, got)
		}
	}
	snaps := query(t, c, ctx, "SELECT snapshot_id, commit_kind FROM shop.`orders$snapshots`")
	if snaps.NumRows() != 2 {
		t.Errorf("$snapshots: %d rows", snaps.NumRows())
	}
	// USE changes the session's database.
	if _, err := c.ExecuteUpdate(ctx, "USE shop"); err != nil {
		t.Fatal(err)
	}
	if got := query(t, c, ctx, "SELECT id FROM orders"); got.NumRows() != 2 {
		t.Errorf("after USE shop: %d rows", got.NumRows())
	}

	// Catalog.
	cats, err := fetchFn(ctx, c, func() (*flight.FlightInfo, error) { return c.GetCatalogs(ctx) })
	if err != nil || cats.NumRows() != 1 || cats.Column(0).ValueStr(0) != lflight.Catalog {
		t.Errorf("catalogs: %v %v", cats, err)
	}
	pat := "sh%"
	dbs, err := fetchFn(ctx, c, func() (*flight.FlightInfo, error) {
		return c.GetDBSchemas(ctx, &flightsql.GetDBSchemasOpts{DbSchemaFilterPattern: &pat})
	})
	if err != nil || dbs.NumRows() != 1 || dbs.Column(1).ValueStr(0) != "shop" {
		t.Errorf("db schemas: %v %v", dbs, err)
	}
	tabs, err := fetchFn(ctx, c, func() (*flight.FlightInfo, error) {
		return c.GetTables(ctx, &flightsql.GetTablesOpts{DbSchemaFilterPattern: &pat, IncludeSchema: true})
	})
	if err != nil || tabs.NumRows() != 1 || tabs.Column(2).ValueStr(0) != "orders" {
		t.Fatalf("tables: %v %v", tabs, err)
	}
	tsc, err := flight.DeserializeSchema(tabs.Column(4).(*array.Binary).Value(0), memory.DefaultAllocator)
	if err != nil || tsc.NumFields() != 3 || tsc.Field(0).Name != "id" || tsc.Field(0).Type.ID() != arrow.INT64 {
		t.Errorf("table schema: %v %v", tsc, err)
	}
	shop := "shop"
	pks, err := fetchFn(ctx, c, func() (*flight.FlightInfo, error) {
		return c.GetPrimaryKeys(ctx, flightsql.TableRef{DBSchema: &shop, Table: "orders"})
	})
	if err != nil || strings.Join(sortedRows(pks), ",") != "lakesql|shop|orders|dt|2|PRIMARY,lakesql|shop|orders|id|1|PRIMARY" {
		t.Errorf("primary keys: %v %v", sortedRows(pks), err)
	}

	// Prepared statements with a parameter.
	ps, err := c.Prepare(ctx, "SELECT v FROM shop.orders WHERE id = ?")
	if err != nil {
		t.Fatal(err)
	}
	pb := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{{Name: "p", Type: arrow.PrimitiveTypes.Int64}}, nil))
	pb.Field(0).(*array.Int64Builder).Append(2)
	ps.SetParameters(pb.NewRecordBatch())
	info, err := ps.Execute(ctx)
	got, err := fetch(ctx, c, info, err)
	if err != nil || got.NumRows() != 1 || got.Column(0).ValueStr(0) != "y" {
		t.Errorf("prepared: %v %v", got, err)
	}
	ps.Close(ctx)

	// Errors keep MySQL's code.
	_, err = c.Execute(ctx, "SELECT * FROM shop.nosuch")
	if status.Code(err) != codes.NotFound || !strings.Contains(err.Error(), "1146") {
		t.Errorf("missing table: %v", err)
	}
	_, err = c.Execute(ctx, "SELEKT 1")
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "1064") {
		t.Errorf("syntax error: %v", err)
	}
}

// TestFlightAuth: the same accounts as the MySQL protocol: basic auth
// against a password, a wrong password refused, privileges applied to
// plain scans and other statements alike.
func TestFlightAuth(t *testing.T) {
	e := start(t)
	e.sql(t, "CREATE TABLE secret (id BIGINT PRIMARY KEY, v STRING)", "INSERT INTO secret VALUES (1, 'x')",
		"CREATE USER 'alice'@'%' IDENTIFIED BY 'alice-pw'", "GRANT SELECT ON *.* TO 'alice'@'%'",
		"CREATE USER 'bob'@'%' IDENTIFIED BY 'bob-pw'",
		"CREATE USER 'carol'@'%' IDENTIFIED WITH caching_sha2_password BY 'carol-pw'", "GRANT SELECT ON *.* TO 'carol'@'%'")
	ctx := context.Background()
	c := e.client(t)
	if _, err := c.Client.AuthenticateBasicToken(ctx, "alice", "wrong"); status.Code(err) != codes.Unauthenticated {
		t.Errorf("wrong password: %v", err)
	}
	for _, who := range [][2]string{{"alice", "alice-pw"}, {"carol", "carol-pw"}} {
		actx, err := c.Client.AuthenticateBasicToken(ctx, who[0], who[1])
		if err != nil {
			t.Fatalf("%s: %v", who[0], err)
		}
		md, _ := metadata.FromOutgoingContext(actx)
		if v := md.Get("authorization"); len(v) == 0 || !strings.HasPrefix(v[0], "Bearer ") {
			t.Errorf("%s: no bearer token: %v", who[0], md)
		}
		if got := query(t, c, actx, "SELECT * FROM secret"); got.NumRows() != 1 {
			t.Errorf("%s: %d rows", who[0], got.NumRows())
		}
		if _, err := c.ExecuteUpdate(actx, "INSERT INTO secret VALUES (2, 'y')"); status.Code(err) != codes.PermissionDenied || !strings.Contains(err.Error(), "1142") {
			t.Errorf("%s: INSERT without the privilege: %v", who[0], err)
		}
	}
	bctx, err := c.Client.AuthenticateBasicToken(ctx, "bob", "bob-pw")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"SELECT * FROM secret", "SELECT * FROM secret WHERE id = 1"} {
		if _, err := c.Execute(bctx, q); status.Code(err) != codes.PermissionDenied || !strings.Contains(err.Error(), "1044") {
			t.Errorf("bob %s: %v", q, err)
		}
	}
	// A bad bearer token is refused.
	bad := metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer nope")
	if _, err := c.Execute(bad, "SELECT 1"); status.Code(err) != codes.Unauthenticated {
		t.Errorf("bad token: %v", err)
	}
}

// TestFlightAppendTableFiles: an append table's files (one raw split per
// bucket, read file by file in parallel) come back complete from a plain
// scan, as from the row path and as written.
func TestFlightAppendTableFiles(t *testing.T) {
	e := start(t)
	e.sql(t, "CREATE TABLE logs (id BIGINT, msg STRING)")
	want := []string{}
	for f := range 7 {
		var vals []string
		for i := range 50 {
			id := f*50 + i
			vals = append(vals, fmt.Sprintf("(%d, 'm%d')", id, id))
			want = append(want, fmt.Sprintf("%d|m%d", id, id))
		}
		e.sql(t, "INSERT INTO logs VALUES "+strings.Join(vals, ", "))
	}
	sortStrings(want)
	ctx := context.Background()
	c := e.client(t)
	plain := sortedRows(query(t, c, ctx, "SELECT id, msg FROM logs"))
	rows := sortedRows(query(t, c, ctx, "SELECT id, msg FROM logs WHERE id >= 0"))
	if strings.Join(plain, ",") != strings.Join(want, ",") || strings.Join(rows, ",") != strings.Join(want, ",") {
		t.Errorf("plain scan %d rows, row path %d rows, want %d (and the same rows)", len(plain), len(rows), len(want))
	}
}
