package tests

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // zones for time-zone cases on machines without zoneinfo

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/internal/testutil"
	"github.com/lakesql/lakesql/lsmread"
	"github.com/lakesql/lakesql/snapshot"
)

// expectedFile is the shape of ../shared/fixtures/paimon-java/expected/*.json.
type expectedFile struct {
	TablePath string         `json:"table_path"`
	Cases     []expectedCase `json:"cases"`
}

type expectedCase struct {
	Mode            string              `json:"mode"`
	ReadMode        string              `json:"read_mode"`
	Snapshot        *int64              `json:"snapshot"`
	Tag             *string             `json:"tag"`
	Branch          *string             `json:"branch"`
	Columns         []string            `json:"columns"`
	Rows            [][]any             `json:"rows"`
	Predicate       string              `json:"predicate"`
	PartitionFilter []map[string]string `json:"partition_filter"`
	BucketFilter    *int                `json:"bucket_filter"`
	Limit           *int                `json:"limit"`
	OptionOverrides map[string]string   `json:"option_overrides"`
	ExpectedSplits  *int                `json:"expected_splits"`
	Note            string              `json:"note"`
	Source          string              `json:"source"`
}

// localZoneNote finds the session time zone a case was read under.
var localZoneNote = regexp.MustCompile(`local timezone ([A-Za-z]+/[A-Za-z_]+)`)

// unsupportedFixtures read with an error naming the feature lakesql does not
// support yet (see the README's compatibility table).
var unsupportedFixtures = map[string]string{
	"append_table_alter_table_with_cast_with_data_evolution":      "data-evolution",
	"append_table_row_tracking_with_compact":                      "",
	"blob_append_table_alter_table_with_cast_with_data_evolution": "BLOB",
	"blob_data_evolution_with_dense_stats":                        "BLOB",
	"data_evolution_with_dense_stats":                             "data-evolution",
	"data_evolution_with_index":                                   "data-evolution",
	"append_table_with_multiple_file_format":                      "ORC",
	"append_09":                                                   "ORC manifest",
	"append_10":                                                   "ORC manifest",
	"parquet_append_table":                                        "ORC manifest",
	"pk_table_nested_type":                                        "ORC manifest",
	"append_with_empty_partition":                                 "ORC manifest",
	"append_with_empty_partition_with_empty_value":                "ORC manifest",
	"append_with_empty_partition_with_specific_name":              "ORC manifest",
}

// TestFixtureTableScans reads every table-scan case of expected/*.json
// through lsmread and compares the rows with the expected ones.
func TestFixtureTableScans(t *testing.T) {
	root := testutil.FixturesDir(t)
	files, err := filepath.Glob(filepath.Join(root, "expected", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no expected files under %s: %v", root, err)
	}
	var checked, skipped int
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var exp expectedFile
		dec := json.NewDecoder(strings.NewReader(string(data)))
		dec.UseNumber() // epoch nanoseconds do not fit a float64
		if err := dec.Decode(&exp); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for i, c := range exp.Cases {
			if c.Mode == "streaming" {
				skipped++ // not a batch table scan
				continue
			}
			if c.ReadMode != "" && !strings.Contains(c.ReadMode, "full batch read") {
				skipped++ // Java-serialized splits: not a table scan
				continue
			}
			t.Run(fmt.Sprintf("%s/%d", name, i), func(t *testing.T) {
				runCase(t, root, name, exp.TablePath, c)
			})
			checked++
		}
	}
	t.Logf("checked %d table-scan cases, %d streaming or hand-built-split cases not table scans", checked, skipped)
}

func runCase(t *testing.T, root, name, tablePath string, c expectedCase) {
	ctx := context.Background()
	dir := filepath.Join(root, tablePath)
	st, err := storage.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tbl := lsmread.OpenTable(st, "").WithExternalResolver(func(ctx context.Context, url string) (storage.File, error) {
		// Java wrote these fixtures' external files under /tmp/external;
		// the copy keeps them in <table>.db/external.
		rel, ok := strings.CutPrefix(url, "FILE:/tmp/external/")
		if !ok {
			return nil, fmt.Errorf("unexpected external path %s", url)
		}
		ext, err := storage.Open(ctx, filepath.Join(filepath.Dir(dir), "external"))
		if err != nil {
			return nil, err
		}
		return ext.Open(ctx, rel)
	})
	if c.Branch != nil && *c.Branch != "" {
		tbl, err = tbl.Branch(ctx, *c.Branch)
		if err != nil {
			t.Fatal(err)
		}
	}
	spec := lsmread.ScanSpec{Projection: c.Columns, PartitionSpecs: c.PartitionFilter, Bucket: c.BucketFilter, OptionOverrides: c.OptionOverrides}
	if c.Snapshot != nil {
		spec.SnapshotID = snapshot.SnapshotID(*c.Snapshot)
	}
	if c.Tag != nil {
		spec.Tag = *c.Tag
	}
	if m := localZoneNote.FindStringSubmatch(c.Note); m != nil {
		loc, err := time.LoadLocation(m[1])
		if err != nil {
			t.Fatal(err)
		}
		spec.TimeZone = loc
	}
	want, wantUnsupported := unsupportedFixtures[name]
	plan, err := planCase(ctx, tbl, spec, c)
	if err == nil {
		var rows [][]any
		rows, err = readAll(ctx, plan)
		if err == nil {
			if wantUnsupported {
				t.Fatalf("expected an unsupported-feature error naming %q, got %d rows", want, len(rows))
			}
			checkRows(t, plan, c, rows)
			return
		}
	}
	if wantUnsupported {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("error %q does not name %q", err, want)
		}
		return
	}
	t.Fatal(err)
}

