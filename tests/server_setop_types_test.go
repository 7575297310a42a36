package tests

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestServerUnionColumnTypes: the columns of a UNION read through a derived
// table, a CTE or a MERGE source carry the UNION's type, not its left
// side's. GMS typed them by the left side (TINYINT for `SELECT 127`), so
// 128 and 1000 came out clamped to 127, and a MERGE from such a source
// silently inserted one row of three.
func TestServerUnionColumnTypes(t *testing.T) {
	addr := startWarehouseServer(t, filepath.Join(t.TempDir(), "wh"))
	db := openWarehouseDB(t, addr, "default", "")
	cases := []struct {
		query string
		want  [][]string
	}{
		{"SELECT * FROM (SELECT 100 AS k UNION ALL SELECT 1000) s", [][]string{{"100"}, {"1000"}}},
		{"SELECT s.k + 1 FROM (SELECT 100 AS k UNION ALL SELECT 1000) s WHERE s.k > 500", [][]string{{"1001"}}},
		{"WITH c AS (SELECT 1 AS k UNION ALL SELECT 100000) SELECT k FROM c", [][]string{{"1"}, {"100000"}}},
		{"SELECT * FROM (SELECT 1 AS k UNION ALL SELECT 'abc') s", [][]string{{"1"}, {"abc"}}},
		{"SELECT * FROM (SELECT 127 AS k, 127 AS v UNION ALL SELECT 128, 128 UNION ALL SELECT 129, 129) s", [][]string{{"127", "127"}, {"128", "128"}, {"129", "129"}}},
	}
	for _, c := range cases {
		if got := queryStrings(t, db, c.query); !slices.EqualFunc(got, c.want, slices.Equal) {
			t.Errorf("%s = %q, want %q", c.query, got, c.want)
		}
	}
	mustExec(t, db,
		"CREATE TABLE ka (k INT, v INT, PRIMARY KEY (k) NOT ENFORCED)",
		"MERGE INTO ka USING (SELECT 127 AS k, 127 AS v UNION ALL SELECT 128, 128 UNION ALL SELECT 129, 129) s ON ka.k = s.k WHEN NOT MATCHED THEN INSERT VALUES (s.k, s.v)",
		"INSERT INTO ka SELECT * FROM (SELECT 1 AS k, 2 AS v UNION ALL SELECT 70000, 70000) s")
	want := [][]string{{"1", "2"}, {"127", "127"}, {"128", "128"}, {"129", "129"}, {"70000", "70000"}}
	if got := queryStrings(t, db, "SELECT * FROM ka ORDER BY k"); !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("ka after MERGE and INSERT … SELECT from UNIONs = %q, want %q", got, want)
	}
}
