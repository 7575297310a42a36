package provider

import (
	"context"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/lsmread"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

func TestJavaLocalDateTimeString(t *testing.T) {
	for _, tc := range []struct {
		t    time.Time
		want string
	}{
		{time.Date(2024, 1, 31, 10, 11, 0, 0, time.UTC), "2024-01-31T10:11"},
		{time.Date(2024, 1, 31, 10, 11, 12, 0, time.UTC), "2024-01-31T10:11:12"},
		{time.Date(2024, 1, 31, 10, 11, 0, 5e8, time.UTC), "2024-01-31T10:11:00.500"},
		{time.Date(2024, 1, 31, 10, 11, 12, 123456000, time.UTC), "2024-01-31T10:11:12.123456"},
		{time.Date(2024, 1, 31, 10, 11, 12, 123456789, time.UTC), "2024-01-31T10:11:12.123456789"},
		{time.Date(12024, 1, 31, 0, 0, 0, 0, time.UTC), "+12024-01-31T00:00"},
	} {
		if got := javaLocalDateTimeString(tc.t); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.t, got, tc.want)
		}
	}
}

func TestSysJavaString(t *testing.T) {
	dec := schema.DecimalType(10, 2)
	for _, tc := range []struct {
		t    schema.DataType
		v    any
		want string
	}{
		{schema.AtomicType(schema.TypeInt), nil, "null"},
		{schema.AtomicType(schema.TypeBoolean), true, "true"},
		{schema.AtomicType(schema.TypeDouble), 11.0, "11.0"},
		{schema.AtomicType(schema.TypeDouble), 1e20, "1.0E20"},
		{schema.AtomicType(schema.TypeFloat), float32(0.5), "0.5"},
		{schema.AtomicType(schema.TypeBigInt), int64(-7), "-7"},
		{dec, schema.DecimalFromInt64(12345, 2), "123.45"},
		{schema.AtomicType(schema.TypeDate), schema.Date(19000), "19000"},
		{schema.TimestampType(3), schema.TimestampFromEpochMillis(1706695872345), "2024-01-31T10:11:12.345"},
		{schema.StringType(), "abc", "abc"},
	} {
		if got := sysJavaString(&tc.t, tc.v); got != tc.want {
			t.Errorf("%v %v: %q, want %q", tc.t, tc.v, got, tc.want)
		}
	}
}

func TestPartitionStrings(t *testing.T) {
	fields := []schema.DataField{
		{ID: 0, Name: "dt", Type: schema.AtomicType(schema.TypeDate)},
		{ID: 1, Name: "hr", Type: schema.AtomicType(schema.TypeInt)},
	}
	vals := []any{schema.Date(19753), nil}
	if got, err := partitionRowString(fields, vals); err != nil || got != "{2024-01-31, null}" {
		t.Errorf("row string %q, %v", got, err)
	}
	if got, err := partitionSpecString(fields, vals, "__DEFAULT_PARTITION__"); err != nil || got != "dt=2024-01-31/hr=__DEFAULT_PARTITION__" {
		t.Errorf("spec string %q, %v", got, err)
	}
	if got, err := partitionRowString(nil, nil); err != nil || got != "{}" {
		t.Errorf("empty %q, %v", got, err)
	}
}

func TestDecodeSerializedPrefixCorrupt(t *testing.T) {
	types := []schema.DataType{schema.AtomicType(schema.TypeInt)}
	for _, b := range [][]byte{nil, {0, 0}, {0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 1, 0}} {
		if _, _, err := binaryrow.DecodeSerializedPrefix(types, b); err == nil {
			t.Errorf("%x: no error", b)
		}
	}
	vals, arity, err := binaryrow.DecodeSerializedPrefix(types, []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	if err != nil || arity != 0 || len(vals) != 1 || vals[0] != nil {
		t.Errorf("empty row: %v %d %v", vals, arity, err)
	}
}

// FuzzSysFileStats feeds arbitrary statistics and key rows to the $files
// renderers: they must return an error or text, never panic.
func FuzzSysFileStats(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0}, []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, true)
	f.Add([]byte{0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 128}, []byte{}, false)
	fileSch := &schema.TableSchema{ID: 0, Fields: []schema.DataField{
		{ID: 0, Name: "a", Type: schema.AtomicType(schema.TypeInt)},
		{ID: 1, Name: "s", Type: schema.StringType()},
	}, PrimaryKeys: []string{"a"}}
	tableSch := &schema.TableSchema{ID: 1, Fields: []schema.DataField{
		{ID: 1, Name: "s", Type: schema.StringType()},
		{ID: 0, Name: "a", Type: schema.AtomicType(schema.TypeBigInt)},
		{ID: 2, Name: "n", Type: schema.AtomicType(schema.TypeDouble)},
	}, PrimaryKeys: []string{"a"}}
	f.Fuzz(func(t *testing.T, minRow, maxRow []byte, dense bool) {
		var fm manifest.DataFileMeta
		fm.RowCount = 3
		fm.ValueStats.MinValues, fm.ValueStats.MaxValues = minRow, maxRow
		n := int64(1)
		fm.ValueStats.NullCounts = []*int64{&n, nil}
		if dense {
			fm.ValueStatsCols = []string{"s"}
		}
		schemas := func(context.Context, schema.SchemaID) (*schema.TableSchema, error) { return fileSch, nil }
		_, _, _, _ = valueStatsStrings(context.Background(), lsmread.NewStatsEvolution(tableSch, schemas), tableSch, &fm)
		_, _, _, _ = valueStatsStrings(context.Background(), lsmread.NewStatsEvolution(fileSch, schemas), fileSch, &fm)
		_, _ = fileKeyString(fileSch, minRow)
	})
}
