package provider_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/provider"
	"github.com/lakesql/lakesql/snapshot"
)

func newDDLProvider(t *testing.T, readOnly bool) (*provider.Provider, storage.Storage) {
	t.Helper()
	ctx := context.Background()
	st, err := storage.Open(ctx, "mem://")
	if err != nil {
		t.Fatal(err)
	}
	p, err := provider.New(ctx, st, provider.Options{ReadOnly: readOnly})
	if err != nil {
		t.Fatal(err)
	}
	if !readOnly {
		if err := p.CreatePaimonDatabase(ctx, "db", false); err != nil {
			t.Fatal(err)
		}
	}
	return p, st
}

func latestSchema(t *testing.T, st storage.Storage, table string) *schema.TableSchema {
	t.Helper()
	ts, err := snapshot.NewSchemaManager(st.Sub("db.db/"+table), "").Latest(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

func TestPaimonTypeOf(t *testing.T) {
	must := func(t sql.Type, err error) sql.Type {
		if err != nil {
			panic(err)
		}
		return t
	}
	for _, c := range []struct {
		in   sql.Type
		want string
	}{
		{types.Boolean, "BOOLEAN"}, {types.Int8, "TINYINT"}, {types.Int16, "SMALLINT"}, {types.Int24, "INT"},
		{types.Int32, "INT"}, {types.Int64, "BIGINT"}, {types.Uint8, "SMALLINT"}, {types.Uint32, "BIGINT"},
		{types.Uint64, "DECIMAL(20, 0)"}, {types.Float32, "FLOAT"}, {types.Float64, "DOUBLE"},
		{must(types.CreateColumnDecimalType(12, 3)), "DECIMAL(12, 3)"},
		{must(types.CreateString(sqltypes.VarChar, 20, sql.Collation_Default)), "VARCHAR(20)"},
		{must(types.CreateString(sqltypes.Char, 3, sql.Collation_Default)), "CHAR(3)"},
		{types.Text, "STRING"}, {types.LongText, "STRING"}, {types.Blob, "BYTES"}, {types.LongBlob, "BYTES"},
		{must(types.CreateBinary(sqltypes.VarBinary, 16)), "VARBINARY(16)"},
		{types.Date, "DATE"}, {types.Time, "TIME(0)"},
		{must(types.CreateDatetimeType(sqltypes.Datetime, 3)), "TIMESTAMP(3)"},
		{must(types.CreateDatetimeType(sqltypes.Timestamp, 6)), "TIMESTAMP(6) WITH LOCAL TIME ZONE"},
	} {
		got, err := provider.PaimonTypeOf(c.in)
		if err != nil || got.String() != c.want {
			t.Errorf("PaimonTypeOf(%s) = %s, %v; want %s", c.in, got, err, c.want)
		}
	}
	for _, bad := range []sql.Type{types.JSON, types.Year, must(types.CreateColumnDecimalType(60, 2))} {
		if got, err := provider.PaimonTypeOf(bad); err == nil {
			t.Errorf("PaimonTypeOf(%s) = %s, want an error", bad, got)
		}
	}
}

func TestCreatePaimonTable(t *testing.T) {
	ctx := context.Background()
	p, st := newDDLProvider(t, false)
	in := &schema.TableSchema{
		Fields: []schema.DataField{
			{Name: "k", Type: schema.MustParseDataType("INT")},
			{Name: "r", Type: schema.MustParseDataType("ROW<`a` INT, `b` ARRAY<ROW<`c` STRING>>>")},
			{Name: "m", Type: schema.MustParseDataType("MAP<STRING, ROW<`d` INT>>")},
			{Name: "v", Type: schema.MustParseDataType("STRING")},
		},
		PrimaryKeys: []string{"K"},
		Options:     schema.Options{"connector": "paimon", "bucket": "2", "custom": "x"},
	}
	if err := p.CreatePaimonTable(ctx, "DB", "t", in, false); err != nil {
		t.Fatal(err)
	}
	ts := latestSchema(t, st, "t")
	var ids []string
	var walk func(fs []schema.DataField)
	var walkType func(dt schema.DataType)
	walkType = func(dt schema.DataType) {
		switch {
		case dt.Root == schema.TypeRow:
			walk(dt.Fields)
		case dt.Elem != nil:
			walkType(*dt.Elem)
		case dt.Key != nil:
			walkType(*dt.Key)
			walkType(*dt.Value)
		}
	}
	walk = func(fs []schema.DataField) {
		for _, f := range fs {
			ids = append(ids, fmt.Sprintf("%s=%d", f.Name, f.ID))
			walkType(f.Type)
		}
	}
	walk(ts.Fields)
	// Depth first, each parent before its children (Java's ReassignFieldId).
	if want := []string{"k=0", "r=1", "a=2", "b=3", "c=4", "m=5", "d=6", "v=7"}; !slices.Equal(ids, want) {
		t.Errorf("field ids %q, want %q", ids, want)
	}
	if ts.HighestFieldID != 7 || ts.Fields[0].Type.Nullable || !slices.Equal(ts.PrimaryKeys, []string{"k"}) {
		t.Errorf("highest %d, k nullable %v, pk %q", ts.HighestFieldID, ts.Fields[0].Type.Nullable, ts.PrimaryKeys)
	}
	if len(ts.Options) != 2 || ts.Options["bucket"] != "2" || ts.Options["custom"] != "x" {
		t.Errorf("options %v", ts.Options)
	}
	if err := p.CreatePaimonTable(ctx, "db", "T", in, false); !sql.ErrTableAlreadyExists.Is(err) {
		t.Errorf("second create: %v, want table exists", err)
	}
	if err := p.CreatePaimonTable(ctx, "db", "t", in, true); err != nil {
		t.Errorf("IF NOT EXISTS: %v", err)
	}
	// 'path' is accepted only when it is the table's own location.
	in2 := in.Copy()
	in2.Options = schema.Options{"path": p.TableLocation("db", "t2") + "/"}
	if err := p.CreatePaimonTable(ctx, "db", "t2", in2, false); err != nil {
		t.Errorf("own path: %v", err)
	}
	in2.Options = schema.Options{"path": "s3://elsewhere/t3"}
	err := p.CreatePaimonTable(ctx, "db", "t3", in2, false)
	if err == nil || !strings.Contains(err.Error(), "cannot create table at path s3://elsewhere/t3") || !errors.Is(err, provider.ErrUnsupportedDDL) {
		t.Errorf("foreign path: %v", err)
	}
	for name, bad := range map[string]*schema.TableSchema{
		"no columns":     {},
		"bad option":     {Fields: in.Fields[:1], Options: schema.Options{"bucket": "x"}},
		"unknown key":    {Fields: in.Fields[:1], PrimaryKeys: []string{"nope"}},
		"pk = partition": {Fields: in.Fields[:1], PrimaryKeys: []string{"k"}, PartitionKeys: []string{"k"}},
		"dup column":     {Fields: []schema.DataField{in.Fields[0], {Name: "K", Type: schema.MustParseDataType("INT")}}},
		"bucket 0":       {Fields: in.Fields[:1], Options: schema.Options{"bucket": "0"}},
		"bad bucket-key": {Fields: in.Fields[:1], Options: schema.Options{"bucket": "2", "bucket-key": "zz"}},
		"connector":      {Fields: in.Fields[:1], Options: schema.Options{"connector": "kafka"}},
	} {
		if err := p.CreatePaimonTable(ctx, "db", "bad", bad, false); err == nil {
			t.Errorf("%s: created", name)
		}
	}
	if ok, _ := st.Exists(ctx, "db.db/bad/schema/schema-0"); ok {
		t.Error("a rejected table was written")
	}
	if err := p.CreatePaimonTable(ctx, "nosuch", "t", in, false); !sql.ErrDatabaseNotFound.Is(err) {
		t.Errorf("missing database: %v", err)
	}
}

// TestAlterPaimonTableConcurrent: concurrent ALTERs each land in their own
// schema-N; a lost race re-applies the change on the winner's schema.
func TestAlterPaimonTableConcurrent(t *testing.T) {
	ctx := context.Background()
	p, st := newDDLProvider(t, false)
	if err := p.CreatePaimonTable(ctx, "db", "t", &schema.TableSchema{Fields: []schema.DataField{{Name: "a", Type: schema.MustParseDataType("INT")}}}, false); err != nil {
		t.Fatal(err)
	}
	const n = 4
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = p.AlterPaimonTable(ctx, "db", "t", []provider.SchemaChange{{Kind: provider.AddColumn, Column: fmt.Sprintf("c%d", i), Type: schema.MustParseDataType("INT")}})
		}()
	}
	wg.Wait()
	added := 0
	for _, err := range errs {
		switch {
		case err == nil:
			added++
		case !errors.Is(err, provider.ErrSchemaConflict):
			t.Errorf("alter: %v", err)
		}
	}
	ts := latestSchema(t, st, "t")
	if len(ts.Fields) != 1+added || int(ts.ID) != added || ts.HighestFieldID != added {
		t.Errorf("%d ALTERs succeeded; latest schema-%d has %d fields, highest id %d", added, ts.ID, len(ts.Fields), ts.HighestFieldID)
	}
}