func planCase(ctx context.Context, tbl *lsmread.Table, spec lsmread.ScanSpec, c expectedCase) (*lsmread.Plan, error) {
	if c.Predicate != "" {
		// The predicate refers to the schema being read; plan once to learn it.
		p0, err := tbl.Plan(ctx, lsmread.ScanSpec{TimeTravel: spec.TimeTravel, OptionOverrides: spec.OptionOverrides})
		if err != nil {
			return nil, err
		}
		pred, err := parsePredicate(p0.Schema, c.Predicate)
		if err != nil {
			return nil, err
		}
		spec.Filter = pred
	}
	return tbl.Plan(ctx, spec)
}

func readAll(ctx context.Context, plan *lsmread.Plan) ([][]any, error) {
	r, err := plan.NewReader()
	if err != nil {
		return nil, err
	}
	var rows [][]any
	for _, split := range plan.Splits {
		it, err := r.Read(ctx, split)
		if err != nil {
			return nil, err
		}
		for {
			row, err := it.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				it.Close()
				return nil, err
			}
			rows = append(rows, row)
		}
		if err := it.Close(); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

func checkRows(t *testing.T, plan *lsmread.Plan, c expectedCase, rows [][]any) {
	t.Helper()
	if c.ExpectedSplits != nil && len(plan.Splits) != *c.ExpectedSplits {
		t.Errorf("splits: got %d, want %d (%v)", len(plan.Splits), *c.ExpectedSplits, plan.Splits)
	}
	cols := c.Columns
	if cols == nil {
		cols = plan.Schema.FieldNames()
	}
	types := make([]schema.DataType, len(cols))
	for i, name := range cols {
		f, ok := plan.Schema.FieldByName(name)
		if !ok {
			t.Fatalf("unknown column %s", name)
		}
		types[i] = f.Type
	}
	got := canonRows(t, types, rows, false)
	wantRows := c.Rows
	if plan.Spec.Filter != nil {
		// The C++ tests set predicates for pruning only; a SQL reader also
		// filters rows, so the expected rows are filtered the same way.
		var kept [][]any
		for _, r := range wantRows {
			typed := make([]any, len(plan.Schema.Fields))
			for i, name := range cols {
				idx := plan.Schema.FieldIndex(name)
				typed[idx] = parseExpected(t, &types[i], r[i])
			}
			if lsmread.Test(plan.Spec.Filter, func(f int) (any, bool) { return typed[f], true }) == lsmread.True {
				kept = append(kept, r)
			}
		}
		wantRows = kept
	}
	want := canonRows(t, types, wantRows, true)
	slices.Sort(got)
	slices.Sort(want)
	if c.Limit != nil {
		// The C++ scan limit drops whole splits once enough rows are
		// planned; LIMIT in lakesql is a SQL concern above the reader,
		// which returns every row. So the expected rows must be a subset.
		for _, w := range want {
			if _, ok := slices.BinarySearch(got, w); !ok {
				t.Errorf("limit case: expected row %s missing from %v", w, got)
			}
		}
		return
	}
	if !slices.Equal(got, want) {
		t.Errorf("rows differ (note: %s)\n got: %s\nwant: %s", c.Note, strings.Join(got, "\n      "), strings.Join(want, "\n      "))
	}
}

func canonRows(t *testing.T, types []schema.DataType, rows [][]any, expected bool) []string {
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		parts := make([]string, len(types))
		for i := range types {
			v := r[i]
			if expected {
				v = parseExpected(t, &types[i], v)
			}
			parts[i] = canon(&types[i], v)
		}
		out = append(out, "("+strings.Join(parts, ", ")+")")
	}
	return out
}

