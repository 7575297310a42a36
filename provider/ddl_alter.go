package provider

import (
	"context"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/internal/schema"
)

// SchemaChange is one change of ALTER TABLE: schema.SchemaChange, whose
// rules (schema.ApplySchemaChanges) live next to the schema.
type SchemaChange = schema.SchemaChange

// SchemaChangeKind names the kind of a SchemaChange.
type SchemaChangeKind = schema.SchemaChangeKind

// The schema changes lakesql applies (schema's).
const (
	AddColumn           = schema.AddColumn
	DropColumn          = schema.DropColumn
	RenameColumn        = schema.RenameColumn
	UpdateColumnType    = schema.UpdateColumnType
	UpdateColumnComment = schema.UpdateColumnComment
	MoveColumn          = schema.MoveColumn
	SetOption           = schema.SetOption
	RemoveOption        = schema.RemoveOption
	UpdateComment       = schema.UpdateComment
	RescaleBucket       = schema.RescaleBucket
)

// AlterPaimonTable applies changes to the latest schema of table db.name
// and commits it as schema-(N+1) (snapshot.Catalog.AlterTable, which
// re-applies the changes a few times when another writer commits first;
// after that the error wraps ErrSchemaConflict).
func (p *Provider) AlterPaimonTable(ctx context.Context, db, name string, changes []SchemaChange) error {
	if err := p.checkWritable(); err != nil {
		return err
	}
	defer p.forgetHandles()
	return catalogError(p.cat.AlterTable(ctx, db, name, changes))
}

// The sql.AlterableTable column methods. GMS calls them for MySQL ALTER
// TABLE statements it parsed itself (the sqlengine front executes most ALTER
// statements directly through AlterPaimonTable). *Table becomes a full
// sql.AlterableTable once it also implements sql.UpdatableTable.

// AddColumn implements sql.AlterableTable.AddColumn.
func (t *Table) AddColumn(ctx *sql.Context, column *sql.Column, order *sql.ColumnOrder) error {
	c, err := columnChange(AddColumn, column)
	if err != nil {
		return mapError(err)
	}
	if column.Default != nil && !isNullDefault(column.Default) {
		return mapError(ddlErr(ErrUnsupportedDDL, "ADD COLUMN %s: DEFAULT values are not supported", column.Name))
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
		return mapError(err)
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

// alter applies changes for GMS's ALTER TABLE, with the errors GMS passes
// on mapped to their MySQL codes (1235 for a missing feature).
func (t *Table) alter(ctx *sql.Context, changes []SchemaChange) error {
	if t.name != t.base {
		return mapError(ddlErr(ErrUnsupportedDDL, "cannot alter %s: only the table itself (not a branch, $ro or system table) can be altered", t.name))
	}
	return mapError(t.db.p.AlterPaimonTable(ctx, t.db.name, t.base, changes))
}