func TestDDLReadOnly(t *testing.T) {
	ctx := context.Background()
	p, _ := newDDLProvider(t, true)
	for name, err := range map[string]error{
		"create db":    p.CreatePaimonDatabase(ctx, "x", false),
		"drop db":      p.DropPaimonDatabase(ctx, "x", true),
		"create table": p.CreatePaimonTable(ctx, "default", "t", &schema.TableSchema{Fields: []schema.DataField{{Name: "a", Type: schema.MustParseDataType("INT")}}}, false),
		"drop table":   p.DropPaimonTable(ctx, "default", "t", true),
		"alter":        p.AlterPaimonTable(ctx, "default", "t", nil),
	} {
		if !errors.Is(err, provider.ErrReadOnly) {
			t.Errorf("%s on a read-only provider: %v", name, err)
		}
	}
}

func TestDropPaimonDatabase(t *testing.T) {
	ctx := context.Background()
	p, st := newDDLProvider(t, false)
	for _, tb := range []string{"a", "b"} {
		if err := p.CreatePaimonTable(ctx, "db", tb, &schema.TableSchema{Fields: []schema.DataField{{Name: "x", Type: schema.MustParseDataType("INT")}}}, false); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.CreatePaimonDatabase(ctx, "DB", false); !sql.ErrDatabaseExists.Is(err) {
		t.Errorf("create existing (other case): %v", err)
	}
	if err := p.DropPaimonDatabase(ctx, "db", false); err != nil {
		t.Fatal(err)
	}
	for obj, err := range st.List(ctx, "db.db/") {
		t.Errorf("left after drop: %s %v", obj.Path, err)
	}
	if err := p.DropPaimonDatabase(ctx, "db", false); !sql.ErrDatabaseNotFound.Is(err) {
		t.Errorf("drop missing: %v", err)
	}
	if err := p.DropPaimonDatabase(ctx, "db", true); err != nil {
		t.Errorf("drop missing IF EXISTS: %v", err)
	}
}
