package tests

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/sqlengine"
)

// The DDL tests run their own writable server over an empty temporary
// warehouse and check both what clients see and the schema-N files written.

type ddlServer struct {
	wh   string
	addr string
	db   *sql.DB   // database ddl
	conn *sql.Conn // one connection of db, to prove errors keep it usable
}

func startDDLServer(t *testing.T) *ddlServer {
	t.Helper()
	wh := t.TempDir()
	return startDDLServerAt(t, wh, wh)
}

// startDDLServerAt is startDDLServer over the warehouse URL url of the
// folder wh.
func startDDLServerAt(t *testing.T, wh, url string) *ddlServer {
	t.Helper()
	s := &ddlServer{wh: wh, addr: startServerConfig(t, sqlengine.Config{Warehouse: url, Host: "127.0.0.1", Port: 0})}
	boot := s.open(t, "")
	waitReady(t, boot)
	if _, err := boot.Exec("CREATE DATABASE ddl"); err != nil {
		t.Fatalf("CREATE DATABASE ddl: %v", err)
	}
	s.db = s.open(t, "ddl")
	var err error
	s.conn, err = s.db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.conn.Close() })
	return s
}

func (s *ddlServer) open(t *testing.T, db string) *sql.DB {
	t.Helper()
	d, err := sql.Open("mysql", fmt.Sprintf("root@tcp(%s)/%s?parseTime=true&interpolateParams=true", s.addr, db))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func waitReady(t *testing.T, db *sql.DB) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for db.Ping() != nil {
		if time.Now().After(deadline) {
			t.Fatal("server not ready")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// exec runs statements on the test connection.
func (s *ddlServer) exec(t *testing.T, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if _, err := s.conn.ExecContext(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// fails runs q, expects a MySQL error with code (0 = any) whose message
// contains every want, then checks the connection still works.
func (s *ddlServer) fails(t *testing.T, q string, code uint16, want ...string) {
	t.Helper()
	_, err := s.conn.ExecContext(context.Background(), q)
	if err == nil {
		t.Fatalf("%s: succeeded, want an error", q)
	}
	if code != 0 && mysqlErrNo(err) != code {
		t.Errorf("%s: error %v, want MySQL error %d", q, err, code)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: error %q does not mention %q", q, err, w)
		}
	}
	var one int
	if err := s.conn.QueryRowContext(context.Background(), "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("connection unusable after %q: %v", q, err)
	}
}

// schemas decodes every schema/schema-N of db.table, by id.
func (s *ddlServer) schemas(t *testing.T, db, table string) []*schema.TableSchema {
	t.Helper()
	dir := filepath.Join(s.wh, db+".db", table, "schema")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("schema folder of %s.%s: %v", db, table, err)
	}
	var out []*schema.TableSchema
	for i := 0; ; i++ {
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("schema-%d", i)))
		if os.IsNotExist(err) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ts, err := schema.DecodeTableSchema(b)
		if err != nil {
			t.Fatalf("schema-%d of %s.%s: %v", i, db, table, err)
		}
		if ts.ID != schema.SchemaID(i) {
			t.Errorf("schema-%d has id %d", i, ts.ID)
		}
		out = append(out, ts)
	}
	if len(out) == 0 || len(out) != countSchemaFiles(ents) {
		t.Fatalf("%s.%s: %d schema files, %d decoded in sequence", db, table, countSchemaFiles(ents), len(out))
	}
	return out
}

func countSchemaFiles(ents []os.DirEntry) int {
	n := 0
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "schema-") {
			n++
		}
	}
	return n
}

func (s *ddlServer) latest(t *testing.T, db, table string) *schema.TableSchema {
	t.Helper()
	all := s.schemas(t, db, table)
	return all[len(all)-1]
}

// fieldsText renders fields as "id:name:TYPE[:comment]" for comparisons.
func fieldsText(fs []schema.DataField) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = fmt.Sprintf("%d:%s:%s", f.ID, f.Name, f.Type)
		if f.Description != nil {
			out[i] += ":" + *f.Description
		}
	}
	return out
}

func checkFields(t *testing.T, what string, got []schema.DataField, want ...string) {
	t.Helper()
	if g := fieldsText(got); !slices.Equal(g, want) {
		t.Errorf("%s fields:\n got %q\nwant %q", what, g, want)
	}
}

func checkOptions(t *testing.T, what string, got schema.Options, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s options = %v, want %v", what, got, want)
		return
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s options = %v, want %v", what, got, want)
			return
		}
	}
}

