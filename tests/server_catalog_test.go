package tests

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/internal/testutil"
	"github.com/lakesql/lakesql/lsmread"
)

// TestServerShowDatabases: the warehouse's databases plus information_schema
// and, for an administrator (root), the mysql account database.
func TestServerShowDatabases(t *testing.T) {
	db := serverDB(t)
	got := column(queryStrings(t, db, "SHOW DATABASES"), 0)
	slices.Sort(got)
	if want := []string{fxDB, "information_schema", "mysql"}; !slices.Equal(got, want) {
		t.Errorf("SHOW DATABASES = %q, want %q", got, want)
	}
	got = column(queryStrings(t, db, "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA"), 0)
	slices.Sort(got)
	if want := []string{fxDB, "information_schema"}; !slices.Equal(got, want) {
		t.Errorf("information_schema.SCHEMATA = %q, want %q", got, want)
	}
}

// TestServerUse switches databases on one connection.
func TestServerUse(t *testing.T) {
	ctx := context.Background()
	conn, err := serverDB(t).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, d := range []string{"information_schema", fxDB} {
		if _, err := conn.ExecContext(ctx, "USE "+quoteIdent(d)); err != nil {
			t.Fatalf("USE %s: %v", d, err)
		}
		if got := queryStrings(t, conn, "SELECT DATABASE()"); got[0][0] != d {
			t.Errorf("after USE %s, DATABASE() = %q", d, got[0][0])
		}
	}
	// Unqualified names resolve in the current database again.
	got := queryStrings(t, conn, "SELECT COUNT(*) FROM pk_09")
	want := queryStrings(t, conn, "SELECT COUNT(*) FROM fx.pk_09")
	if got[0][0] != want[0][0] || got[0][0] == "0" {
		t.Errorf("SELECT COUNT(*) FROM pk_09 after USE fx = %q, fx.pk_09 has %q", got[0][0], want[0][0])
	}
}

// TestServerShowTables lists exactly the fixture tables, all BASE TABLEs,
// in SHOW TABLES, SHOW FULL TABLES and information_schema.TABLES.
func TestServerShowTables(t *testing.T) {
	db := serverDB(t)
	var want []string
	for name := range testutil.FixtureTables(t) {
		want = append(want, name)
	}
	slices.Sort(want)
	got := column(queryStrings(t, db, "SHOW TABLES"), 0)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("SHOW TABLES =\n%q\nwant\n%q", got, want)
	}
	full := queryStrings(t, db, "SHOW FULL TABLES")
	if len(full) != len(want) {
		t.Errorf("SHOW FULL TABLES: %d rows, want %d", len(full), len(want))
	}
	for _, r := range full {
		if len(r) != 2 || r[1] != "BASE TABLE" {
			t.Errorf("SHOW FULL TABLES row %q, want type BASE TABLE", r)
		}
	}
	got = column(queryStrings(t, db, "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE'", fxDB), 0)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("information_schema.TABLES =\n%q\nwant\n%q", got, want)
	}
	like := column(queryStrings(t, db, "SHOW TABLES LIKE 'pk\\_09'"), 0)
	if !slices.Equal(like, []string{"pk_09"}) {
		t.Errorf("SHOW TABLES LIKE 'pk\\_09' = %q", like)
	}
}

// mysqlColumnType is the README's Paimon → MySQL type mapping
// (provider/types.go), written out independently, as information_schema's
// COLUMN_TYPE spells it.
func mysqlColumnType(t *schema.DataType) string {
	prec := func(name string, p int) string {
		if p == 0 {
			return name
		}
		return fmt.Sprintf("%s(%d)", name, p)
	}
	switch t.Root {
	case schema.TypeBoolean:
		return "tinyint(1)"
	case schema.TypeTinyInt:
		return "tinyint"
	case schema.TypeSmallInt:
		return "smallint"
	case schema.TypeInt:
		return "int"
	case schema.TypeBigInt:
		return "bigint"
	case schema.TypeFloat:
		return "float"
	case schema.TypeDouble:
		return "double"
	case schema.TypeDecimal:
		return fmt.Sprintf("decimal(%d,%d)", t.Precision, t.Scale)
	case schema.TypeChar:
		if t.Length <= 255 {
			return fmt.Sprintf("char(%d)", t.Length)
		}
		return "text"
	case schema.TypeVarChar:
		if t.Length <= 16383 {
			return fmt.Sprintf("varchar(%d)", t.Length)
		}
		return "longtext"
	case schema.TypeBinary:
		if t.Length <= 255 {
			return fmt.Sprintf("binary(%d)", t.Length)
		}
		return "blob"
	case schema.TypeVarBinary:
		if t.Length <= 65535 {
			return fmt.Sprintf("varbinary(%d)", t.Length)
		}
		return "longblob"
	case schema.TypeDate:
		return "date"
	case schema.TypeTime:
		return "time(6)"
	case schema.TypeTimestamp:
		return prec("datetime", min(t.Precision, 6))
	case schema.TypeLocalZonedTimestamp:
		// An instant, shown in UTC as a DATETIME (MySQL's TIMESTAMP only
		// spans 1970..2038).
		return prec("datetime", min(t.Precision, 6))
	case schema.TypeArray, schema.TypeMap, schema.TypeMultiset, schema.TypeRow:
		return "json"
	case schema.TypeVariant, schema.TypeBlob:
		return "longblob"
	}
	return "?"
}

