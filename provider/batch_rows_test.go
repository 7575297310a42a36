package provider_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/provider"
)

// TestBatchScanEqualsRowPath: random scans (projections, filters on
// values the table holds, IS [NOT] NULL) of fixture tables — append
// tables of the fixtures' column types, with schema evolution, tables with
// deletion vectors, merge-on-read (deduplicate, partial-update: buckets
// and sections that need no merge come as batches, merged ones as rows) and
// first-row primary-key tables, and read-optimized ($ro) scans of
// compacted ones — give exactly the same GMS
// rows, values and Go types, with rows made from column batches
// (lakesql_batch_scan = 1) as row by row (= 0), and the batch path ran.
// LAKESQL_SEED picks the seed.
func TestBatchScanEqualsRowPath(t *testing.T) {
	provider.InstallBatchScanVariable()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("LAKESQL_SEED"); s != "" {
		fmt.Sscan(s, &seed)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	tables := []string{
		"append_complex_data", "append_table_with_alter_table", "append_with_multiple_ts_precision_and_timezone",
		"append_with_cast_timestamp", "append_table_alter_table_with_cast", "pk_table_with_mor",
		"pk_table_scan_and_read_dv", "pk_table_scan_and_read_mor", "pk_table_scan_and_read_first_row",
		"pk_09", "pk_dv_index_in_data_no_external", "pk_table_with_dv_cardinality",
		// Merging tables whose compacted buckets and single-file sections
		// are read as column batches (partial-update, evolved schema).
		"pk_table_partial_update", "pk_table_with_alter_table",
	}
	env := newSysEnv(t, tables...)
	// Read-optimized scans of merge-on-read tables: compacted files, raw.
	tables = append(tables, "pk_table_scan_and_read_mor$ro", "pk_table_with_mor$ro", "pk_09$ro")
	run := func(q string, batch int) ([]sql.Row, error) {
		ctx := env.ctx()
		if err := ctx.SetSessionVariable(ctx, provider.BatchScanVar, int8(batch)); err != nil {
			t.Fatal(err)
		}
		_, it, _, err := env.e.Query(ctx, q)
		if err != nil {
			return nil, err
		}
		return sql.RowIterToRows(ctx, it)
	}
	key := func(r sql.Row) string {
		var b strings.Builder
		for _, v := range r {
			fmt.Fprintf(&b, "%T(%v) ", v, v)
		}
		return b.String()
	}
	before := provider.BatchRowsCalls.Load()
	queries := 0
	for _, tbl := range tables {
		sch, all, err := env.exec("SELECT * FROM `" + tbl + "`")
		if err != nil {
			t.Fatalf("seed %d: SELECT * FROM %s: %v", seed, tbl, err)
		}
		for q := range 12 {
			var cols []string
			for _, c := range sch {
				if q == 0 || rng.IntN(2) == 0 {
					cols = append(cols, "`"+c.Name+"`")
				}
			}
			if len(cols) == 0 {
				cols = []string{"`" + sch[rng.IntN(len(sch))].Name + "`"}
			}
			query := "SELECT " + strings.Join(cols, ", ") + " FROM `" + tbl + "`"
			if q > 0 && len(all) > 0 {
				c := rng.IntN(len(sch))
				name := "`" + sch[c].Name + "`"
				v := all[rng.IntN(len(all))][c]
				switch x := v.(type) {
				case nil:
					query += " WHERE " + name + " IS NULL"
				case int8, int16, int32, int64, uint8, uint16, uint32, uint64, float64:
					query += fmt.Sprintf(" WHERE %s %s %v", name, []string{"=", ">=", "<", "<>"}[rng.IntN(4)], x)
				case string:
					query += fmt.Sprintf(" WHERE %s %s '%s'", name, []string{"=", ">=", "<"}[rng.IntN(3)], strings.ReplaceAll(x, "'", "''"))
				default:
					query += " WHERE " + name + " IS NOT NULL"
				}
			}
			want, werr := run(query, 0)
			got, gerr := run(query, 1)
			if fmt.Sprint(werr) != fmt.Sprint(gerr) {
				t.Fatalf("seed %d: %s: batch scan error %v, row path error %v", seed, query, gerr, werr)
			}
			if len(got) != len(want) {
				t.Fatalf("seed %d: %s: batch scan %d rows, row path %d", seed, query, len(got), len(want))
			}
			count := map[string]int{}
			for _, r := range want {
				count[key(r)]++
			}
			for _, r := range got {
				k := key(r)
				if count[k] == 0 {
					t.Fatalf("seed %d: %s: batch scan row %s not in the row path's rows", seed, query, k)
				}
				count[k]--
			}
			queries++
		}
	}
	if provider.BatchRowsCalls.Load() == before {
		t.Fatalf("seed %d: %d queries and the batch path never ran", seed, queries)
	}
}