func (s *ddlServer) tables(t *testing.T) []string {
	t.Helper()
	return column(queryStrings(t, s.conn, "SHOW TABLES"), 0)
}

func (s *ddlServer) countRows(t *testing.T, table string) string {
	t.Helper()
	return queryStrings(t, s.conn, "SELECT COUNT(*) FROM "+table)[0][0]
}

func TestServerDDLDatabases(t *testing.T) {
	s := startDDLServer(t)
	dbs := column(queryStrings(t, s.conn, "SHOW DATABASES"), 0)
	if !slices.Contains(dbs, "ddl") {
		t.Fatalf("SHOW DATABASES = %q, want ddl", dbs)
	}
	s.fails(t, "CREATE DATABASE ddl", 1007)
	s.exec(t, "CREATE DATABASE IF NOT EXISTS ddl", "CREATE DATABASE other",
		"CREATE TABLE other.t1 (id BIGINT PRIMARY KEY, v STRING) WITH ('bucket' = '1')",
		"CREATE TABLE other.t2 (a INT)")
	if got := queryStrings(t, s.conn, "SHOW TABLES FROM other"); len(got) != 2 {
		t.Errorf("SHOW TABLES FROM other = %q", got)
	}
	// MySQL: DROP DATABASE drops its tables.
	s.exec(t, "DROP DATABASE other")
	if dbs := column(queryStrings(t, s.conn, "SHOW DATABASES"), 0); slices.Contains(dbs, "other") {
		t.Errorf("after DROP DATABASE, SHOW DATABASES = %q", dbs)
	}
	var files []string
	filepath.WalkDir(filepath.Join(s.wh, "other.db"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if len(files) != 0 {
		t.Errorf("files left after DROP DATABASE: %q", files)
	}
	s.fails(t, "DROP DATABASE other", 0, "other")
	s.exec(t, "DROP DATABASE IF EXISTS other")
	// The name is free again.
	s.exec(t, "CREATE DATABASE other", "CREATE TABLE other.t1 (a INT)")
	checkFields(t, "other.t1", s.latest(t, "other", "t1").Fields, "0:a:INT")
}

// TestServerDDLDesignDoc runs the design document's statement as written:
// its 'path' is not the table's location under the warehouse, so it fails
// naming the path; without the 'path' line it creates the table.
func TestServerDDLDesignDoc(t *testing.T) {
	s := startDDLServer(t)
	const withPath = `CREATE TABLE orders (
  order_id BIGINT,
  user_id BIGINT,
  status STRING,
  updated_at TIMESTAMP(3),
  PRIMARY KEY (order_id) NOT ENFORCED
) WITH (
  'connector' = 'paimon',
  'path' = 's3://bucket/warehouse/orders',
  'changelog-producer' = 'lookup',
  'merge-engine' = 'deduplicate'
);`
	s.fails(t, withPath, 1235, "cannot create table at path s3://bucket/warehouse/orders")
	if slices.Contains(s.tables(t), "orders") {
		t.Fatal("the failed CREATE TABLE left a table behind")
	}
	s.exec(t, strings.Replace(withPath, "  'path' = 's3://bucket/warehouse/orders',\n", "", 1))
	if !slices.Contains(s.tables(t), "orders") {
		t.Fatalf("SHOW TABLES = %q, want orders", s.tables(t))
	}
	all := s.schemas(t, "ddl", "orders")
	if len(all) != 1 {
		t.Fatalf("%d schema files, want 1", len(all))
	}
	ts := all[0]
	checkFields(t, "orders", ts.Fields, "0:order_id:BIGINT NOT NULL", "1:user_id:BIGINT", "2:status:STRING", "3:updated_at:TIMESTAMP(3)")
	if ts.HighestFieldID != 3 || ts.Version != schema.SchemaVersionCurrent || ts.TimeMillis <= 0 {
		t.Errorf("highestFieldId %d, version %d, timeMillis %d", ts.HighestFieldID, ts.Version, ts.TimeMillis)
	}
	if !slices.Equal(ts.PrimaryKeys, []string{"order_id"}) || len(ts.PartitionKeys) != 0 {
		t.Errorf("primary keys %q, partition keys %q", ts.PrimaryKeys, ts.PartitionKeys)
	}
	checkOptions(t, "orders", ts.Options, map[string]string{"changelog-producer": "lookup", "merge-engine": "deduplicate"})
	if got := s.countRows(t, "orders"); got != "0" {
		t.Errorf("COUNT(*) of the new table = %s", got)
	}
	if got := queryStrings(t, s.conn, "SELECT * FROM orders"); len(got) != 0 {
		t.Errorf("SELECT * of the new table = %q", got)
	}
	// A 'path' naming the table's own location is accepted (and not stored).
	loc := "file://" + filepath.ToSlash(filepath.Join(s.wh, "ddl.db", "orders2"))
	s.exec(t, strings.Replace(strings.Replace(withPath, "s3://bucket/warehouse/orders", loc, 1), "orders (", "orders2 (", 1))
	checkOptions(t, "orders2", s.latest(t, "ddl", "orders2").Options, map[string]string{"changelog-producer": "lookup", "merge-engine": "deduplicate"})

	// Without a database in the DSN the session is in `default`, which a new
	// warehouse creates with its first table.
	def := s.open(t, "")
	if _, err := def.Exec(strings.Replace(withPath, "  'path' = 's3://bucket/warehouse/orders',\n", "", 1)); err != nil {
		t.Fatalf("design-doc CREATE TABLE in default: %v", err)
	}
	checkFields(t, "default.orders", s.latest(t, "default", "orders").Fields, "0:order_id:BIGINT NOT NULL", "1:user_id:BIGINT", "2:status:STRING", "3:updated_at:TIMESTAMP(3)")
}

// TestServerDDLPathOnWarehouseURLWithQuery: on a warehouse opened by a URL
// with options (file:///wh?fsync=false) a table's location keeps them at
// its end: CREATE TABLE accepts its own location as 'path', spelt with the
// options or without, and a foreign path's error names the location whole
// (not file:///wh?fsync=false/ddl.db/t).
func TestServerDDLPathOnWarehouseURLWithQuery(t *testing.T) {
	wh := t.TempDir()
	s := startDDLServerAt(t, wh, "file://"+filepath.ToSlash(wh)+"?fsync=false")
	create := func(name, path string) string {
		return "CREATE TABLE " + name + " (a INT) WITH ('path' = '" + path + "')"
	}
	loc := func(name string) string { return "file://" + filepath.ToSlash(filepath.Join(wh, "ddl.db", name)) }
	s.exec(t, create("t1", loc("t1")+"?fsync=false"))
	s.exec(t, create("t2", loc("t2")))
	s.fails(t, create("t3", "file:///elsewhere/t3"), 1235, "lives at "+loc("t3")+"?fsync=false;")
	if got := s.tables(t); !slices.Equal(got, []string{"t1", "t2"}) {
		t.Errorf("SHOW TABLES = %q, want [t1 t2]", got)
	}
}

func TestServerDDLCreateFlink(t *testing.T) {
	s := startDDLServer(t)
	s.exec(t, "CREATE TABLE IF NOT EXISTS ddl.events (\n"+
		"  dt STRING NOT NULL COMMENT 'day',\n"+
		"  id BIGINT,\n"+
		"  payload BYTES,\n"+
		"  at_ltz TIMESTAMP_LTZ(3),\n"+
		"  at_utc TIMESTAMP(6) WITH LOCAL TIME ZONE,\n"+
		"  tags ARRAY<STRING>,\n"+
		"  attrs MAP<STRING, BIGINT>,\n"+
		"  pos ROW<x INT, y ROW<z DOUBLE>>,\n"+
		"  price DECIMAL(12, 2),\n"+
		"  `select` INT, -- a reserved word\n"+
		"  PRIMARY KEY (dt, id) NOT ENFORCED\n"+
		") COMMENT 'event log' PARTITIONED BY (dt) WITH ('bucket' = '4', 'file.format' = 'parquet', 'my.custom' = 'kept')")
	ts := s.latest(t, "ddl", "events")
	checkFields(t, "events", ts.Fields,
		"0:dt:STRING NOT NULL:day", "1:id:BIGINT NOT NULL", "2:payload:BYTES",
		"3:at_ltz:TIMESTAMP(3) WITH LOCAL TIME ZONE", "4:at_utc:TIMESTAMP(6) WITH LOCAL TIME ZONE",
		"5:tags:ARRAY<STRING>", "6:attrs:MAP<STRING, BIGINT>", "7:pos:ROW<`x` INT, `y` ROW<`z` DOUBLE>>",
		"11:price:DECIMAL(12, 2)", "12:select:INT")
	// Nested ROW fields are numbered after their parent, depth first.
	pos := ts.Fields[7].Type
	if pos.Fields[0].ID != 8 || pos.Fields[1].ID != 9 || pos.Fields[1].Type.Fields[0].ID != 10 || ts.HighestFieldID != 12 {
		t.Errorf("nested ids %d %d %d, highest %d; want 8 9 10, 12", pos.Fields[0].ID, pos.Fields[1].ID, pos.Fields[1].Type.Fields[0].ID, ts.HighestFieldID)
	}
	if !slices.Equal(ts.PrimaryKeys, []string{"dt", "id"}) || !slices.Equal(ts.PartitionKeys, []string{"dt"}) {
		t.Errorf("primary keys %q, partition keys %q", ts.PrimaryKeys, ts.PartitionKeys)
	}
	if ts.Comment == nil || *ts.Comment != "event log" {
		t.Errorf("comment %v", ts.Comment)
	}
	checkOptions(t, "events", ts.Options, map[string]string{"bucket": "4", "file.format": "parquet", "my.custom": "kept"})
	if got := queryStrings(t, s.conn, "SELECT * FROM events"); len(got) != 0 {
		t.Errorf("SELECT * = %q", got)
	}
	// IF NOT EXISTS leaves the table alone; without it: 1050.
	s.exec(t, "CREATE TABLE IF NOT EXISTS events (a INT) WITH ('bucket' = '1', 'bucket-key' = 'a')")
	if n := len(s.schemas(t, "ddl", "events")); n != 1 {
		t.Errorf("%d schema files after CREATE TABLE IF NOT EXISTS", n)
	}
	s.fails(t, "CREATE TABLE events (a INT) WITH ('bucket' = '1', 'bucket-key' = 'a')", 1050)

	// Doris/StarRocks PROPERTIES and Spark TBLPROPERTIES.
	s.exec(t, "CREATE TABLE doris_t (k INT NOT NULL, v VARCHAR(10)) PRIMARY KEY (k) DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ('deletion-vectors.enabled' = 'true')")
	d := s.latest(t, "ddl", "doris_t")
	checkFields(t, "doris_t", d.Fields, "0:k:INT NOT NULL", "1:v:VARCHAR(10)")
	checkOptions(t, "doris_t", d.Options, map[string]string{"bucket": "2", "bucket-key": "k", "deletion-vectors.enabled": "true"})
	s.exec(t, "CREATE TABLE spark_t (a INT, b STRING) USING paimon PARTITIONED BY (b) TBLPROPERTIES ('primary-key' = 'a,b')")
	checkOptions(t, "spark_t", s.latest(t, "ddl", "spark_t").Options, map[string]string{"primary-key": "a,b"})

	// Tables whose writes need compaction are created (the writers refuse
	// writes to them later).
	for i, opts := range []string{
		"'deletion-vectors.enabled' = 'true'", "'merge-engine' = 'first-row'",
		"'full-compaction.delta-commits' = '3'", "'changelog-producer' = 'full-compaction'",
	} {
		s.exec(t, fmt.Sprintf("CREATE TABLE compact_%d (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (%s)", i, opts))
	}

	// Errors: syntax 1064, bad option values 1231, a missing feature 1235 (ER_NOT_SUPPORTED_YET), other errors 1105, with the reason; the connection stays.
	s.fails(t, "CREATE TABLE bad1 (a INT, b STRING", 1064)
	s.fails(t, "CREATE TABLE bad2 (a INT) WITH ('bucket' = 'many')", 1231, "bucket", "many")
	s.fails(t, "CREATE TABLE bad3 (a NOSUCHTYPE) WITH ('bucket' = '1')", 1105, "NOSUCHTYPE")
	s.fails(t, "CREATE TABLE bad4 (a INT, PRIMARY KEY (b) NOT ENFORCED)", 1105, "b")
	s.fails(t, "CREATE TABLE bad5 (a INT) WITH ('connector' = 'kafka')", 1235, "kafka")
	s.fails(t, "CREATE TABLE bad6 (a INT, A STRING) WITH ('x' = 'y')", 1060)
	s.fails(t, "CREATE TABLE bad7 (a INT, j JSON, PRIMARY KEY (a) NOT ENFORCED)", 1235, "JSON")
	s.fails(t, "CREATE TABLE bad8 (a INT) WITH ('bucket' = '1', 'bucket' = '2')", 1105, "twice")
	s.fails(t, "CREATE TABLE bad9 (a INT, PRIMARY KEY (a) NOT ENFORCED) PARTITIONED BY (a)", 1105)
	for _, tb := range s.tables(t) {
		if strings.HasPrefix(tb, "bad") {
			t.Errorf("failed CREATE TABLE left table %s", tb)
		}
	}
}

func TestServerDDLCreateMySQL(t *testing.T) {
	s := startDDLServer(t)
	s.exec(t, "CREATE TABLE m (\n"+
		"  id BIGINT NOT NULL PRIMARY KEY,\n"+
		"  i INT COMMENT 'an int',\n"+
		"  v VARCHAR(20),\n"+
		"  c CHAR(3),\n"+
		"  t TEXT,\n"+
		"  lt LONGTEXT,\n"+
		"  dt DATETIME(3),\n"+
		"  ts TIMESTAMP(6),\n"+
		"  d DECIMAL(12,3),\n"+
		"  day DATE,\n"+
		"  tm TIME,\n"+
		"  b BLOB,\n"+
		"  vb VARBINARY(16),\n"+
		"  bo BOOLEAN,\n"+
		"  f FLOAT,\n"+
		"  db DOUBLE,\n"+
		"  ti TINYINT,\n"+
		"  si SMALLINT,\n"+
		"  u INT UNSIGNED\n"+
		") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COMMENT='mysql table'")
	ts := s.latest(t, "ddl", "m")
	checkFields(t, "m", ts.Fields,
		"0:id:BIGINT NOT NULL", "1:i:INT:an int", "2:v:VARCHAR(20)", "3:c:CHAR(3)", "4:t:STRING", "5:lt:STRING",
		"6:dt:TIMESTAMP(3)", "7:ts:TIMESTAMP(6) WITH LOCAL TIME ZONE", "8:d:DECIMAL(12, 3)", "9:day:DATE",
		"10:tm:TIME(0)", "11:b:BYTES", "12:vb:VARBINARY(16)", "13:bo:BOOLEAN", "14:f:FLOAT", "15:db:DOUBLE",
		"16:ti:TINYINT", "17:si:SMALLINT", "18:u:BIGINT")
	// The only option is the UNSIGNED marker of u (provider/unsigned.go).
	if !slices.Equal(ts.PrimaryKeys, []string{"id"}) || len(ts.Options) != 1 || ts.Options["lakesql.unsigned.u"] != "int" || ts.Comment == nil || *ts.Comment != "mysql table" {
		t.Errorf("pk %q, options %v (want only 'lakesql.unsigned.u' = 'int': Paimon's defaults are not written), comment %v", ts.PrimaryKeys, ts.Options, ts.Comment)
	}
	if got := queryStrings(t, s.conn, "SELECT * FROM m"); len(got) != 0 {
		t.Errorf("SELECT * = %q", got)
	}
	desc := queryStrings(t, s.conn, "DESCRIBE m")
	if len(desc) != 19 || desc[0][0] != "id" || desc[0][3] != "PRI" {
		t.Errorf("DESCRIBE m = %q", desc)
	}

	// A MySQL statement the DDL front does not parse goes through GMS's
	// sql.TableCreator.
	s.exec(t, "CREATE TABLE g (id INT NOT NULL, name VARCHAR(10), PRIMARY KEY (id)) ROW_FORMAT=DYNAMIC")
	g := s.latest(t, "ddl", "g")
	checkFields(t, "g", g.Fields, "0:id:INT NOT NULL", "1:name:VARCHAR(10)")
	if !slices.Equal(g.PrimaryKeys, []string{"id"}) || len(g.Options) != 0 {
		t.Errorf("g: pk %q, options %v", g.PrimaryKeys, g.Options)
	}
	s.fails(t, "CREATE TABLE j (a INT, doc JSON) ROW_FORMAT=DYNAMIC", 1235, "JSON")
	s.fails(t, "CREATE TABLE j (a INT, doc JSON)", 1235, "JSON")
	s.fails(t, "CREATE TABLE j (a INT DEFAULT 3)", 1235, "DEFAULT")
	s.fails(t, "CREATE TABLE j (a INT AUTO_INCREMENT PRIMARY KEY)", 1235, "AUTO_INCREMENT")
}

func TestServerDDLLikeAndDrop(t *testing.T) {
	s := startDDLServer(t)
	s.exec(t, "CREATE TABLE src (dt STRING, id BIGINT, v ARRAY<INT> COMMENT 'vals', PRIMARY KEY (dt, id) NOT ENFORCED) "+
		"COMMENT 'source' PARTITIONED BY (dt) WITH ('bucket' = '2', 'changelog-producer' = 'input')")
	s.exec(t, "CREATE TABLE copy1 LIKE src", "CREATE TABLE IF NOT EXISTS copy1 LIKE src")
	src, cp := s.latest(t, "ddl", "src"), s.latest(t, "ddl", "copy1")
	if !slices.Equal(fieldsText(src.Fields), fieldsText(cp.Fields)) || !slices.Equal(src.PrimaryKeys, cp.PrimaryKeys) ||
		!slices.Equal(src.PartitionKeys, cp.PartitionKeys) || *cp.Comment != "source" {
		t.Errorf("LIKE copy differs:\n%s\n%s", src, cp)
	}
	checkOptions(t, "copy1", cp.Options, map[string]string{"bucket": "2", "changelog-producer": "input"})
	s.fails(t, "CREATE TABLE copy1 LIKE src", 1050)
	s.fails(t, "CREATE TABLE copy2 LIKE nosuch", 1146)

	s.exec(t, "DROP TABLE copy1")
	if slices.Contains(s.tables(t), "copy1") {
		t.Error("copy1 still listed after DROP TABLE")
	}
	var left []string
	filepath.WalkDir(filepath.Join(s.wh, "ddl.db", "copy1"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			left = append(left, p)
		}
		return nil
	})
	if len(left) != 0 {
		t.Errorf("files left after DROP TABLE: %q", left)
	}
	s.fails(t, "DROP TABLE copy1", 0, "copy1") // GMS: 1146 (MySQL says 1051)
	s.exec(t, "DROP TABLE IF EXISTS copy1", "CREATE TABLE copy1 (x INT)")
	checkFields(t, "re-created copy1", s.latest(t, "ddl", "copy1").Fields, "0:x:INT")
}

func TestServerDDLAlter(t *testing.T) {
	s := startDDLServer(t)
	s.exec(t, "CREATE TABLE a (dt STRING, id INT, v INT, w STRING, PRIMARY KEY (dt, id) NOT ENFORCED) PARTITIONED BY (dt) WITH ('bucket' = '2')")
	steps := []struct {
		stmt   string
		fields []string
	}{
		{"ALTER TABLE a ADD COLUMN extra BIGINT COMMENT 'new'",
			[]string{"0:dt:STRING NOT NULL", "1:id:INT NOT NULL", "2:v:INT", "3:w:STRING", "4:extra:BIGINT:new"}},
		{"ALTER TABLE a ADD tags ARRAY<STRING> AFTER id",
			[]string{"0:dt:STRING NOT NULL", "1:id:INT NOT NULL", "5:tags:ARRAY<STRING>", "2:v:INT", "3:w:STRING", "4:extra:BIGINT:new"}},
		{"ALTER TABLE a DROP COLUMN w",
			[]string{"0:dt:STRING NOT NULL", "1:id:INT NOT NULL", "5:tags:ARRAY<STRING>", "2:v:INT", "4:extra:BIGINT:new"}},
		{"ALTER TABLE a RENAME COLUMN v TO val",
			[]string{"0:dt:STRING NOT NULL", "1:id:INT NOT NULL", "5:tags:ARRAY<STRING>", "2:val:INT", "4:extra:BIGINT:new"}},
		{"ALTER TABLE a MODIFY val BIGINT",
			[]string{"0:dt:STRING NOT NULL", "1:id:INT NOT NULL", "5:tags:ARRAY<STRING>", "2:val:BIGINT", "4:extra:BIGINT:new"}},
		{"ALTER TABLE a CHANGE COLUMN extra extra2 DECIMAL(20, 0) COMMENT 'widened' FIRST",
			[]string{"4:extra2:DECIMAL(20, 0):widened", "0:dt:STRING NOT NULL", "1:id:INT NOT NULL", "5:tags:ARRAY<STRING>", "2:val:BIGINT"}},
		{"ALTER TABLE a ADD (p ROW<q INT>, r STRING)",
			[]string{"4:extra2:DECIMAL(20, 0):widened", "0:dt:STRING NOT NULL", "1:id:INT NOT NULL", "5:tags:ARRAY<STRING>", "2:val:BIGINT", "6:p:ROW<`q` INT>", "8:r:STRING"}},
	}
	for i, st := range steps {
		s.exec(t, st.stmt)
		all := s.schemas(t, "ddl", "a")
		if len(all) != i+2 {
			t.Fatalf("after %q: %d schema files, want %d", st.stmt, len(all), i+2)
		}
		checkFields(t, st.stmt, all[i+1].Fields, st.fields...)
	}
	if hi := s.latest(t, "ddl", "a").HighestFieldID; hi != 8 {
		t.Errorf("highestFieldId = %d, want 8", hi)
	}
	s.exec(t, "ALTER TABLE a SET ('snapshot.num-retained.min' = '3', 'my.k' = 'v')")
	checkOptions(t, "SET", s.latest(t, "ddl", "a").Options, map[string]string{"bucket": "2", "snapshot.num-retained.min": "3", "my.k": "v"})
	s.exec(t, "ALTER TABLE a RESET ('my.k')")
	checkOptions(t, "RESET", s.latest(t, "ddl", "a").Options, map[string]string{"bucket": "2", "snapshot.num-retained.min": "3"})
	s.exec(t, "ALTER TABLE a COMMENT = 'commented'")
	if c := s.latest(t, "ddl", "a").Comment; c == nil || *c != "commented" {
		t.Errorf("table comment %v", c)
	}
	n := len(s.schemas(t, "ddl", "a"))
	s.fails(t, "ALTER TABLE a SET ('bucket' = '8')", 1235, "rescale is a procedure")
	s.fails(t, "ALTER TABLE a RESET ('bucket')", 1235, "rescale is a procedure")
	s.fails(t, "ALTER TABLE a DROP PRIMARY KEY", 1235, "primary key")
	s.fails(t, "ALTER TABLE a ADD PRIMARY KEY (val)", 1235, "primary key")
	s.fails(t, "ALTER TABLE a DROP COLUMN id", 1235, "primary key")
	s.fails(t, "ALTER TABLE a DROP COLUMN dt", 1235, "partition")
	s.fails(t, "ALTER TABLE a MODIFY val INT", 1235, "widening")
	s.fails(t, "ALTER TABLE a MODIFY val BIGINT NOT NULL", 1235, "NOT NULL")
	s.fails(t, "ALTER TABLE a ADD COLUMN nn INT NOT NULL", 1235, "nullable")
	// Missing features are MySQL's 1235 (ER_NOT_SUPPORTED_YET) naming them.
	s.fails(t, "ALTER TABLE a RENAME TO a2", 1235, "renaming a table is not supported")
	s.fails(t, "ALTER TABLE a RENAME AS a2", 1235, "renaming a table is not supported")
	s.fails(t, "RENAME TABLE a TO a2", 1235, "renaming a table is not supported")
	s.fails(t, "RENAME TABLE a TO a2, a2 TO a3", 1235, "renaming a table is not supported")
	s.fails(t, "ALTER TABLE a ADD COLUMN d INT DEFAULT 3", 1235, "DEFAULT values")
	s.fails(t, "ALTER TABLE a MODIFY val BIGINT DEFAULT 3", 1235, "DEFAULT values")
	s.fails(t, "ALTER TABLE a ADD COLUMN ai BIGINT AUTO_INCREMENT", 1235, "AUTO_INCREMENT")
	if !slices.Contains(s.tables(t), "a") || slices.Contains(s.tables(t), "a2") {
		t.Errorf("a refused rename changed the tables: %v", s.tables(t))
	}
	s.fails(t, "ALTER TABLE a ADD COLUMN val INT", 1060)
	s.fails(t, "ALTER TABLE a DROP COLUMN nosuch", 1054)
	s.fails(t, "ALTER TABLE a SET ('snapshot.num-retained.min' = 'x')", 1231, "snapshot.num-retained.min")
	s.fails(t, "ALTER TABLE nosuch ADD COLUMN x INT", 1146)
	s.fails(t, "ALTER TABLE a ADD COLUMN", 1064)
	if got := len(s.schemas(t, "ddl", "a")); got != n {
		t.Errorf("failed ALTERs wrote schema files: %d, want %d", got, n)
	}
	if got := queryStrings(t, s.conn, "SELECT * FROM a"); len(got) != 0 {
		t.Errorf("SELECT * after ALTERs = %q", got)
	}
	cols := column(queryStrings(t, s.conn, "SHOW COLUMNS FROM a"), 0)
	if !slices.Equal(cols, []string{"extra2", "dt", "id", "tags", "val", "p", "r"}) {
		t.Errorf("SHOW COLUMNS = %q", cols)
	}
}

// TestServerDDLShowCreateTable: SHOW CREATE PAIMON TABLE shows keys,
// partitions and options as Flink DDL, SHOW CREATE TABLE shows MySQL's form;
// the output of either creates an identical table.
func TestServerDDLShowCreateTable(t *testing.T) {
	s := startDDLServer(t)
	s.exec(t, "CREATE TABLE sc (dt STRING, id BIGINT COMMENT 'it''s the id', at TIMESTAMP(3), m MAP<STRING, ROW<a INT, b STRING>>, "+
		"PRIMARY KEY (dt, id) NOT ENFORCED) COMMENT 'show me' PARTITIONED BY (dt) WITH ('bucket' = '3', 'merge-engine' = 'partial-update')",
		"CREATE TABLE plain (a INT, at TIMESTAMP(3) WITHOUT TIME ZONE, ltz TIMESTAMP_LTZ(3))")
	for _, c := range []struct{ name, stmt, suffix string }{
		{"sc", "SHOW CREATE PAIMON TABLE", "_copy"}, {"plain", "SHOW CREATE PAIMON TABLE", "_copy"},
		{"sc", "SHOW CREATE TABLE", "_mysql"}, {"plain", "SHOW CREATE TABLE", "_mysql"},
	} {
		name := c.name
		rows := queryStrings(t, s.conn, c.stmt+" "+name)
		if len(rows) != 1 || rows[0][0] != name {
			t.Fatalf("%s %s = %q", c.stmt, name, rows)
		}
		ddl := rows[0][1]
		wants := map[string][]string{
			"SHOW CREATE PAIMON TABLE sc": {"PRIMARY KEY (`dt`, `id`) NOT ENFORCED", "PARTITIONED BY (`dt`)", "'bucket' = '3'", "'merge-engine' = 'partial-update'", "COMMENT 'show me'", "'it''s the id'"},
			"SHOW CREATE TABLE sc": {"  `dt` varchar(16383) NOT NULL /*!99999 STRING */,\n", "  `id` bigint NOT NULL COMMENT 'it''s the id',\n",
				"  `at` datetime(3) DEFAULT NULL,\n", "  `m` json /*!99999 MAP<STRING, ROW<`a` INT, `b` STRING>> */,\n", "  PRIMARY KEY (`dt`,`id`)\n",
				") ENGINE=Paimon DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_bin COMMENT='show me' /*!99999 PARTITIONED BY (`dt`) WITH ('bucket' = '3', 'merge-engine' = 'partial-update') */"},
			"SHOW CREATE TABLE plain": {"  `a` int DEFAULT NULL,\n", "  `ltz` datetime(3) DEFAULT NULL /*!99999 TIMESTAMP(3) WITH LOCAL TIME ZONE */\n) ENGINE=Paimon"},
		}
		for _, want := range wants[c.stmt+" "+name] {
			if !strings.Contains(ddl, want) {
				t.Errorf("%s %s lacks %q:\n%s", c.stmt, name, want, ddl)
			}
		}
		s.exec(t, strings.Replace(ddl, "CREATE TABLE `"+name+"`", "CREATE TABLE `"+name+c.suffix+"`", 1))
		a, b := s.latest(t, "ddl", name), s.latest(t, "ddl", name+c.suffix)
		if !slices.Equal(fieldsText(a.Fields), fieldsText(b.Fields)) || !slices.Equal(a.PrimaryKeys, b.PrimaryKeys) ||
			!slices.Equal(a.PartitionKeys, b.PartitionKeys) || fmt.Sprint(a.Options) != fmt.Sprint(b.Options) ||
			fmt.Sprint(a.Comment) != fmt.Sprint(b.Comment) && *a.Comment != *b.Comment {
			t.Errorf("%s %s does not round-trip:\n%s\n%s\n%s", c.stmt, name, ddl, a, b)
		}
	}
	// Options also show in t$options when the system table exists.
	_, rows, err := queryRows(context.Background(), s.conn, "SELECT * FROM `sc$options`")
	switch {
	case err != nil && mysqlErrNo(err) == 1146:
		t.Log("sc$options does not exist yet")
	case err != nil:
		t.Errorf("sc$options: %v", err)
	default:
		got := map[string]string{}
		for _, r := range rows {
			if len(r) >= 2 {
				got[textOf(r[0])] = textOf(r[1])
			}
		}
		if got["bucket"] != "3" || got["merge-engine"] != "partial-update" {
			t.Errorf("sc$options = %v", got)
		}
	}
	s.fails(t, "SHOW CREATE TABLE nosuch", 1146)
	s.fails(t, "SHOW CREATE PAIMON TABLE nosuch", 1146)
	s.fails(t, "SHOW CREATE PAIMON TABLE `sc$snapshots`", 1235, "SHOW CREATE TABLE")
}

// TestServerDDLReadOnly: the read-only fixture server rejects DDL.
func TestServerDDLReadOnly(t *testing.T) {
	db := serverDB(t)
	for _, q := range []string{
		"CREATE TABLE ro_t (a INT) WITH ('bucket' = '1', 'bucket-key' = 'a')",
		"ALTER TABLE pk_09 SET ('x' = 'y')",
		"CREATE TABLE ro_t2 (a INT)",
	} {
		if _, err := db.Exec(q); err == nil {
			t.Errorf("%s succeeded on the read-only server", q)
		}
	}
}
