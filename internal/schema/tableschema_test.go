package schema_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/testutil"
)

// fixtureSchemaFiles lists every schema/schema-N file of every fixture
// table, branches included.
func fixtureSchemaFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	tables := testutil.FixtureTables(t)
	if len(tables) == 0 {
		t.Fatal("no fixture tables found")
	}
	for _, dir := range tables {
		main, err := filepath.Glob(filepath.Join(dir, "schema", "schema-*"))
		if err != nil {
			t.Fatal(err)
		}
		branch, err := filepath.Glob(filepath.Join(dir, "branch", "branch-*", "schema", "schema-*"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, main...)
		files = append(files, branch...)
	}
	sort.Strings(files)
	return files
}

func TestFixtureSchemasRoundTripByteForByte(t *testing.T) {
	files := fixtureSchemaFiles(t)
	if len(files) < 60 {
		t.Fatalf("expected at least 60 fixture schema files, found %d", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s, err := schema.DecodeTableSchema(data)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if want := "schema-" + s.ID.String(); filepath.Base(f) != want {
			t.Errorf("%s: decoded id %s", f, s.ID)
		}
		if s.Version != schema.SchemaVersionCurrent {
			t.Errorf("%s: version %d", f, s.Version)
		}
		if len(s.Fields) == 0 || s.TimeMillis == 0 {
			t.Errorf("%s: fields %d timeMillis %d", f, len(s.Fields), s.TimeMillis)
		}
		if got := schema.HighestFieldID(s.Fields); got > s.HighestFieldID {
			t.Errorf("%s: field id %d above highestFieldId %d", f, got, s.HighestFieldID)
		}
		out, err := schema.EncodeTableSchema(s)
		if err != nil {
			t.Errorf("%s: encode: %v", f, err)
			continue
		}
		if !bytes.Equal(out, data) {
			t.Errorf("%s: re-encoded bytes differ\n--- got\n%s\n--- want\n%s", f, out, data)
		}
	}
}

func TestFixtureNestedSchema(t *testing.T) {
	dir := testutil.FixtureTables(t)["pk_table_nested_type"]
	data, err := os.ReadFile(filepath.Join(dir, "schema", "schema-0"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := schema.DecodeTableSchema(data)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(s.TrimmedPrimaryKeys(), ","); got != "shopId" {
		t.Errorf("trimmed PK = %s", got)
	}
	if got := strings.Join(s.BucketKeys(), ","); got != "shopId" {
		t.Errorf("bucket keys = %s", got)
	}
	if !s.IsPrimaryKeyTable() {
		t.Error("expected PK table")
	}
	f, ok := s.FieldByName("col1")
	if !ok || f.ID != 4 {
		t.Fatalf("col1 = %+v %v", f, ok)
	}
	if got := f.Type.String(); got != "ROW<`f0` STRING, `f1` INT, `f2` ARRAY<INT>>" {
		t.Errorf("col1 type = %s", got)
	}
	if f.Type.Fields[2].ID != 7 || f.Type.Fields[2].Type.Elem.Root != schema.TypeInt {
		t.Errorf("nested field = %+v", f.Type.Fields[2])
	}
	if f2, ok := s.FieldByID(8); !ok || f2.Name != "col2" || f2.Type.String() != "MAP<INT, INT>" {
		t.Errorf("field 8 = %+v", f2)
	}
	if _, ok := s.FieldByID(5); ok {
		t.Error("FieldByID must only find top-level fields")
	}
	pf := s.PartitionFields()
	if len(pf) != 2 || pf[0].Name != "dt" || pf[1].Name != "hr" || pf[0].Type.Nullable {
		t.Errorf("partition fields = %+v", pf)
	}
	if got := s.LogicalTrimmedPrimaryKeysType().String(); got != "ROW<`shopId` INT NOT NULL>" {
		t.Errorf("key type = %s", got)
	}
	if n, err := s.Options.Bucket(); err != nil || n != 2 {
		t.Errorf("bucket = %d %v", n, err)
	}
	if schema.HighestFieldID(s.Fields) != 8 || s.HighestFieldID != 8 {
		t.Errorf("highest field id")
	}
}

const minimalSchema = `{
  "version" : 3,
  "id" : 4,
  "fields" : [ {
    "id" : 0,
    "name" : "k",
    "type" : "BIGINT NOT NULL",
    "description" : "the \"key\"\n\u0001"
  }, {
    "id" : 1,
    "name" : "v",
    "type" : "DECIMAL(38, 18)",
    "defaultValue" : "0"
  } ],
  "highestFieldId" : 1,
  "partitionKeys" : [ ],
  "primaryKeys" : [ "k" ],
  "options" : { },
  "comment" : "héllo",
  "timeMillis" : 1
}`

func TestSchemaRoundTripCommentDescriptionEmpty(t *testing.T) {
	s, err := schema.DecodeTableSchema([]byte(minimalSchema))
	if err != nil {
		t.Fatal(err)
	}
	if s.Comment == nil || *s.Comment != "héllo" || *s.Fields[0].Description != "the \"key\"\n\x01" ||
		*s.Fields[1].DefaultValue != "0" {
		t.Fatalf("decoded %+v", s)
	}
	out, err := schema.EncodeTableSchema(s)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != minimalSchema {
		t.Errorf("got\n%s\nwant\n%s", out, minimalSchema)
	}
}

func TestSchemaUnknownFieldsPreserved(t *testing.T) {
	in := strings.Replace(minimalSchema, `  "options" : { },`, `  "futureField" : {
    "a" : [ 1, 2.5, true, null ],
    "b" : { }
  },
  "options" : { },`, 1)
	s, err := schema.DecodeTableSchema([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	out, err := schema.EncodeTableSchema(s)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != in {
		t.Errorf("got\n%s\nwant\n%s", out, in)
	}
}

func TestSchemaNewOptionsJavaHashMapOrder(t *testing.T) {
	s, err := schema.DecodeTableSchema([]byte(minimalSchema))
	if err != nil {
		t.Fatal(err)
	}
	// Keys whose order in a fresh Java HashMap is known from the fixtures
	// (pk_table_scan_and_read_dv schema-0).
	// commit.force-compact and deletion-vectors.enabled share a bucket: ties
	// are broken by key order since a Go map has no insertion order.
	for _, k := range []string{"commit.force-compact", "deletion-vectors.enabled", "file.format", "manifest.format", "bucket-key", "bucket"} {
		s.Options[k] = "x"
	}
	out, err := schema.EncodeTableSchema(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `"options" : {
    "bucket" : "x",
    "bucket-key" : "x",
    "manifest.format" : "x",
    "file.format" : "x",
    "commit.force-compact" : "x",
    "deletion-vectors.enabled" : "x"
  },`
	if !strings.Contains(string(out), want) {
		t.Errorf("options order:\n%s", out)
	}
}

func TestSchemaLegacyVersionDefaults(t *testing.T) {
	in := strings.Replace(minimalSchema, `"version" : 3`, `"version" : 1`, 1)
	s, err := schema.DecodeTableSchema([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := s.Options.Bucket(); n != 1 {
		t.Errorf("legacy bucket = %d", n)
	}
	if s.Options.FileFormat() != "orc" {
		t.Errorf("legacy file format = %s", s.Options.FileFormat())
	}
	out, err := schema.EncodeTableSchema(s)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != in {
		t.Errorf("legacy defaults must not be written back:\n%s", out)
	}
	noVersion := strings.Replace(minimalSchema, "  \"version\" : 3,\n", "", 1)
	s, err = schema.DecodeTableSchema([]byte(noVersion))
	if err != nil {
		t.Fatal(err)
	}
	if s.Version != schema.SchemaVersionPaimon07 {
		t.Errorf("missing version = %d", s.Version)
	}
}

func TestDecodeTableSchemaErrors(t *testing.T) {
	cases := map[string]string{
		"not json":          `{`,
		"array":             `[]`,
		"missing fields":    strings.Replace(minimalSchema, `"fields"`, `"fieldz"`, 1),
		"bad type":          strings.Replace(minimalSchema, `BIGINT NOT NULL`, `BIGINTEGER`, 1),
		"pk not a field":    strings.Replace(minimalSchema, `[ "k" ]`, `[ "nope" ]`, 1),
		"pk = partition":    strings.Replace(minimalSchema, `"partitionKeys" : [ ]`, `"partitionKeys" : [ "k" ]`, 1),
		"id string":         strings.Replace(minimalSchema, `"id" : 4`, `"id" : "4"`, 1),
		"field without id":  strings.Replace(minimalSchema, "\"id\" : 0,\n", "", 1),
		"decimal precision": strings.Replace(minimalSchema, `DECIMAL(38, 18)`, `DECIMAL(39, 18)`, 1),
		"option object":     strings.Replace(minimalSchema, `"options" : { }`, `"options" : { "a" : {} }`, 1),
		"trailing":          minimalSchema + "x",
		"duplicate name":    strings.Replace(minimalSchema, `"name" : "v"`, `"name" : "k"`, 1),
	}
	for name, in := range cases {
		_, err := schema.DecodeTableSchema([]byte(in))
		if err == nil {
			t.Errorf("%s: expected an error", name)
			continue
		}
		if !errors.Is(err, schema.ErrCorrupt) {
			t.Errorf("%s: error %v does not wrap ErrCorrupt", name, err)
		}
	}
}

func TestTrimmedAndBucketKeys(t *testing.T) {
	s := &schema.TableSchema{
		Fields: []schema.DataField{
			{ID: 0, Name: "dt", Type: schema.StringType()},
			{ID: 1, Name: "id", Type: schema.AtomicType(schema.TypeInt)},
			{ID: 2, Name: "v", Type: schema.AtomicType(schema.TypeInt)},
		},
		PartitionKeys: []string{"dt"},
		PrimaryKeys:   []string{"dt", "id"},
		Options:       schema.Options{},
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := s.TrimmedPrimaryKeys(); len(got) != 1 || got[0] != "id" {
		t.Errorf("trimmed = %v", got)
	}
	if got := s.BucketKeys(); len(got) != 1 || got[0] != "id" {
		t.Errorf("bucket keys = %v", got)
	}
	s.Options[schema.OptBucketKey] = "v"
	if err := s.Validate(); !errors.Is(err, schema.ErrInvalidSchema) {
		t.Errorf("bucket key outside PK must be rejected, got %v", err)
	}
	s.PrimaryKeys = nil
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := s.BucketKeys(); len(got) != 1 || got[0] != "v" {
		t.Errorf("bucket keys = %v", got)
	}
	if s.IsPrimaryKeyTable() || s.CrossPartitionUpdate() {
		t.Error("append table")
	}
}

func FuzzDecodeTableSchema(f *testing.F) {
	f.Add([]byte(minimalSchema))
	f.Add([]byte(`{"id":0,"fields":[{"id":0,"name":"a","type":{"type":"ROW","fields":[{"id":1,"name":"b","type":{"type":"MAP","key":"INT","value":{"type":"ARRAY NOT NULL","element":"STRING"}}}]}}],"highestFieldId":1,"partitionKeys":[],"primaryKeys":[],"options":{"bucket":"x"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := schema.DecodeTableSchema(data)
		if err != nil {
			if !errors.Is(err, schema.ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		out, err := schema.EncodeTableSchema(s)
		if err != nil {
			t.Fatalf("decoded schema does not encode: %v", err)
		}
		s2, err := schema.DecodeTableSchema(out)
		if err != nil {
			t.Fatalf("re-decode: %v\n%s", err, out)
		}
		out2, err := schema.EncodeTableSchema(s2)
		if err != nil || !bytes.Equal(out, out2) {
			t.Fatalf("encoding not stable: %v\n%s\n%s", err, out, out2)
		}
		_ = s.BucketKeys()
		_ = s.PartitionFields()
		_, _ = s.Options.Core()
	})
}

func decodeFile(t *testing.T, path string) *schema.TableSchema {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := schema.DecodeTableSchema(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return s
}
