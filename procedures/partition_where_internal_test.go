package procedures

import (
	"errors"
	"testing"

	"github.com/lakesql/lakesql/internal/schema"
)

func whereSchema() *schema.TableSchema {
	return &schema.TableSchema{
		Fields: []schema.DataField{
			{ID: 0, Name: "k", Type: schema.AtomicType(schema.TypeBigInt).WithNullable(false)},
			{ID: 1, Name: "dt", Type: schema.StringType()},
			{ID: 2, Name: "h", Type: schema.AtomicType(schema.TypeInt)},
		},
		PartitionKeys: []string{"dt", "h"},
	}
}

// TestPartitionWhere checks the where argument against SQL's three-valued
// logic over partition values (dt, h).
func TestPartitionWhere(t *testing.T) {
	rows := [][]any{{"a", int32(1)}, {"b", int32(2)}, {"b", nil}, {nil, int32(3)}}
	for _, c := range []struct {
		where string
		want  []bool // per row
	}{
		{"dt = 'a'", []bool{true, false, false, false}},
		{"'a' = dt", []bool{true, false, false, false}},
		{"h > 1", []bool{false, true, false, true}},
		{"1 < h", []bool{false, true, false, true}},
		{"h >= -1 AND h <= 2", []bool{true, true, false, false}},
		{"dt = 'b' OR h = 3", []bool{false, true, true, true}},
		{"NOT dt = 'b'", []bool{true, false, false, false}},
		{"h IN (1, 3)", []bool{true, false, false, true}},
		{"h NOT IN (1, NULL)", []bool{false, false, false, false}},
		{"h BETWEEN 2 AND 3", []bool{false, true, false, true}},
		{"h NOT BETWEEN 2 AND 3", []bool{true, false, false, false}},
		{"h IS NULL", []bool{false, false, true, false}},
		{"dt IS NOT NULL AND (h = 1 OR h = 2)", []bool{true, true, false, false}},
		{"h <=> NULL", []bool{false, false, true, false}},
		{"dt <> 'a'", []bool{false, true, true, false}},
		{"H = '2'", []bool{false, true, false, false}},
	} {
		pred, err := partitionWhere(c.where, whereSchema())
		if err != nil {
			t.Errorf("%s: %v", c.where, err)
			continue
		}
		for i, r := range rows {
			got, err := pred(r)
			if err != nil || got != c.want[i] {
				t.Errorf("%s on %v: %v (%v), want %v", c.where, r, got, err, c.want[i])
			}
		}
	}
	for _, bad := range []string{"k = 1", "dt LIKE 'a%'", "h = h", "dt = upper('a')", "h = 'x'", "h >", "1", "h IN (SELECT 1)"} {
		if _, err := partitionWhere(bad, whereSchema()); !errors.Is(err, ErrBadValue) {
			t.Errorf("%s: %v, want a bad value", bad, err)
		}
	}
}

// FuzzPartitionWhere: no input panics; an accepted predicate evaluates.
func FuzzPartitionWhere(f *testing.F) {
	for _, s := range []string{"dt = 'a'", "h BETWEEN 1 AND 2 OR NOT dt IS NULL", "h IN (1, -2)", "'x' < dt", ")", "h = 0x1"} {
		f.Add(s)
	}
	ts := whereSchema()
	f.Fuzz(func(t *testing.T, where string) {
		pred, err := partitionWhere(where, ts)
		if err != nil {
			return
		}
		for _, r := range [][]any{{"a", int32(1)}, {nil, nil}} {
			if _, err := pred(r); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// FuzzPartitionsArg: no input panics; every spec has a key.
func FuzzPartitionsArg(f *testing.F) {
	for _, s := range []string{"p=0", "p1=0,p2=0;p1=1,p2=1", "dt='2026-07-25'", "a=\"x\"\"y\"", ";", "=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		specs, err := parsePartitionsArg(s)
		if err != nil {
			return
		}
		for _, spec := range specs {
			for k := range spec {
				if k == "" {
					t.Fatalf("%q: empty key", s)
				}
			}
		}
	})
}
