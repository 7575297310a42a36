package schema_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/internal/schema"
)

func TestApplySchemaChanges(t *testing.T) {
	base := &schema.TableSchema{
		Version: 3, HighestFieldID: 3,
		Fields: []schema.DataField{
			{ID: 0, Name: "dt", Type: schema.MustParseDataType("STRING NOT NULL")},
			{ID: 1, Name: "id", Type: schema.MustParseDataType("INT NOT NULL")},
			{ID: 2, Name: "v", Type: schema.MustParseDataType("INT")},
			{ID: 3, Name: "s", Type: schema.MustParseDataType("STRING")},
		},
		PrimaryKeys: []string{"dt", "id"}, PartitionKeys: []string{"dt"},
		Options: schema.Options{"bucket": "2", "sequence.field": "s"},
	}
	ok := func(changes ...schema.SchemaChange) *schema.TableSchema {
		t.Helper()
		ts, err := schema.ApplySchemaChanges(base, changes)
		if err != nil {
			t.Fatalf("%+v: %v", changes, err)
		}
		return ts
	}
	ts := ok(schema.SchemaChange{Kind: schema.AddColumn, Column: "n", Type: schema.MustParseDataType("ROW<`x` INT>"), After: "id"},
		schema.SchemaChange{Kind: schema.RenameColumn, Column: "v", NewName: "w"},
		schema.SchemaChange{Kind: schema.UpdateColumnType, Column: "w", Type: schema.MustParseDataType("BIGINT")},
		schema.SchemaChange{Kind: schema.RenameColumn, Column: "id", NewName: "ident"},
		schema.SchemaChange{Kind: schema.SetOption, Key: "x", Value: "1"},
	)
	var got []string
	for _, f := range ts.Fields {
		got = append(got, fmt.Sprintf("%d:%s:%s", f.ID, f.Name, f.Type))
	}
	want := []string{"0:dt:STRING NOT NULL", "1:ident:INT NOT NULL", "4:n:ROW<`x` INT>", "2:w:BIGINT", "3:s:STRING"}
	if !slices.Equal(got, want) || ts.HighestFieldID != 5 || ts.Fields[2].Type.Fields[0].ID != 5 || !slices.Equal(ts.PrimaryKeys, []string{"dt", "ident"}) || ts.Options["x"] != "1" {
		t.Errorf("got %q highest %d pk %q options %v", got, ts.HighestFieldID, ts.PrimaryKeys, ts.Options)
	}
	if len(base.Fields) != 4 || base.Fields[2].Name != "v" || base.Options["x"] != "" || base.PrimaryKeys[1] != "id" {
		t.Error("ApplySchemaChanges modified its input")
	}
	for name, c := range map[string]schema.SchemaChange{
		"drop pk":          {Kind: schema.DropColumn, Column: "id"},
		"drop partition":   {Kind: schema.DropColumn, Column: "dt"},
		"drop seq field":   {Kind: schema.DropColumn, Column: "s"},
		"rename seq":       {Kind: schema.RenameColumn, Column: "s", NewName: "s2"},
		"rename partition": {Kind: schema.RenameColumn, Column: "dt", NewName: "d"},
		"narrow":           {Kind: schema.UpdateColumnType, Column: "v", Type: schema.MustParseDataType("SMALLINT")},
		"to not null":      {Kind: schema.UpdateColumnType, Column: "v", Type: schema.MustParseDataType("INT NOT NULL")},
		"pk type":          {Kind: schema.UpdateColumnType, Column: "id", Type: schema.MustParseDataType("BIGINT NOT NULL")},
		"add not null":     {Kind: schema.AddColumn, Column: "z", Type: schema.MustParseDataType("INT NOT NULL")},
		"add existing":     {Kind: schema.AddColumn, Column: "V", Type: schema.MustParseDataType("INT")},
		"bucket":           {Kind: schema.SetOption, Key: "bucket", Value: "4"},
		"reset bucket":     {Kind: schema.RemoveOption, Key: "bucket"},
		"merge-engine":     {Kind: schema.SetOption, Key: "merge-engine", Value: "first-row"},
		"bad value":        {Kind: schema.SetOption, Key: "num-levels", Value: "x"},
		"missing":          {Kind: schema.DropColumn, Column: "nope"},
		"after missing":    {Kind: schema.AddColumn, Column: "z", Type: schema.MustParseDataType("INT"), After: "nope"},
	} {
		if _, err := schema.ApplySchemaChanges(base, []schema.SchemaChange{c}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := schema.ApplySchemaChanges(base, []schema.SchemaChange{{Kind: schema.SetOption, Key: "bucket", Value: "4"}}); err == nil || !strings.Contains(err.Error(), "rescale is a procedure") {
		t.Errorf("bucket change error %v", err)
	}
}
