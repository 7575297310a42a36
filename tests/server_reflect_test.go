package tests

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/internal/testutil"
)

// TestServerSQLAlchemyReflection: SQLAlchemy's MySQL dialect reflects
// lakesql tables from SHOW CREATE TABLE (the path of Superset, pandas
// read_sql_table, Table(autoload_with=)) without a warning: column types,
// nullability, the composite primary key of a partitioned table, the table
// comment; pandas to_sql with its defaults (index=True: CREATE INDEX) works
// and reads back.
func TestServerSQLAlchemyReflection(t *testing.T) {
	py := testutil.Python(t)
	s := startDDLServer(t)
	s.exec(t,
		"CREATE TABLE orders (order_id BIGINT, user_id INT, status STRING, amount DECIMAL(10,2), dt STRING, at TIMESTAMP(3), ok BOOLEAN, "+
			"PRIMARY KEY (order_id, dt) NOT ENFORCED) COMMENT 'the orders' PARTITIONED BY (dt) WITH ('bucket' = '2')",
		"CREATE TABLE plain (id BIGINT PRIMARY KEY, v VARCHAR(20) NOT NULL, d DATE, ltz TIMESTAMP(6))",
		"INSERT INTO plain VALUES (1, 'one', '2026-01-01', '2026-01-01 00:00:00')")
	host, port, _ := strings.Cut(s.addr, ":")
	cmd := exec.Command(py, filepath.Join("catalog", "reflect.py"), host, port, "ddl")
	b, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("reflect.py: %v\n%s\n%s", err, b, stderr)
	}
	var got struct {
		Tables        []string
		Orders, Plain struct {
			Columns  [][]any
			PK       []string
			Comment  *string
			Autoload []string
		}
		Frame        [][]any
		FrameColumns []string `json:"frame_columns"`
		FrameCreate  string   `json:"frame_create"`
		Schemas      bool
		Views        []string
		HasTable     []bool `json:"has_table"`
		OrdersMeta   struct {
			ForeignKeys []any `json:"foreign_keys"`
			Indexes     []any
			Unique      []any
			Options     []string
		} `json:"orders_meta"`
		SQLRequirePK *int `json:"sql_require_primary_key"`
		Killed       bool
		SelectStar   [][]any `json:"select_star"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	cols := func(c [][]any) string {
		var out []string
		for _, r := range c {
			out = append(out, strings.TrimSuffix(fmt.Sprintln(r...), "\n"))
		}
		return strings.Join(out, "; ")
	}
	if want := "order_id BIGINT false; user_id INTEGER true; status LONGTEXT true; amount DECIMAL(10, 2) true; dt VARCHAR(16383) false; at DATETIME true; ok TINYINT true"; cols(got.Orders.Columns) != want {
		t.Errorf("orders columns\n got %s\nwant %s", cols(got.Orders.Columns), want)
	}
	if !slices.Equal(got.Orders.PK, []string{"order_id", "dt"}) || got.Orders.Comment == nil || *got.Orders.Comment != "the orders" {
		t.Errorf("orders pk %q comment %v", got.Orders.PK, got.Orders.Comment)
	}
	if want := "id BIGINT false; v VARCHAR(20) false; d DATE true; ltz DATETIME true"; cols(got.Plain.Columns) != want {
		t.Errorf("plain columns\n got %s\nwant %s", cols(got.Plain.Columns), want)
	}
	if !slices.Equal(got.Plain.PK, []string{"id"}) || len(got.Plain.Autoload) != 4 || len(got.Orders.Autoload) != 7 {
		t.Errorf("plain pk %q, autoload %q %q", got.Plain.PK, got.Plain.Autoload, got.Orders.Autoload)
	}
	if fmt.Sprint(got.Frame) != "[[0 1 x] [1 2 y] [2 3 <nil>]]" || !slices.Equal(got.FrameColumns, []string{"index", "a", "b"}) {
		t.Errorf("to_sql/read_sql_table: %v %q", got.Frame, got.FrameColumns)
	}
	// Superset's inspector calls and engine-spec statements.
	if !got.Schemas || len(got.Views) != 0 || !slices.Equal(got.HasTable, []bool{true, false, false}) {
		t.Errorf("schemas %v, views %q, has_table(orders, no_such_table, no_such_db.t) %v", got.Schemas, got.Views, got.HasTable)
	}
	if m := got.OrdersMeta; len(m.ForeignKeys) != 0 || len(m.Indexes) != 0 || len(m.Unique) != 0 || !slices.Contains(m.Options, "mysql_engine") {
		t.Errorf("orders foreign keys %v, indexes %v, unique %v, options %q", m.ForeignKeys, m.Indexes, m.Unique, m.Options)
	}
	if got.SQLRequirePK == nil || *got.SQLRequirePK != 0 || !got.Killed || len(got.SelectStar) != 1 {
		t.Errorf("@@sql_require_primary_key %v, KILL CONNECTION killed %v, SELECT * … LIMIT 100: %v", got.SQLRequirePK, got.Killed, got.SelectStar)
	}
	// CREATE INDEX became Paimon's bloom-filter file index on the column.
	if !strings.Contains(got.FrameCreate, "'file-index.bloom-filter.columns' = 'index'") {
		t.Errorf("frame after to_sql:\n%s", got.FrameCreate)
	}
}
