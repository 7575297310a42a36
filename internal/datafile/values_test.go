package datafile_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/internal/datafile"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/testutil"
)

// tableRows reads every data file of a fixture table with all its columns
// and returns the distinct rendered rows, sorted.
func tableRows(t *testing.T, table string) []string {
	t.Helper()
	seen := map[string]bool{}
	for _, p := range fixtureDataFiles(t) {
		if !strings.Contains(p, string(filepath.Separator)+table+".db"+string(filepath.Separator)) {
			continue
		}
		r, _ := openFixture(t, p, datafile.ReadOptions{})
		for _, row := range readAll(t, r, 5) {
			seen[renderRow(row)] = true
		}
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func compareLines(t *testing.T, got, want []string) {
	t.Helper()
	sort.Strings(want)
	if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
		t.Fatalf("rows differ\n got:\n%s\nwant:\n%s", g, w)
	}
}

// append_complex_data: DATE, TIMESTAMP(9) as INT96 (also before 1970),
// DECIMAL(23,5) as FIXED_LEN_BYTE_ARRAY, BYTES. Rows from the table's README.
func TestAppendComplexData(t *testing.T) {
	compareLines(t, tableRows(t, "append_complex_data"), []string{
		`10 | 1 | 1973-05-19 | 2033-05-18T03:33:20 | 123456789987654321.45678 | b"add"`,
		`20 | 1 | 1966-08-16 | 1899-01-01T00:59:20.001001001 | -123456789987654321.45678 | b"bad"`,
		`10 | 1 | 2024-07-05 | 2033-05-18T03:33:20.000001001 | 12.30000 | b"cat"`,
		`10 | 1 | 1970-01-01 | 2008-12-28T00:00:00.000123456 | null | b"dad"`,
		`10 | 1 | 1970-04-11 | 2008-12-28T00:00:00.00012345 | -123.45000 | b"eat"`,
		`10 | 1 | null | 1899-01-01T00:59:20.001001001 | 0.00000 | b"fat"`,
		`20 | 0 | 1969-09-23 | null | 0.00000 | b"get"`,
		`10 | 1 | 2024-10-10 | 2024-10-10T10:10:10.1001001 | 1728551410100.10010 | null`,
	})
}

// pk_table_scan_and_read_mor: the primary-key layout _KEY_f0, _KEY_f2,
// _SEQUENCE_NUMBER, _VALUE_KIND, f0..f3 (rows from the README, with the
// sequence numbers and row kinds Java wrote).
func TestPrimaryKeyLayoutMOR(t *testing.T) {
	long := `"Two roads diverged in a wood, and I took the one less traveled by, And that has made all the difference."`
	compareLines(t, tableRows(t, "pk_table_scan_and_read_mor"), []string{
		`"Alice" | 1 | 2 | 2 | "Alice" | 10 | 1 | 19.1`,
		`"Alice" | 1 | 1 | 0 | "Alice" | 10 | 1 | 11.1`,
		long + ` | 1 | 0 | 0 | ` + long + ` | 10 | 1 | 11`,
		`"Alex" | 0 | 3 | 0 | "Alex" | 10 | 0 | 16.1`,
		`"Bob" | 0 | 0 | 0 | "Bob" | 10 | 0 | 12.1`,
		`"David" | 0 | 4 | 0 | "David" | 10 | 0 | 17.1`,
		`"Emily" | 0 | 1 | 0 | "Emily" | 10 | 0 | 13.1`,
		`"Tony" | 0 | 2 | 0 | "Tony" | 10 | 0 | 14.1`,
		`"Tony" | 0 | 5 | 3 | "Tony" | 10 | 0 | 14.1`,
		`"Alex" | 0 | 11 | 3 | "Alex" | 10 | 0 | 31.2`,
		`"Marco2" | 0 | 10 | 0 | "Marco2" | 10 | 0 | 31.1`,
		`"Skye2" | 0 | 9 | 0 | "Skye2" | 10 | 0 | 31`,
		`"Alex" | 0 | 8 | 2 | "Alex" | 10 | 0 | 21.2`,
		`"Marco" | 0 | 7 | 0 | "Marco" | 10 | 0 | 21.1`,
		`"Skye" | 0 | 6 | 0 | "Skye" | 10 | 0 | 21`,
		`"Lucy" | 1 | 0 | 0 | "Lucy" | 20 | 1 | 14.1`,
		`"Paul" | 1 | 1 | 0 | "Paul" | 20 | 1 | 18.1`,
	})
}

// pk_table_nested_type: ROW<STRING, INT, ARRAY<INT>> with null elements and
// MAP<INT, INT>, behind the primary-key system columns.
func TestPrimaryKeyNestedTypes(t *testing.T) {
	var want []string
	for i, kind := range map[int][]string{
		0: {"0 | 0", "5 | 3"}, 1: {"1 | 0", "6 | 2"}, 2: {"0 | 0", "3 | 3"}, 3: {"2 | 0", "7 | 1"},
		4: {"3 | 0"}, 5: {"1 | 0"}, 6: {"2 | 0"}, 7: {"4 | 0"},
	} {
		for _, k := range kind {
			id := 1000 + i
			want = append(want, strings.NewReplacer(
				"ID", itoa(id), "SK", k, "C0", itoa(10*i), "F1", itoa(100*i), "A", itoa(i), "B", itoa(i+1), "M", itoa(100+i),
			).Replace(`ID | SK | ID | "2025-04-14" | 10 | C0 | ["str-A", F1, [A, null, B]] | {A: A, M: M}`))
		}
	}
	compareLines(t, tableRows(t, "pk_table_nested_type"), want)
}

func itoa(i int) string { return strconv.Itoa(i) }

// expectedCase loads one case of expected/<table>.json.
func expectedCase(t *testing.T, table string, i int) (cols []string, rows [][]any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testutil.FixturesDir(t), "expected", table+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var js struct {
		Cases []struct {
			Columns []string `json:"columns"`
			Rows    [][]any  `json:"rows"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(data, &js); err != nil {
		t.Fatal(err)
	}
	return js.Cases[i].Columns, js.Cases[i].Rows
}

// append_with_multiple_ts_precision_and_timezone: TIMESTAMP and
// TIMESTAMP_LTZ of precision 0, 3 (INT64 millis), 6 (INT64 micros) and 9
// (INT96), compared with expected/*.json; plus the statistics Java records.
func TestTimestampPrecisions(t *testing.T) {
	const table = "append_with_multiple_ts_precision_and_timezone"
	cols, want := expectedCase(t, table, 0)
	var files []string
	for _, p := range fixtureDataFiles(t) {
		if strings.Contains(p, table+".db") {
			files = append(files, p)
		}
	}
	if len(files) != 1 {
		t.Fatalf("want one data file, found %d", len(files))
	}
	r, fileCols := openFixture(t, files[0], datafile.ReadOptions{})
	for i, c := range fileCols {
		if c.Name != cols[i] {
			t.Fatalf("column %d is %s, expected case has %s", i, c.Name, cols[i])
		}
	}
	got := readAll(t, r, 2)
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	for i := range want {
		for j := range want[i] {
			w := "null"
			if s, ok := want[i][j].(string); ok {
				w = s
			}
			g := "null"
			if got[i][j] != nil {
				g = tsString(got[i][j].(schema.Timestamp))
			}
			if g != w {
				t.Errorf("row %d %s = %s, want %s", i, cols[j], g, w)
			}
		}
	}
	// Statistics as Java Paimon extracts them: INT96 min/max unknown, null
	// count kept; INT64 micros decoded.
	st := r.RowGroups()[0].Stats
	byName := map[string]datafile.ColumnStats{}
	for i, c := range fileCols {
		byName[c.Name] = st[i]
	}
	for _, name := range []string{"ts_nano", "ts_tz_nano"} {
		if s := byName[name]; s.Min != nil || s.Max != nil || s.NullCount != 1 {
			t.Errorf("%s stats %+v, want unknown bounds and 1 null", name, s)
		}
	}
	if s := byName["ts_micro"]; s.Min != (schema.Timestamp{NanoOfMilli: 1000}) || s.Max != (schema.Timestamp{NanoOfMilli: 1000}) || s.NullCount != 2 {
		t.Errorf("ts_micro stats %+v", s)
	}
	if s := byName["ts_sec"]; s.Min != (schema.Timestamp{Millis: 1000}) || s.Max != (schema.Timestamp{Millis: 5000}) || s.NullCount != 0 {
		t.Errorf("ts_sec stats %+v", s)
	}
	fs := r.FileStats()
	if fs[0].Min != (schema.Timestamp{Millis: 1000}) || fs[3].Min != nil || fs[3].NullCount != 1 {
		t.Errorf("file stats %+v", fs)
	}
}

// parquet_append_table: projection in non-schema order of
// MAP<ARRAY<FLOAT>, ROW<BOOLEAN, BIGINT>>, STRING, INT, DECIMAL(2,2),
// compared with expected/parquet_append_table.json (first file = snapshot 1).
func TestNestedMapProjection(t *testing.T) {
	const table = "parquet_append_table"
	cols, _ := expectedCase(t, table, 0)
	var file string
	for _, p := range fixtureDataFiles(t) {
		if strings.Contains(p, table+".db") && strings.HasSuffix(p, "-0.parquet") {
			file = p
		}
	}
	_, all := openFixture(t, file, datafile.ReadOptions{})
	byName := map[string]datafile.Column{}
	for _, c := range all {
		byName[c.Name] = c
	}
	var proj []datafile.Column
	for _, name := range cols {
		proj = append(proj, byName[name])
	}
	// A column the file does not have reads as NULL.
	proj = append(proj, datafile.Column{ID: 99, Name: "added_later", Type: schema.DataType{Root: schema.TypeInt, Nullable: true}})
	r, err := datafile.OpenParquet(openOS(t, file), proj, datafile.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := readAll(t, r, 4)
	want := []string{
		`{[5.11, 5.21]: [true, 61]} | "s31" | 300001 | 0.91 | null`,
		`{[5.12, 5.22]: [false, 62]} | "s32" | 300002 | 0.92 | null`,
		`null | "s33" | 300003 | 0.93 | null`,
		`{[5.141, 5.241]: [false, 641], [5.14, 5.24]: [false, 64]} | "s34" | 300004 | 0.94 | null`,
		`{[5.15, 5.25]: [true, 65]} | "s35" | 300005 | 0.95 | null`,
		`{[5.16, 5.26]: null} | "s36" | 300006 | 0.96 | null`,
	}
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if g := renderRow(got[i]); g != want[i] {
			t.Errorf("row %d:\n got %s\nwant %s", i, g, want[i])
		}
	}
	// Types of the value model.
	m := got[0][0].(schema.Map)
	if _, ok := m.Keys[0].([]any)[0].(float32); !ok {
		t.Errorf("ARRAY<FLOAT> element is %T", m.Keys[0].([]any)[0])
	}
	if _, ok := m.Values[0].([]any)[1].(int64); !ok {
		t.Errorf("ROW BIGINT field is %T", m.Values[0].([]any)[1])
	}
	if d := got[0][3].(schema.Decimal); d.Compact != 91 || d.Scale != 2 || d.Big != nil {
		t.Errorf("DECIMAL(2,2) = %+v", d)
	}
	// Stats: nested column unknown, STRING and DECIMAL decoded, absent
	// column all nulls.
	st := r.RowGroups()[0].Stats
	if st[0] != (datafile.ColumnStats{NullCount: -1}) {
		t.Errorf("nested stats %+v", st[0])
	}
	if st[1].Min != "s31" || st[1].Max != "s36" || st[1].NullCount != 0 {
		t.Errorf("string stats %+v", st[1])
	}
	if st[3].Min != (schema.Decimal{Compact: 91, Scale: 2}) || st[3].Max != (schema.Decimal{Compact: 96, Scale: 2}) {
		t.Errorf("decimal stats %+v", st[3])
	}
	if st[4].Min != nil || st[4].NullCount != 6 {
		t.Errorf("absent column stats %+v", st[4])
	}
}