func latestSchema(t *testing.T, path string) *schema.TableSchema {
	t.Helper()
	ctx := context.Background()
	st, err := storage.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sch, err := lsmread.OpenTable(st, "").LatestSchema(ctx)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return sch
}

// TestServerColumns checks information_schema.COLUMNS of every fixture table
// against its latest Paimon schema: order, type, nullability, primary key.
func TestServerColumns(t *testing.T) {
	db := serverDB(t)
	rows := queryStrings(t, db, `SELECT TABLE_NAME, COLUMN_NAME, ORDINAL_POSITION, COLUMN_TYPE, IS_NULLABLE, COLUMN_KEY
		FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME, ORDINAL_POSITION`, fxDB)
	got := map[string][]string{}
	for _, r := range rows {
		got[r[0]] = append(got[r[0]], strings.Join(r[1:], " "))
	}
	for name, path := range testutil.FixtureTables(t) {
		sch := latestSchema(t, path)
		var want []string
		for i, f := range sch.Fields {
			null, key := "YES", ""
			if !f.Type.Nullable {
				null = "NO"
			}
			if slices.Contains(sch.PrimaryKeys, f.Name) {
				key = "PRI"
			}
			typ := mysqlColumnType(&f.Type)
			if slices.Contains(sch.PrimaryKeys, f.Name) || slices.Contains(sch.PartitionKeys, f.Name) {
				// Key and partition columns get a keyable type (README).
				switch typ {
				case "text", "longtext":
					typ = fmt.Sprintf("varchar(%d)", min(f.Type.Length, 16383))
				case "blob", "longblob":
					typ = fmt.Sprintf("varbinary(%d)", min(f.Type.Length, 65535))
				}
			}
			want = append(want, fmt.Sprintf("%s %d %s %s %s", f.Name, i+1, typ, null, key))
		}
		if !slices.Equal(got[name], want) {
			t.Errorf("%s: information_schema.COLUMNS\n got %q\nwant %q", name, got[name], want)
		}
	}
}

// TestServerDescribe checks DESCRIBE and SHOW COLUMNS of a PK table and of a
// table with nested, temporal and decimal types.
func TestServerDescribe(t *testing.T) {
	db := serverDB(t)
	want := [][]string{
		{"f0", "varchar(16383)", "NO", "PRI", "NULL", ""}, // a STRING key: a keyable MySQL type
		{"f1", "int", "NO", "PRI", "NULL", ""},
		{"f2", "int", "NO", "PRI", "NULL", ""},
		{"f3", "double", "YES", "", "NULL", ""},
	}
	for _, q := range []string{"DESCRIBE pk_09", "SHOW COLUMNS FROM pk_09", "DESC fx.pk_09"} {
		if got := queryStrings(t, db, q); !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("%s =\n%q\nwant\n%q", q, got, want)
		}
	}
	want = [][]string{
		{"f1", "json"}, {"f2", "json"}, {"f3", "json"}, // MAP, ARRAY, ROW
		{"f4", "datetime(6)"}, // TIMESTAMP(9)
		{"f5", "date"},
		{"f6", "decimal(2,2)"},
	}
	got := queryStrings(t, db, "SHOW COLUMNS FROM append_complex_build_in_fieldid")
	for i := range got {
		got[i] = got[i][:2]
	}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("SHOW COLUMNS FROM append_complex_build_in_fieldid =\n%q\nwant\n%q", got, want)
	}
	want = [][]string{
		{"ts_sec", "datetime"}, {"ts_milli", "datetime(3)"}, {"ts_micro", "datetime(6)"}, {"ts_nano", "datetime(6)"},
		{"ts_tz_sec", "datetime"}, {"ts_tz_milli", "datetime(3)"}, {"ts_tz_micro", "datetime(6)"}, {"ts_tz_nano", "datetime(6)"},
	}
	got = queryStrings(t, db, "DESCRIBE append_with_multiple_ts_precision_and_timezone")
	for i := range got {
		got[i] = got[i][:2]
	}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("DESCRIBE append_with_multiple_ts_precision_and_timezone =\n%q\nwant\n%q", got, want)
	}
}

