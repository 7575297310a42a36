package schema

import (
	"strings"
	"unicode/utf8"
)

// MaxNameLength is the longest column name in characters (MySQL's limit on
// identifiers, which lakesql applies to Paimon tables too).
const MaxNameLength = 64

// NewTableSchema normalizes and validates the schema of a new table from
// the columns, keys, options and comment of in: field ids are numbered from
// 0 in declaration order, nested ROW fields after their parent (Java's
// Schema.Builder / ReassignFieldId); key names take their column's
// spelling; primary key columns become NOT NULL; options are kept as given
// (Paimon's defaults are not written) and must pass CheckTableSchema. The
// result has ID 0; the caller sets TimeMillis. in is not modified. Errors
// are *ChangeError values.
func NewTableSchema(in *TableSchema) (*TableSchema, error) {
	if len(in.Fields) == 0 {
		return nil, changeErr(ErrInvalidSchema, "a table needs at least one column")
	}
	ts := &TableSchema{
		Version:       SchemaVersionCurrent,
		PartitionKeys: append([]string{}, in.PartitionKeys...),
		PrimaryKeys:   append([]string{}, in.PrimaryKeys...),
		Options:       in.Options.Clone(),
	}
	if ts.Options == nil {
		ts.Options = Options{}
	}
	if in.Comment != nil && *in.Comment != "" {
		c := *in.Comment
		ts.Comment = &c
	}
	seen := map[string]bool{}
	for _, f := range in.Fields {
		low := strings.ToLower(f.Name)
		if f.Name == "" {
			return nil, changeErr(ErrInvalidSchema, "empty column name")
		}
		if seen[low] {
			return nil, nameErr(ErrDuplicateColumn, f.Name, "column %s is listed twice", f.Name)
		}
		seen[low] = true
		if err := checkColumnType(f.Name, &f.Type); err != nil {
			return nil, err
		}
	}
	for _, keys := range [][]string{ts.PrimaryKeys, ts.PartitionKeys} {
		dup := map[string]bool{}
		for i, k := range keys {
			j := fieldIndexFold(in.Fields, k)
			if j < 0 {
				return nil, changeErr(ErrInvalidSchema, "key column %s is not a column of the table", k)
			}
			if dup[strings.ToLower(k)] {
				return nil, changeErr(ErrInvalidSchema, "key column %s is listed twice", k)
			}
			dup[strings.ToLower(k)] = true
			keys[i] = in.Fields[j].Name
		}
	}
	pk := map[string]bool{}
	for _, k := range ts.PrimaryKeys {
		pk[k] = true
	}
	next := 0
	for _, f := range in.Fields {
		nf := DataField{ID: next, Name: f.Name, Description: f.Description, DefaultValue: f.DefaultValue}
		next++
		nf.Type = ReassignFieldIDs(f.Type, &next)
		if pk[f.Name] {
			nf.Type = nf.Type.WithNullable(false)
		}
		ts.Fields = append(ts.Fields, nf)
	}
	ts.HighestFieldID = next - 1
	if err := CheckTableSchema(ts); err != nil {
		return nil, err
	}
	return ts, nil
}

// checkColumnType rejects types a lakesql table cannot hold.
func checkColumnType(col string, t *DataType) error {
	if err := t.Validate(); err != nil {
		return changeErr(ErrInvalidSchema, "column %s: %v", col, err)
	}
	return nil
}

// ReassignFieldIDs numbers the nested ROW fields of t from *next on,
// depth first (Java's ReassignFieldId).
func ReassignFieldIDs(t DataType, next *int) DataType {
	switch t.Root {
	case TypeRow:
		fields := make([]DataField, len(t.Fields))
		for i, f := range t.Fields {
			f.ID = *next
			*next++
			f.Type = ReassignFieldIDs(f.Type, next)
			fields[i] = f
		}
		t.Fields = fields
	case TypeArray, TypeMultiset:
		if t.Elem != nil {
			e := ReassignFieldIDs(*t.Elem, next)
			t.Elem = &e
		}
	case TypeMap:
		if t.Key != nil {
			k := ReassignFieldIDs(*t.Key, next)
			t.Key = &k
		}
		if t.Value != nil {
			v := ReassignFieldIDs(*t.Value, next)
			t.Value = &v
		}
	}
	return t
}

// CheckTableSchema runs Paimon's schema rules (Validate), parses every
// option (CheckOptions) and checks the options that name columns and the
// bucket count, for a new table and after every schema change.
func CheckTableSchema(ts *TableSchema) error {
	for _, f := range ts.Fields {
		if utf8.RuneCountInString(f.Name) > MaxNameLength {
			return nameErr(ErrNameTooLong, f.Name, "column name %s is longer than %d characters", f.Name, MaxNameLength)
		}
	}
	if err := ts.Validate(); err != nil {
		return &ChangeError{Kind: ErrInvalidSchema, Msg: err.Error()}
	}
	if err := ts.CheckOptions(); err != nil {
		return &ChangeError{Kind: ErrInvalidOptionValue, Msg: err.Error()}
	}
	for _, k := range ts.BucketKeys() {
		if ts.FieldIndex(k) < 0 {
			return changeErr(ErrInvalidSchema, "'bucket-key' names %s, which is not a column", k)
		}
	}
	for _, k := range ts.Options.SequenceField() {
		if ts.FieldIndex(k) < 0 {
			return changeErr(ErrInvalidSchema, "'sequence.field' names %s, which is not a column", k)
		}
	}
	if b, _ := ts.Options.Bucket(); b == 0 || b < BucketPostpone {
		return changeErr(ErrInvalidSchema, "'bucket' = %d: use a positive bucket count, -1 (dynamic/unaware) or -2 (postpone)", b)
	}
	if !ts.IsPrimaryKeyTable() {
		if b, _ := ts.Options.Bucket(); b > 0 && len(ts.Options.BucketKey()) == 0 {
			return changeErr(ErrInvalidSchema, "an append table with 'bucket' = %d needs 'bucket-key'", b)
		}
	}
	return nil
}
