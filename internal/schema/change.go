package schema

import (
	"slices"
	"strings"
)

// SchemaChange is one change of ALTER TABLE, applied to the latest schema
// (Java: org.apache.paimon.schema.SchemaChange). Which fields apply depends
// on Kind.
type SchemaChange struct {
	Kind SchemaChangeKind
	// Column is the column changed (AddColumn: the new column's name).
	Column string
	// NewName is the new column name (RenameColumn).
	NewName string
	// Type is the new or added column type (AddColumn, UpdateColumnType).
	Type DataType
	// Comment is the new column or table comment (nil clears it).
	Comment *string
	// First and After place an added or moved column.
	First bool
	After string
	// Key and Value of SetOption / RemoveOption.
	Key, Value string
}

// SchemaChangeKind names the kind of a SchemaChange.
type SchemaChangeKind int

// The schema changes lakesql applies.
const (
	AddColumn SchemaChangeKind = iota + 1
	DropColumn
	RenameColumn
	UpdateColumnType // also widens nullability (NOT NULL → NULL)
	UpdateColumnComment
	MoveColumn
	SetOption
	RemoveOption
	UpdateComment
	// RescaleBucket sets 'bucket' to Value: only CALL sys.rescale uses it,
	// which rewrites the data with the new bucket count.
	RescaleBucket
)

// immutableOptions cannot change after creation (CoreOptions' immutable
// keys); bucket has its own message.
var immutableOptions = map[string]bool{
	"primary-key": true, "partition": true, OptBucketKey: true, OptMergeEngine: true,
	OptSequenceField: true, OptSequenceFieldSortOrder: true, "path": true, "connector": true,
}

// ApplySchemaChanges returns a copy of base with changes applied and
// validated (Java SchemaManager's rules): new columns get fresh field ids
// after HighestFieldID and must be nullable; primary key and partition
// columns cannot be dropped or change type; a type change must be an
// implicit (widening) cast; 'bucket' and other immutable options cannot
// change. The caller sets the new schema's ID and TimeMillis. Errors are
// *ChangeError values.
func ApplySchemaChanges(base *TableSchema, changes []SchemaChange) (*TableSchema, error) {
	ns := base.Copy()
	ns.Fields = slices.Clone(base.Fields)
	if ns.Options == nil {
		ns.Options = Options{}
	}
	for _, c := range changes {
		if err := applyChange(ns, c); err != nil {
			return nil, err
		}
	}
	if err := CheckTableSchema(ns); err != nil {
		return nil, err
	}
	return ns, nil
}

func findField(ts *TableSchema, name string) (int, error) {
	i := fieldIndexFold(ts.Fields, name)
	if i < 0 {
		return -1, nameErr(ErrColumnNotFound, name, "column %s does not exist", name)
	}
	return i, nil
}

// fieldIndexFold finds a field by name, exactly first, then ignoring case
// (MySQL column names are case-insensitive).
func fieldIndexFold(fields []DataField, name string) int {
	for i := range fields {
		if fields[i].Name == name {
			return i
		}
	}
	for i := range fields {
		if strings.EqualFold(fields[i].Name, name) {
			return i
		}
	}
	return -1
}

