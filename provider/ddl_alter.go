package provider

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/snapshot"
)

// SchemaChange is one change of ALTER TABLE, applied to the latest schema
// (Java: org.apache.paimon.schema.SchemaChange). Exactly one kind of field
// group is set, chosen by Kind.
type SchemaChange struct {
	Kind SchemaChangeKind
	// Column is the column changed (AddColumn: the new column's name).
	Column string
	// NewName is the new column name (RenameColumn).
	NewName string
	// Type is the new or added column type (AddColumn, UpdateColumnType).
	Type schema.DataType
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
	"primary-key": true, "partition": true, schema.OptBucketKey: true, schema.OptMergeEngine: true,
	schema.OptSequenceField: true, "sequence.field.sort-order": true, "path": true, "connector": true,
}

// AlterPaimonTable applies changes to the latest schema of table db.name and
// commits it as schema-(N+1) with SchemaManager.Commit. When another writer
// commits schema-(N+1) first, the changes are re-applied to the new latest
// schema, a few times; after that the error wraps ErrSchemaConflict.
func (p *Provider) AlterPaimonTable(ctx context.Context, db, name string, changes []SchemaChange) error {
	if err := p.checkWritable(); err != nil {
		return err
	}
	realDB, err := p.resolveDatabase(ctx, db)
	if err != nil {
		return err
	}
	real, ok, err := p.resolveTable(ctx, realDB, name)
	if err != nil {
		return err
	}
	if !ok {
		return errTableNotFound(name)
	}
	for attempt := 0; ; attempt++ {
		// A fresh manager per attempt: its cache must not hide the winner.
		sm := snapshot.NewSchemaManager(p.tableStorage(realDB, real), "")
		latest, err := sm.Latest(ctx)
		if err != nil {
			return mapError(err)
		}
		ns, err := ApplySchemaChanges(latest, changes)
		if err != nil {
			return err
		}
		ns.ID = latest.ID + 1
		ns.TimeMillis = time.Now().UnixMilli()
		err = sm.Commit(ctx, ns)
		if err == nil {
			return nil
		}
		if !errors.Is(err, snapshot.ErrConflict) {
			return fmt.Errorf("lakesql: alter table %s.%s: %w", realDB, real, err)
		}
		if attempt+1 >= schemaCommitRetries {
			return &ddlError{kind: ErrSchemaConflict, msg: fmt.Sprintf(
				"lakesql: alter table %s.%s: schema-%d was committed concurrently %d times in a row; retry the statement", realDB, real, ns.ID, schemaCommitRetries)}
		}
	}
}

// ApplySchemaChanges returns a copy of base with changes applied and
// validated (Paimon's SchemaManager rules): new columns get fresh field ids
// after HighestFieldID and must be nullable; primary key and partition
// columns cannot be dropped or change type; a type change must be an
// implicit (widening) cast; 'bucket' and other immutable options cannot
// change.
func ApplySchemaChanges(base *schema.TableSchema, changes []SchemaChange) (*schema.TableSchema, error) {
	ns := base.Copy()
	ns.Fields = slices.Clone(base.Fields)
	if ns.Options == nil {
		ns.Options = schema.Options{}
	}
	for _, c := range changes {
		if err := applyChange(ns, c); err != nil {
			return nil, err
		}
	}
	if err := validateTableSchema(ns); err != nil {
		return nil, err
	}
	return ns, nil
}

func findField(ts *schema.TableSchema, name string) (int, error) {
	i := fieldIndexFold(ts.Fields, name)
	if i < 0 {
		return -1, sql.ErrTableColumnNotFound.New("", name)
	}
	return i, nil
}

func isKey(keys []string, name string) bool { return slices.Contains(keys, name) }