// TestServerShowCreateTable: SHOW CREATE PAIMON TABLE shows the primary
// key, the partition keys and the table options (also in the table COMMENT
// of information_schema.TABLES); SHOW CREATE TABLE shows them in MySQL's form.
func TestServerShowCreateTable(t *testing.T) {
	db := serverDB(t)
	got := queryStrings(t, db, "SHOW CREATE PAIMON TABLE pk_09")
	if len(got) != 1 || got[0][0] != "pk_09" {
		t.Fatalf("SHOW CREATE PAIMON TABLE pk_09 = %q", got)
	}
	ddl := got[0][1]
	for _, want := range []string{
		"CREATE TABLE `pk_09`",
		"`f0` STRING NOT NULL",
		"`f3` DOUBLE",
		"PRIMARY KEY (`f0`, `f1`, `f2`) NOT ENFORCED",
		"PARTITIONED BY (`f1`)",
		"'bucket' = '2'",
		"'bucket-key' = 'f2'",
		"'deletion-vectors.enabled' = 'true'",
	} {
		if !strings.Contains(ddl, want) {
			t.Errorf("SHOW CREATE PAIMON TABLE pk_09 lacks %q:\n%s", want, ddl)
		}
	}
	// An append table: no PRIMARY KEY.
	ddl = queryStrings(t, db, "SHOW CREATE PAIMON TABLE append_with_bloomfilter")[0][1]
	if strings.Contains(ddl, "PRIMARY KEY") || !strings.Contains(ddl, "'file-index.bloom-filter.columns' = 'f0,f1,f2,f3,f4'") {
		t.Errorf("SHOW CREATE PAIMON TABLE append_with_bloomfilter:\n%s", ddl)
	}
	// The MySQL form of the same tables.
	ddl = queryStrings(t, db, "SHOW CREATE TABLE pk_09")[0][1]
	for _, want := range []string{
		"CREATE TABLE `pk_09` (\n",
		"  `f0` varchar(16383) NOT NULL /*!99999 STRING */,\n",
		"  `f3` double DEFAULT NULL",
		"  PRIMARY KEY (`f0`,`f1`,`f2`)\n) ENGINE=Paimon DEFAULT CHARSET=utf8mb4",
		"/*!99999 PARTITIONED BY (`f1`) WITH (",
		"'bucket' = '2'",
		"'deletion-vectors.enabled' = 'true'",
	} {
		if !strings.Contains(ddl, want) {
			t.Errorf("SHOW CREATE TABLE pk_09 lacks %q:\n%s", want, ddl)
		}
	}
	ddl = queryStrings(t, db, "SHOW CREATE TABLE append_with_bloomfilter")[0][1]
	if strings.Contains(ddl, "PRIMARY KEY") || !strings.Contains(ddl, "'file-index.bloom-filter.columns' = 'f0,f1,f2,f3,f4'") || !strings.Contains(ddl, ") ENGINE=Paimon") {
		t.Errorf("SHOW CREATE TABLE append_with_bloomfilter:\n%s", ddl)
	}
	// information_schema.TABLES carries the table's comment only, as MySQL
	// does (tools show TABLE_COMMENT / JDBC REMARKS as the description); the
	// layout is SHOW CREATE TABLE's.
	c := queryStrings(t, db, "SELECT TABLE_COMMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'pk_09'", fxDB)
	if len(c) != 1 || strings.Contains(c[0][0], "PARTITIONED") || strings.Contains(c[0][0], "bucket") {
		t.Errorf("information_schema.TABLES comment of pk_09 = %q, want the table's comment only", c)
	}
}

// TestServerShowTableStatus returns one row per table, named by the table.
func TestServerShowTableStatus(t *testing.T) {
	db := serverDB(t)
	got := queryStrings(t, db, "SHOW TABLE STATUS LIKE 'pk_09'")
	if len(got) != 1 || got[0][0] != "pk_09" {
		t.Fatalf("SHOW TABLE STATUS LIKE 'pk_09' = %q", got)
	}
	all := queryStrings(t, db, "SHOW TABLE STATUS")
	if n := len(testutil.FixtureTables(t)); len(all) != n {
		t.Errorf("SHOW TABLE STATUS: %d rows, want %d", len(all), n)
	}
}