// parseExpected converts a JSON value of an expected file to the schema
// value model of type typ.
func parseExpected(t *testing.T, typ *schema.DataType, v any) any {
	t.Helper()
	if v == nil {
		return nil
	}
	fail := func() any { t.Fatalf("cannot read expected %v (%T) as %s", v, v, typ); return nil }
	switch typ.Root {
	case schema.TypeBoolean:
		b, ok := v.(bool)
		if !ok {
			return fail()
		}
		return b
	case schema.TypeTinyInt:
		return int8(inum(v))
	case schema.TypeSmallInt:
		return int16(inum(v))
	case schema.TypeInt:
		return int32(inum(v))
	case schema.TypeBigInt:
		return inum(v)
	case schema.TypeFloat:
		return float32(num(v))
	case schema.TypeDouble:
		return num(v)
	case schema.TypeChar, schema.TypeVarChar:
		return v.(string)
	case schema.TypeBinary, schema.TypeVarBinary:
		return []byte(v.(string))
	case schema.TypeDecimal:
		d, err := schema.DecimalFromString(v.(string), typ.Precision, typ.Scale)
		if err != nil {
			t.Fatal(err)
		}
		return d
	case schema.TypeDate:
		switch x := v.(type) {
		case json.Number:
			return schema.Date(int32(inum(x)))
		case string:
			d, err := schema.ParseDate(x)
			if err != nil {
				t.Fatal(err)
			}
			return d
		}
		return fail()
	case schema.TypeTimestamp, schema.TypeLocalZonedTimestamp:
		switch x := v.(type) {
		case json.Number:
			n, _ := x.Int64()
			return schema.TimestampFromEpochNanos(n)
		case string:
			ts, err := schema.ParseTimestamp(x)
			if err != nil {
				t.Fatal(err)
			}
			return ts
		}
		return fail()
	case schema.TypeArray:
		l := v.([]any)
		out := make([]any, len(l))
		for i := range l {
			out[i] = parseExpected(t, typ.Elem, l[i])
		}
		return out
	case schema.TypeRow:
		l := v.([]any)
		out := make([]any, len(l))
		for i := range l {
			out[i] = parseExpected(t, &typ.Fields[i].Type, l[i])
		}
		return out
	case schema.TypeMap:
		l := v.([]any)
		m := schema.Map{}
		for _, kvp := range l {
			pair := kvp.([]any)
			m.Keys = append(m.Keys, parseExpected(t, typ.Key, pair[0]))
			m.Values = append(m.Values, parseExpected(t, typ.Value, pair[1]))
		}
		return m
	}
	return fail()
}

func inum(v any) int64 {
	if n, ok := v.(json.Number); ok {
		if i, err := n.Int64(); err == nil {
			return i
		}
	}
	return int64(num(v))
}

func num(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case json.Number:
		f, _ := x.Float64()
		return f
	case string:
		f, _ := strconv.ParseFloat(x, 64)
		return f
	}
	return 0
}

// canon is a canonical text of a value of type typ, equal for equal values.
func canon(typ *schema.DataType, v any) string {
	if v == nil {
		return "NULL"
	}
	switch typ.Root {
	case schema.TypeFloat:
		return strconv.FormatFloat(float64(v.(float32)), 'g', -1, 32)
	case schema.TypeDouble:
		return strconv.FormatFloat(v.(float64), 'g', -1, 64)
	case schema.TypeBinary, schema.TypeVarBinary:
		return fmt.Sprintf("x%q", v.([]byte))
	case schema.TypeChar, schema.TypeVarChar:
		return strconv.Quote(v.(string))
	case schema.TypeDecimal:
		return v.(schema.Decimal).String()
	case schema.TypeTimestamp, schema.TypeLocalZonedTimestamp:
		return strconv.FormatInt(v.(schema.Timestamp).EpochNanos(), 10) + "ns"
	case schema.TypeArray:
		l := v.([]any)
		parts := make([]string, len(l))
		for i := range l {
			parts[i] = canon(typ.Elem, l[i])
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case schema.TypeRow:
		l := v.([]any)
		parts := make([]string, len(l))
		for i := range l {
			parts[i] = canon(&typ.Fields[i].Type, l[i])
		}
		return "(" + strings.Join(parts, ", ") + ")"
	case schema.TypeMap:
		m := v.(schema.Map)
		parts := make([]string, len(m.Keys))
		for i := range m.Keys {
			parts[i] = canon(typ.Key, m.Keys[i]) + ": " + canon(typ.Value, m.Values[i])
		}
		slices.Sort(parts)
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}

// parsePredicate reads the predicates written in the expected files:
// conjunctions of `column op literal`, followed by a parenthesised remark.
func parsePredicate(sch *schema.TableSchema, s string) (lsmread.Predicate, error) {
	if i := strings.Index(s, " ("); i >= 0 {
		s = s[:i]
	}
	var and lsmread.And
	for _, part := range strings.Split(s, " AND ") {
		fields := strings.SplitN(strings.TrimSpace(part), " ", 3)
		if len(fields) != 3 {
			return nil, fmt.Errorf("bad predicate %q", part)
		}
		idx := sch.FieldIndex(fields[0])
		if idx < 0 {
			return nil, fmt.Errorf("unknown column in predicate %q", part)
		}
		f := sch.Fields[idx]
		ops := map[string]lsmread.Op{"=": lsmread.OpEq, "!=": lsmread.OpNotEq, "<": lsmread.OpLt, "<=": lsmread.OpLtEq, ">": lsmread.OpGt, ">=": lsmread.OpGtEq}
		op, ok := ops[fields[1]]
		if !ok {
			return nil, fmt.Errorf("bad operator in %q", part)
		}
		lit := strings.Trim(fields[2], "'")
		str := schema.StringType()
		v, err := schema.CastValue(lit, &str, &f.Type)
		if err != nil {
			return nil, err
		}
		and = append(and, lsmread.Leaf{Field: idx, Name: f.Name, Type: f.Type, Op: op, Literals: []any{v}})
	}
	return and, nil
}