// optionsNaming lists the option keys that refer to column name.
func optionsNaming(ts *schema.TableSchema, name string) []string {
	var out []string
	for k, v := range ts.Options {
		switch {
		case strings.HasPrefix(k, "fields."+name+"."):
			out = append(out, k)
		case k == schema.OptBucketKey || k == schema.OptSequenceField || strings.HasSuffix(k, ".sequence-group"):
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

func applyChange(ts *schema.TableSchema, c SchemaChange) error {
	switch c.Kind {
	case AddColumn:
		if fieldIndexFold(ts.Fields, c.Column) >= 0 {
			return sql.ErrColumnExists.New(c.Column)
		}
		if c.Column == "" {
			return ddlErr(ErrInvalidDDL, "empty column name")
		}
		if !c.Type.Nullable {
			return ddlErr(ErrUnsupportedDDL, "ADD COLUMN %s: a new column must be nullable (existing rows have no value for it); drop NOT NULL", c.Column)
		}
		if err := checkColumnType(c.Column, &c.Type); err != nil {
			return err
		}
		next := ts.HighestFieldID + 1
		f := schema.DataField{ID: next, Name: c.Column, Description: c.Comment}
		next++
		f.Type = reassignFieldIDs(c.Type, &next)
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
		if isKey(ts.PrimaryKeys, name) || isKey(ts.PartitionKeys, name) {
			return ddlErr(ErrUnsupportedDDL, "cannot drop column %s: it is a primary key or partition column", name)
		}
		if opts := optionsNaming(ts, name); len(opts) > 0 {
			return ddlErr(ErrUnsupportedDDL, "cannot drop column %s: table options %s refer to it", name, strings.Join(opts, ", "))
		}
		if len(ts.Fields) == 1 {
			return ddlErr(ErrUnsupportedDDL, "cannot drop column %s: a table needs at least one column", name)
		}
		ts.Fields = slices.Delete(ts.Fields, i, i+1)
		dropUnsigned(ts, name) // unsigned.go
	case RenameColumn:
		i, err := findField(ts, c.Column)
		if err != nil {
			return err
		}
		old := ts.Fields[i].Name
		if c.NewName == "" {
			return ddlErr(ErrInvalidDDL, "empty column name")
		}
		if j := fieldIndexFold(ts.Fields, c.NewName); j >= 0 && j != i {
			return sql.ErrColumnExists.New(c.NewName)
		}
		if isKey(ts.PartitionKeys, old) {
			return ddlErr(ErrUnsupportedDDL, "cannot rename partition column %s", old)
		}
		if opts := optionsNaming(ts, old); len(opts) > 0 {
			return ddlErr(ErrUnsupportedDDL, "cannot rename column %s: table options %s refer to it", old, strings.Join(opts, ", "))
		}
		ts.Fields[i].Name = c.NewName
		renameUnsigned(ts, old, c.NewName) // unsigned.go
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
		key := isKey(ts.PrimaryKeys, f.Name) || isKey(ts.PartitionKeys, f.Name)
		if key {
			if f.Type.EqualIgnoreNullability(c.Type) {
				return nil // MySQL MODIFY without NOT NULL on a key column: keys stay NOT NULL
			}
			return ddlErr(ErrUnsupportedDDL, "cannot change the type of column %s: it is a primary key or partition column", f.Name)
		}
		if f.Type.Nullable && !c.Type.Nullable {
			return ddlErr(ErrUnsupportedDDL, "cannot make column %s NOT NULL: existing rows may hold NULL", f.Name)
		}
		if !f.Type.EqualIgnoreNullability(c.Type) && !schema.SupportsCast(&f.Type, &c.Type, false) {
			return ddlErr(ErrUnsupportedDDL, "cannot change column %s from %s to %s: only widening (implicit) casts are allowed", f.Name, f.Type, c.Type)
		}
		nt := c.Type
		if nt.Root == schema.TypeRow && f.Type.Root == schema.TypeRow {
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
		return ddlErr(ErrUnsupportedDDL, "unknown schema change %d", c.Kind)
	}
	return nil
}

// position returns where an added or moved column goes.
func position(ts *schema.TableSchema, c SchemaChange) (int, error) {
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

func applyOption(ts *schema.TableSchema, c SchemaChange) error {
	k := strings.TrimSpace(c.Key)
	old, had := ts.Options[k]
	if c.Kind != RemoveOption && had && old == c.Value {
		return nil
	}
	if c.Kind == RemoveOption && !had {
		return nil
	}
	switch {
	case k == schema.OptBucket && c.Kind != RescaleBucket:
		return ddlErr(ErrUnsupportedDDL, "cannot change 'bucket' with ALTER TABLE: changing the bucket count rewrites every file; rescale is a procedure (CALL sys.rescale), not a schema change")
	case immutableOptions[k]:
		return ddlErr(ErrUnsupportedDDL, "cannot change option '%s' of an existing table", k)
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

// The sql.AlterableTable column methods. GMS calls them for MySQL ALTER
// TABLE statements it parsed itself (the sqlengine front executes most ALTER
// statements directly through AlterPaimonTable). *Table becomes a full
// sql.AlterableTable once it also implements sql.UpdatableTable.

// AddColumn implements sql.AlterableTable.AddColumn.
func (t *Table) AddColumn(ctx *sql.Context, column *sql.Column, order *sql.ColumnOrder) error {
	c, err := columnChange(AddColumn, column)
	if err != nil {
		return err
	}
	if column.Default != nil && !isNullDefault(column.Default) {
		return ddlErr(ErrUnsupportedDDL, "ADD COLUMN %s: DEFAULT values are not supported", column.Name)
	}
	setOrder(&c, order)
	return t.alter(ctx, []SchemaChange{c})
}

// DropColumn implements sql.AlterableTable.DropColumn.
func (t *Table) DropColumn(ctx *sql.Context, columnName string) error {
	return t.alter(ctx, []SchemaChange{{Kind: DropColumn, Column: columnName}})
}

// ModifyColumn implements sql.AlterableTable.ModifyColumn: MODIFY and
// CHANGE COLUMN (a rename keeps the field id; a type change must widen).
func (t *Table) ModifyColumn(ctx *sql.Context, columnName string, column *sql.Column, order *sql.ColumnOrder) error {
	changes, err := ModifyColumnChanges(columnName, column, order)
	if err != nil {
		return err
	}
	return t.alter(ctx, changes)
}

// ModifyColumnChanges turns a MySQL MODIFY/CHANGE COLUMN into schema changes.
func ModifyColumnChanges(columnName string, column *sql.Column, order *sql.ColumnOrder) ([]SchemaChange, error) {
	tc, err := columnChange(UpdateColumnType, column)
	if err != nil {
		return nil, err
	}
	if column.Default != nil && !isNullDefault(column.Default) {
		return nil, ddlErr(ErrUnsupportedDDL, "MODIFY COLUMN %s: DEFAULT values are not supported", column.Name)
	}
	name := columnName
	var out []SchemaChange
	if column.Name != "" && column.Name != columnName {
		out = append(out, SchemaChange{Kind: RenameColumn, Column: columnName, NewName: column.Name})
		name = column.Name
	}
	tc.Column = name
	out = append(out, tc, SchemaChange{Kind: UpdateColumnComment, Column: name, Comment: tc.Comment})
	if order != nil {
		mc := SchemaChange{Kind: MoveColumn, Column: name}
		setOrder(&mc, order)
		out = append(out, mc)
	}
	return out, nil
}

func columnChange(kind SchemaChangeKind, column *sql.Column) (SchemaChange, error) {
	if column.AutoIncrement || column.Generated != nil || column.OnUpdate != nil {
		return SchemaChange{}, ddlErr(ErrUnsupportedDDL, "column %s: AUTO_INCREMENT, generated columns and ON UPDATE are not supported", column.Name)
	}
	dt, err := PaimonTypeOf(column.Type)
	if err != nil {
		return SchemaChange{}, ddlErr(ErrUnsupportedDDL, "column %s: %v", column.Name, err)
	}
	c := SchemaChange{Kind: kind, Column: column.Name, Type: dt.WithNullable(column.Nullable)}
	if column.Comment != "" {
		cm := column.Comment
		c.Comment = &cm
	}
	return c, nil
}

func setOrder(c *SchemaChange, order *sql.ColumnOrder) {
	if order == nil {
		return
	}
	c.First = order.First
	c.After = order.AfterColumn
}

func (t *Table) alter(ctx *sql.Context, changes []SchemaChange) error {
	if t.name != t.base {
		return ddlErr(ErrUnsupportedDDL, "cannot alter %s: only the table itself (not a branch, $ro or system table) can be altered", t.name)
	}
	return t.db.p.AlterPaimonTable(ctx, t.db.name, t.base, changes)
}