// TestServerStatistics: the primary key is the PRIMARY index, one row per key
// column in key order, unique.
func TestServerStatistics(t *testing.T) {
	db := serverDB(t)
	got := queryStrings(t, db, `SELECT INDEX_NAME, SEQ_IN_INDEX, COLUMN_NAME, NON_UNIQUE FROM information_schema.STATISTICS
		WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'pk_table_scan_and_read_mor' ORDER BY SEQ_IN_INDEX`, fxDB)
	want := [][]string{{"PRIMARY", "1", "f0", "0"}, {"PRIMARY", "2", "f1", "0"}, {"PRIMARY", "3", "f2", "0"}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("information_schema.STATISTICS of pk_table_scan_and_read_mor =\n%q\nwant\n%q", got, want)
	}
	idx := queryStrings(t, db, "SHOW INDEX FROM pk_table_scan_and_read_mor")
	var cols []string
	for _, r := range idx {
		if r[2] != "PRIMARY" {
			t.Errorf("SHOW INDEX row %q: index %q, want PRIMARY", r, r[2])
		}
		cols = append(cols, r[4])
	}
	if !slices.Equal(cols, []string{"f0", "f1", "f2"}) {
		t.Errorf("SHOW INDEX columns = %q", cols)
	}
	if got := queryStrings(t, db, "SHOW INDEX FROM append_with_bloomfilter"); len(got) != 0 {
		t.Errorf("SHOW INDEX FROM an append table = %q, want none", got)
	}
}

// column returns column i of rows.
func column(rows [][]string, i int) []string {
	out := make([]string, len(rows))
	for j, r := range rows {
		out[j] = r[i]
	}
	return out
}

// TestServerCatalogTruth: SHOW TABLE STATUS and information_schema.TABLES
// say what SHOW CREATE TABLE says (Engine Paimon, the table comment), SHOW
// KEYS reports the PRIMARY key's columns ascending ('A'), and
// character_set_results set to NULL reads back NULL, as in MySQL.
func TestServerCatalogTruth(t *testing.T) {
	s := startDDLServer(t)
	s.exec(t, "CREATE TABLE ct (id BIGINT PRIMARY KEY, v INT) COMMENT 'the comment'", "CREATE TABLE cu (id BIGINT PRIMARY KEY)")
	check := func(q string, want string) {
		t.Helper()
		var got []string
		for _, r := range queryStrings(t, s.conn, q) {
			got = append(got, strings.Join(r, ","))
		}
		if g := strings.Join(got, " "); g != want {
			t.Errorf("%s:\n got %q\nwant %q", q, g, want)
		}
	}
	rows := queryStrings(t, s.conn, "SHOW TABLE STATUS LIKE 'ct'")
	if len(rows) != 1 || rows[0][0] != "ct" || rows[0][1] != "Paimon" || rows[0][17] != "the comment" {
		t.Errorf("SHOW TABLE STATUS LIKE 'ct' = %q, want Engine Paimon and Comment 'the comment'", rows)
	}
	check("SHOW TABLE STATUS WHERE `Comment` = 'the comment'", strings.Join(rows[0], ","))
	if n := len(queryStrings(t, s.conn, "SHOW TABLE STATUS FROM ddl")); n != 2 {
		t.Errorf("SHOW TABLE STATUS FROM ddl: %d rows, want 2", n)
	}
	check("SELECT table_name, engine, table_comment FROM information_schema.tables WHERE table_schema = 'ddl' ORDER BY table_name",
		"ct,Paimon,the comment cu,Paimon,")
	if create := queryStrings(t, s.conn, "SHOW CREATE TABLE ct")[0][1]; !strings.Contains(create, "ENGINE=Paimon") {
		t.Errorf("SHOW CREATE TABLE ct does not say ENGINE=Paimon:\n%s", create)
	}
	keys := queryStrings(t, s.conn, "SHOW KEYS FROM ct")
	if len(keys) != 1 || keys[0][2] != "PRIMARY" || keys[0][4] != "id" || keys[0][5] != "A" {
		t.Errorf("SHOW KEYS FROM ct = %q, want PRIMARY id with Collation A", keys)
	}
	// MySQL 8 answers a PRIMARY KEY without COMMENT with empty Comment and
	// Index_comment (columns 12 and 13), as information_schema.STATISTICS does.
	if len(keys) == 1 && (len(keys[0]) != 15 || keys[0][9] != "" || keys[0][10] != "BTREE" || keys[0][11] != "" || keys[0][12] != "" || keys[0][13] != "YES") {
		t.Errorf("SHOW KEYS FROM ct = %q, want Null '', Index_type BTREE, Comment '', Index_comment '', Visible YES", keys)
	}
	check("SELECT index_name, index_comment, comment FROM information_schema.statistics WHERE table_schema = 'ddl' AND table_name = 'ct'", "PRIMARY,,")
	check("SET character_set_results = NULL", "")
	check("SELECT @@character_set_results IS NULL, @@session.character_set_results IS NULL", "1,1")
	check("SET character_set_results = utf8mb4", "")
	check("SELECT @@character_set_results", "utf8mb4")
}
