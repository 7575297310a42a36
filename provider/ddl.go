package provider

import (
	"context"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/internal/schema"
)

// DDL over the warehouse catalog (snapshot.Catalog: Paimon's filesystem
// catalog layout; the schema rules are internal/schema's NewTableSchema and
// ApplySchemaChanges). The methods here check the server is writable,
// translate GMS's statements, and map the catalog's errors to MySQL's
// (ddl_errors.go).

var (
	_ sql.MutableDatabaseProvider = (*Provider)(nil)
	_ sql.TableCreator            = (*Database)(nil)
	_ sql.TableDropper            = (*Database)(nil)
)

func (p *Provider) checkWritable() error {
	if p.opts.ReadOnly {
		return ddlErr(ErrReadOnly, "the server is read-only (started with read-only)")
	}
	return nil
}

// TableLocation is the URL of a table's folder: <warehouse>/<db>.db/<table>.
func (p *Provider) TableLocation(db, table string) string { return p.cat.TableLocation(db, table) }

// CreateDatabase implements sql.MutableDatabaseProvider: it creates the
// folder <name>.db (with its marker object).
func (p *Provider) CreateDatabase(ctx *sql.Context, name string) error {
	return p.CreatePaimonDatabase(ctx, name, false)
}

// CreatePaimonDatabase creates database name; with ifNotExists an existing
// database is not an error.
func (p *Provider) CreatePaimonDatabase(ctx context.Context, name string, ifNotExists bool) error {
	if err := p.checkWritable(); err != nil {
		return err
	}
	defer p.forgetHandles()
	return catalogError(p.cat.CreateDatabase(ctx, name, ifNotExists))
}

// DropDatabase implements sql.MutableDatabaseProvider. Like MySQL, it drops
// every table of the database: every object below <name>.db/ is deleted.
func (p *Provider) DropDatabase(ctx *sql.Context, name string) error {
	return p.DropPaimonDatabase(ctx, name, false)
}

// DropPaimonDatabase drops database name and all its tables; with ifExists
// a missing database is not an error.
func (p *Provider) DropPaimonDatabase(ctx context.Context, name string, ifExists bool) error {
	if err := p.checkWritable(); err != nil {
		return err
	}
	defer p.forgetHandles()
	return catalogError(p.cat.DropDatabase(ctx, name, ifExists))
}

// CreateTable implements sql.TableCreator for MySQL CREATE TABLE statements
// that GMS parsed: MySQL types map back to Paimon types (see
// PaimonTypeOf), the primary key columns become NOT NULL and column comments
// become field descriptions. The table gets Paimon's default options.
func (d *Database) CreateTable(ctx *sql.Context, name string, sch sql.PrimaryKeySchema, collation sql.CollationID, comment string) error {
	ts, err := TableSchemaFromSQL(sch, comment)
	if err != nil {
		return mapError(err) // GMS passes a *mysql.SQLError on: 1235 for a missing feature
	}
	return mapError(d.p.CreatePaimonTable(ctx, d.name, name, d.p.WithTableDefaults(ts), false))
}

// DropTable implements sql.TableDropper: it deletes the table folder.
func (d *Database) DropTable(ctx *sql.Context, name string) error {
	return d.p.DropPaimonTable(ctx, d.name, name, false)
}

// TableSchemaFromSQL builds the schema of a new table from a GMS schema.
func TableSchemaFromSQL(sch sql.PrimaryKeySchema, comment string) (*schema.TableSchema, error) {
	ts := &schema.TableSchema{Options: schema.Options{}}
	for _, c := range sch.Schema {
		if c.AutoIncrement {
			return nil, ddlErr(ErrUnsupportedDDL, "column %s: AUTO_INCREMENT is not supported by Paimon tables", c.Name)
		}
		if c.Default != nil && !isNullDefault(c.Default) {
			return nil, ddlErr(ErrUnsupportedDDL, "column %s: DEFAULT values are not supported; Paimon columns default to NULL", c.Name)
		}
		if c.Generated != nil || c.OnUpdate != nil {
			return nil, ddlErr(ErrUnsupportedDDL, "column %s: generated columns and ON UPDATE are not supported", c.Name)
		}
		dt, err := PaimonTypeOf(c.Type)
		if err != nil {
			return nil, ddlErr(ErrUnsupportedDDL, "column %s: %v", c.Name, err)
		}
		f := schema.DataField{Name: c.Name, Type: dt.WithNullable(c.Nullable)}
		if c.Comment != "" {
			cm := c.Comment
			f.Description = &cm
		}
		ts.Fields = append(ts.Fields, f)
		if u, ok := UnsignedTypeName(c.Type); ok { // unsigned.go
			ts.Options[UnsignedOptionPrefix+c.Name] = u
		}
	}
	for _, o := range sch.PkOrdinals {
		ts.PrimaryKeys = append(ts.PrimaryKeys, sch.Schema[o].Name)
	}
	if comment != "" {
		ts.Comment = &comment
	}
	return ts, nil
}

func isNullDefault(d *sql.ColumnDefaultValue) bool {
	return d != nil && d.IsLiteral() && strings.EqualFold(d.String(), "NULL")
}

// CreatePaimonTable creates table name in database db with the columns,
// keys, options and comment of ts (snapshot.Catalog.CreateTable: field ids
// are assigned there, options validated and kept as given, 'connector' and
// 'path' checked and dropped). With ifNotExists an existing table is left
// alone.
func (p *Provider) CreatePaimonTable(ctx context.Context, db, name string, ts *schema.TableSchema, ifNotExists bool) error {
	if err := p.checkWritable(); err != nil {
		return err
	}
	defer p.forgetHandles()
	return catalogError(p.cat.CreateTable(ctx, db, name, ts, ifNotExists))
}

// DropPaimonTable deletes table name of database db: every file of its
// folder (schema/ first). With ifExists a missing table is not an error.
func (p *Provider) DropPaimonTable(ctx context.Context, db, name string, ifExists bool) error {
	if err := p.checkWritable(); err != nil {
		return err
	}
	if strings.Contains(name, "$") {
		if _, err := p.cat.ResolveDatabase(ctx, db); err != nil {
			return catalogError(err)
		}
		return ddlErr(ErrUnsupportedDDL, "cannot drop %s: system tables and branches are not dropped with DROP TABLE", name)
	}
	defer p.forgetHandles()
	return catalogError(p.cat.DropTable(ctx, db, name, ifExists))
}

// LatestTableSchema returns the latest schema of table name in database db
// and the table's stored spelling.
func (p *Provider) LatestTableSchema(ctx context.Context, db, name string) (*schema.TableSchema, string, error) {
	ts, real, err := p.cat.LatestSchema(ctx, db, name)
	if err != nil {
		return nil, "", catalogError(err)
	}
	return ts, real, nil
}

// CreateTableLike creates table name in db with the schema of srcDB.src:
// same columns (types, comments, field ids), keys, options and comment, and
// no data.
func (p *Provider) CreateTableLike(ctx context.Context, db, name, srcDB, src string, ifNotExists bool) error {
	ts, _, err := p.LatestTableSchema(ctx, srcDB, src)
	if err != nil {
		return err
	}
	c := ts.Copy()
	fields := make([]schema.DataField, len(c.Fields))
	copy(fields, c.Fields)
	c.Fields = fields
	return p.CreatePaimonTable(ctx, db, name, c, ifNotExists)
}