// optionsNaming lists the option keys that refer to column name.
func optionsNaming(ts *TableSchema, name string) []string {
	var out []string
	for k, v := range ts.Options {
		switch {
		case strings.HasPrefix(k, optFieldsPrefix+name+"."):
			out = append(out, k)
		case k == OptBucketKey || k == OptSequenceField || strings.HasSuffix(k, ".sequence-group"):
			for _, part := range strings.Split(v, ",") {
				if strings.TrimSpace(part) == name {
					out = append(out, k)
					break
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

func applyChange(ts *TableSchema, c SchemaChange) error {
	switch c.Kind {
	case AddColumn:
		if fieldIndexFold(ts.Fields, c.Column) >= 0 {
			return nameErr(ErrColumnExists, c.Column, "column %s already exists", c.Column)
		}
		if c.Column == "" {
			return changeErr(ErrInvalidSchema, "empty column name")
		}
		if !c.Type.Nullable {
			return changeErr(ErrUnsupportedChange, "ADD COLUMN %s: a new column must be nullable (existing rows have no value for it); drop NOT NULL", c.Column)
		}
		if err := checkColumnType(c.Column, &c.Type); err != nil {
			return err
		}
		next := ts.HighestFieldID + 1
		f := DataField{ID: next, Name: c.Column, Description: c.Comment}
		next++
		f.Type = ReassignFieldIDs(c.Type, &next)
		ts.HighestFieldID = next - 1
		pos, err := position(ts, c)
		if err != nil {
			return err
		}
		ts.Fields = slices.Insert(ts.Fields, pos, f)
	case DropColumn:
		i, err := findField(ts, c.Column)
		if err != nil {
			return err
		}
		name := ts.Fields[i].Name
		if slices.Contains(ts.PrimaryKeys, name) || slices.Contains(ts.PartitionKeys, name) {
			return changeErr(ErrUnsupportedChange, "cannot drop column %s: it is a primary key or partition column", name)
		}
		if opts := optionsNaming(ts, name); len(opts) > 0 {
			return changeErr(ErrUnsupportedChange, "cannot drop column %s: table options %s refer to it", name, strings.Join(opts, ", "))
		}
		if len(ts.Fields) == 1 {
			return changeErr(ErrUnsupportedChange, "cannot drop column %s: a table needs at least one column", name)
		}
		ts.Fields = slices.Delete(ts.Fields, i, i+1)
		moveUnsignedOption(ts, name, "")
	case RenameColumn:
		i, err := findField(ts, c.Column)
		if err != nil {
			return err
		}
		old := ts.Fields[i].Name
		if c.NewName == "" {
			return changeErr(ErrInvalidSchema, "empty column name")
		}
		if j := fieldIndexFold(ts.Fields, c.NewName); j >= 0 && j != i {
			return nameErr(ErrColumnExists, c.NewName, "column %s already exists", c.NewName)
		}
		if slices.Contains(ts.PartitionKeys, old) {
			return changeErr(ErrUnsupportedChange, "cannot rename partition column %s", old)
		}
		if opts := optionsNaming(ts, old); len(opts) > 0 {
			return changeErr(ErrUnsupportedChange, "cannot rename column %s: table options %s refer to it", old, strings.Join(opts, ", "))
		}
		ts.Fields[i].Name = c.NewName
		moveUnsignedOption(ts, old, c.NewName)
		for k, pk := range ts.PrimaryKeys {
			if pk == old {
				ts.PrimaryKeys = slices.Clone(ts.PrimaryKeys)
				ts.PrimaryKeys[k] = c.NewName
			}
		}
	case UpdateColumnType:
		i, err := findField(ts, c.Column)
		if err != nil {
			return err
		}
		f := ts.Fields[i]
		if err := checkColumnType(f.Name, &c.Type); err != nil {
			return err
		}
		if f.Type.Equal(c.Type) {
			return nil
		}
		if slices.Contains(ts.PrimaryKeys, f.Name) || slices.Contains(ts.PartitionKeys, f.Name) {
			if f.Type.EqualIgnoreNullability(c.Type) {
				return nil // MySQL MODIFY without NOT NULL on a key column: keys stay NOT NULL
			}
			return changeErr(ErrUnsupportedChange, "cannot change the type of column %s: it is a primary key or partition column", f.Name)
		}
		if f.Type.Nullable && !c.Type.Nullable {
			return changeErr(ErrUnsupportedChange, "cannot make column %s NOT NULL: existing rows may hold NULL", f.Name)
		}
		if !f.Type.EqualIgnoreNullability(c.Type) && !SupportsCast(&f.Type, &c.Type, false) {
			return changeErr(ErrUnsupportedChange, "cannot change column %s from %s to %s: only widening (implicit) casts are allowed", f.Name, f.Type, c.Type)
		}
		nt := c.Type
		if nt.Root == TypeRow && f.Type.Root == TypeRow {
			nt.Fields = f.Type.Fields // same ROW ignoring nullability: keep its field ids
		}
		ts.Fields[i].Type = nt
	case UpdateColumnComment:
		i, err := findField(ts, c.Column)
		if err != nil {
			return err
		}
		if c.Comment != nil && *c.Comment == "" {
			c.Comment = nil
		}
		ts.Fields[i].Description = c.Comment
	case MoveColumn:
		i, err := findField(ts, c.Column)
		if err != nil {
			return err
		}
		f := ts.Fields[i]
		ts.Fields = slices.Delete(ts.Fields, i, i+1)
		pos, err := position(ts, c)
		if err != nil {
			return err
		}
		ts.Fields = slices.Insert(ts.Fields, pos, f)
	case SetOption, RemoveOption, RescaleBucket:
		return applyOption(ts, c)
	case UpdateComment:
		if c.Comment != nil && *c.Comment == "" {
			c.Comment = nil
		}
		ts.Comment = c.Comment
	default:
		return changeErr(ErrUnsupportedChange, "unknown schema change %d", c.Kind)
	}
	return nil
}

// position returns where an added or moved column goes.
func position(ts *TableSchema, c SchemaChange) (int, error) {
	switch {
	case c.First:
		return 0, nil
	case c.After != "":
		j, err := findField(ts, c.After)
		if err != nil {
			return 0, err
		}
		return j + 1, nil
	}
	return len(ts.Fields), nil
}

func applyOption(ts *TableSchema, c SchemaChange) error {
	k := strings.TrimSpace(c.Key)
	old, had := ts.Options[k]
	if c.Kind != RemoveOption && had && old == c.Value {
		return nil
	}
	if c.Kind == RemoveOption && !had {
		return nil
	}
	switch {
	case k == OptBucket && c.Kind != RescaleBucket:
		return changeErr(ErrUnsupportedChange, "cannot change 'bucket' with ALTER TABLE: changing the bucket count rewrites every file; rescale is a procedure (CALL sys.rescale), not a schema change")
	case immutableOptions[k]:
		return changeErr(ErrUnsupportedChange, "cannot change option '%s' of an existing table", k)
	}
	opts := ts.Options.Clone()
	if c.Kind != RemoveOption {
		opts[k] = c.Value
	} else {
		delete(opts, k)
	}
	ts.Options = opts
	return nil
}

// moveUnsignedOption keeps a column's OptUnsignedPrefix option in step with
// RENAME COLUMN (to the new name) and DROP COLUMN (to "": removed).
func moveUnsignedOption(ts *TableSchema, from, to string) {
	v, ok := ts.Options[OptUnsignedPrefix+from]
	if !ok {
		return
	}
	opts := ts.Options.Clone()
	delete(opts, OptUnsignedPrefix+from)
	if to != "" {
		opts[OptUnsignedPrefix+to] = v
	}
	ts.Options = opts
}
