package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot"
)

// DDL over Paimon's filesystem catalog layout. A database is the folder
// <name>.db; a table is <db>.db/<table>/ with schema/schema-0 written by
// SchemaManager.Commit (atomic create-if-not-exists). Object stores have no
// folders, so CREATE DATABASE also writes the empty marker object
// <name>.db/.lakesql-database (Java's catalog ignores files in a database
// folder; it lists only sub-folders).

var (
	_ sql.MutableDatabaseProvider = (*Provider)(nil)
	_ sql.TableCreator            = (*Database)(nil)
	_ sql.TableDropper            = (*Database)(nil)
)

// DatabaseMarker is the object CREATE DATABASE writes so an empty database
// is listed on stores without folders.
const DatabaseMarker = ".lakesql-database"

// schemaCommitRetries bounds the re-apply loop of ALTER TABLE on conflicts.
const schemaCommitRetries = 5

func (p *Provider) checkWritable() error {
	if p.opts.ReadOnly {
		return ddlErr(ErrReadOnly, "the server is read-only (started with read-only)")
	}
	return nil
}

// checkName validates a database or table name as a single path element.
func checkName(kind, name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return ddlErr(ErrInvalidDDL, "empty %s name", kind)
	case utf8.RuneCountInString(name) > maxIdentifierLength:
		return errIdentifierTooLong(name)
	case strings.ContainsAny(name, "/\\$\x00"), strings.HasPrefix(name, "."):
		return ddlErr(ErrInvalidDDL, "%s name %q: Paimon %s names cannot contain '/', '\\' or '$' or start with '.'", kind, name, kind)
	}
	return nil
}

// resolveDatabase returns the stored spelling of database name (matched
// case-insensitively) or a GMS database-not-found error (1049).
func (p *Provider) resolveDatabase(ctx context.Context, name string) (string, error) {
	dbs, err := listDatabases(ctx, p.st)
	if err != nil {
		return "", err
	}
	for _, d := range dbs {
		if strings.EqualFold(d, name) {
			return d, nil
		}
	}
	return "", sql.ErrDatabaseNotFound.New(name)
}

// resolveTable returns the stored spelling of table name in database db
// (which must be the stored spelling), ok false when it does not exist.
func (p *Provider) resolveTable(ctx context.Context, db, name string) (string, bool, error) {
	names, err := listTables(ctx, p.st, db)
	if err != nil {
		return "", false, err
	}
	for _, n := range names {
		if strings.EqualFold(n, name) {
			return n, true, nil
		}
	}
	return "", false, nil
}

func (p *Provider) tableStorage(db, table string) storage.Storage {
	return p.st.Sub(db + dbSuffix + "/" + table)
}

// TableLocation is the URL of a table's folder: <warehouse>/<db>.db/<table>.
func (p *Provider) TableLocation(db, table string) string {
	return strings.TrimSuffix(p.st.URL(), "/") + "/" + db + dbSuffix + "/" + table
}

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
	if err := checkName("database", name); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, err := p.resolveDatabase(ctx, name); err == nil {
		if ifNotExists {
			return nil
		}
		return sql.ErrDatabaseExists.New(name)
	} else if !sql.ErrDatabaseNotFound.Is(err) {
		return err
	}
	dir := name + dbSuffix
	if err := mkdirAll(ctx, p.st, dir); err != nil {
		return fmt.Errorf("lakesql: create database %s: %w", name, err)
	}
	if err := p.st.WriteAll(ctx, dir+"/"+DatabaseMarker, nil); err != nil {
		return fmt.Errorf("lakesql: create database %s: %w", name, err)
	}
	return nil
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
	p.mu.Lock()
	defer p.mu.Unlock()
	real, err := p.resolveDatabase(ctx, name)
	if err != nil {
		if ifExists && sql.ErrDatabaseNotFound.Is(err) {
			return nil
		}
		return err
	}
	tables, err := listTables(ctx, p.st, real)
	if err != nil {
		return err
	}
	// Tables first, each schema/ first, so an interrupted drop never leaves
	// a half-deleted table that still looks like a table.
	for _, t := range tables {
		if err := deleteTableFiles(ctx, p.tableStorage(real, t)); err != nil {
			return fmt.Errorf("lakesql: drop database %s: table %s: %w", real, t, err)
		}
	}
	if err := deleteAll(ctx, p.st.Sub(real+dbSuffix), ""); err != nil {
		return fmt.Errorf("lakesql: drop database %s: %w", real, err)
	}
	return nil
}

// deleteAll deletes every object below prefix.
func deleteAll(ctx context.Context, st storage.Storage, prefix string) error {
	var paths []string
	for obj, err := range st.List(ctx, prefix) {
		if err != nil {
			return err
		}
		paths = append(paths, obj.Path)
	}
	for _, path := range paths {
		if err := st.Delete(ctx, path); err != nil && !errors.Is(err, storage.ErrNotExist) {
			return err
		}
	}
	return nil
}

// deleteTableFiles deletes a table folder: schema/ first (the table stops
// being a table), then everything else.
func deleteTableFiles(ctx context.Context, st storage.Storage) error {
	if err := deleteAll(ctx, st, "schema/"); err != nil {
		return err
	}
	return deleteAll(ctx, st, "")
}

// CreateTable implements sql.TableCreator for MySQL CREATE TABLE statements
// that GMS parsed: MySQL types map back to Paimon types (see
// PaimonTypeOf), the primary key columns become NOT NULL and column comments
// become field descriptions. The table gets Paimon's default options.
func (d *Database) CreateTable(ctx *sql.Context, name string, sch sql.PrimaryKeySchema, collation sql.CollationID, comment string) error {
	ts, err := TableSchemaFromSQL(sch, comment)
	if err != nil {
		return err
	}
	return d.p.CreatePaimonTable(ctx, d.name, name, d.p.WithTableDefaults(ts), false)
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
// keys, options and comment of ts (its ID, field ids, HighestFieldID and
// TimeMillis are assigned here): field ids are numbered from 0 in
// declaration order, nested ROW fields after their parent, as Java's
// Schema.Builder does; primary key columns become NOT NULL. Options are
// validated with Options.Core and kept as given (Paimon's defaults are not
// written); 'connector' = 'paimon' is dropped; 'path' is accepted only when it
// names the table's own location under the warehouse. With ifNotExists an
// existing table is left alone.
func (p *Provider) CreatePaimonTable(ctx context.Context, db, name string, ts *schema.TableSchema, ifNotExists bool) error {
	if err := p.checkWritable(); err != nil {
		return err
	}
	if err := checkName("table", name); err != nil {
		return err
	}
	realDB, err := p.resolveDatabase(ctx, db)
	if err != nil && sql.ErrDatabaseNotFound.Is(err) && db == DefaultDatabase {
		// The default database of a new warehouse has no objects yet (and so
		// is not listed); its first table creates it.
		realDB, err = DefaultDatabase, nil
	}
	if err != nil {
		return err
	}
	ns, err := p.newTableSchema(realDB, name, ts)
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if existing, ok, err := p.resolveTable(ctx, realDB, name); err != nil {
		return err
	} else if ok {
		if ifNotExists {
			return nil
		}
		return errTableExists(existing)
	}
	sm := snapshot.NewSchemaManager(p.tableStorage(realDB, name), "")
	if err := sm.Commit(ctx, ns); err != nil {
		if errors.Is(err, snapshot.ErrConflict) {
			if ifNotExists {
				return nil
			}
			return errTableExists(name)
		}
		return fmt.Errorf("lakesql: create table %s.%s: %w", realDB, name, err)
	}
	return nil
}

// newTableSchema normalizes and validates the schema of a new table.
func (p *Provider) newTableSchema(db, name string, in *schema.TableSchema) (*schema.TableSchema, error) {
	if len(in.Fields) == 0 {
		return nil, ddlErr(ErrInvalidDDL, "table %s needs at least one column", name)
	}
	ts := &schema.TableSchema{
		Version:       schema.SchemaVersionCurrent,
		ID:            0,
		PartitionKeys: append([]string{}, in.PartitionKeys...),
		PrimaryKeys:   append([]string{}, in.PrimaryKeys...),
		Options:       schema.Options{},
		TimeMillis:    time.Now().UnixMilli(),
	}
	if in.Comment != nil && *in.Comment != "" {
		c := *in.Comment
		ts.Comment = &c
	}
	seen := map[string]bool{}
	for _, f := range in.Fields {
		low := strings.ToLower(f.Name)
		if f.Name == "" {
			return nil, ddlErr(ErrInvalidDDL, "empty column name")
		}
		if seen[low] {
			return nil, sql.ErrDuplicateColumn.New(f.Name)
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
				return nil, ddlErr(ErrInvalidDDL, "key column %s is not a column of table %s", k, name)
			}
			if dup[strings.ToLower(k)] {
				return nil, ddlErr(ErrInvalidDDL, "key column %s is listed twice", k)
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
		nf := schema.DataField{ID: next, Name: f.Name, Description: f.Description, DefaultValue: f.DefaultValue}
		next++
		nf.Type = reassignFieldIDs(f.Type, &next)
		if pk[f.Name] {
			nf.Type = nf.Type.WithNullable(false)
		}
		ts.Fields = append(ts.Fields, nf)
	}
	ts.HighestFieldID = next - 1
	opts, err := p.tableOptions(db, name, in.Options)
	if err != nil {
		return nil, err
	}
	ts.Options = opts
	if err := validateTableSchema(ts); err != nil {
		return nil, err
	}
	return ts, nil
}

// checkColumnType rejects types a lakesql table cannot hold.
func checkColumnType(col string, t *schema.DataType) error {
	if err := t.Validate(); err != nil {
		return ddlErr(ErrInvalidDDL, "column %s: %v", col, err)
	}
	return nil
}

func fieldIndexFold(fields []schema.DataField, name string) int {
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

// reassignFieldIDs numbers the nested ROW fields of t from *next on,
// depth first (Java's ReassignFieldId).
func reassignFieldIDs(t schema.DataType, next *int) schema.DataType {
	switch t.Root {
	case schema.TypeRow:
		fields := make([]schema.DataField, len(t.Fields))
		for i, f := range t.Fields {
			f.ID = *next
			*next++
			f.Type = reassignFieldIDs(f.Type, next)
			fields[i] = f
		}
		t.Fields = fields
	case schema.TypeArray, schema.TypeMultiset:
		if t.Elem != nil {
			e := reassignFieldIDs(*t.Elem, next)
			t.Elem = &e
		}
	case schema.TypeMap:
		if t.Key != nil {
			k := reassignFieldIDs(*t.Key, next)
			t.Key = &k
		}
		if t.Value != nil {
			v := reassignFieldIDs(*t.Value, next)
			t.Value = &v
		}
	}
	return t
}

// tableOptions validates the user's options of a new table: 'connector' must
// be paimon and is dropped, 'path' must be the table's own location and is
// dropped, every fixed key must parse. Unknown keys are kept.
func (p *Provider) tableOptions(db, name string, in schema.Options) (schema.Options, error) {
	out := schema.Options{}
	for k, v := range in {
		switch k {
		case "connector":
			if !strings.EqualFold(strings.TrimSpace(v), "paimon") {
				return nil, ddlErr(ErrUnsupportedDDL, "'connector' = '%s': lakesql creates Paimon tables only", v)
			}
			continue
		case "path":
			if err := p.checkTablePath(db, name, v); err != nil {
				return nil, err
			}
			continue
		}
		out[k] = v
	}
	return out, nil
}

// checkTablePath accepts a 'path' option only when it is where the table
// lives anyway: Paimon's filesystem catalog finds tables by their folder
// under the warehouse and has no pointer to a table elsewhere.
func (p *Provider) checkTablePath(db, name, path string) error {
	want := p.TableLocation(db, name)
	norm := func(s string) string {
		s = strings.TrimSpace(s)
		s = strings.TrimSuffix(s, "/")
		if i := strings.Index(s, "?"); i >= 0 { // file:///x?fsync=false
			s = s[:i]
		}
		if strings.HasPrefix(s, "/") {
			s = "file://" + s
		}
		return s
	}
	if norm(path) == norm(want) {
		return nil
	}
	return ddlErr(ErrUnsupportedDDL,
		"cannot create table at path %s: lakesql keeps tables in Paimon's filesystem catalog layout, where table %s.%s lives at %s; a table at another location cannot be registered (drop the 'path' option, or start lakesql on the warehouse that contains that path)",
		path, db, name, want)
}

// validateTableSchema runs Paimon's schema rules and parses every option.
func validateTableSchema(ts *schema.TableSchema) error {
	for _, f := range ts.Fields {
		if utf8.RuneCountInString(f.Name) > maxIdentifierLength {
			return errIdentifierTooLong(f.Name)
		}
	}
	if err := ts.Validate(); err != nil {
		return mapDDLError(err)
	}
	if err := ts.CheckOptions(); err != nil {
		return &ddlError{kind: ErrInvalidOptionValue, msg: "lakesql: " + err.Error()}
	}
	for _, k := range ts.BucketKeys() {
		if ts.FieldIndex(k) < 0 {
			return ddlErr(ErrInvalidDDL, "'bucket-key' names %s, which is not a column", k)
		}
	}
	for _, k := range ts.Options.SequenceField() {
		if ts.FieldIndex(k) < 0 {
			return ddlErr(ErrInvalidDDL, "'sequence.field' names %s, which is not a column", k)
		}
	}
	if b, _ := ts.Options.Bucket(); b == 0 || b < schema.BucketPostpone {
		return ddlErr(ErrInvalidDDL, "'bucket' = %d: use a positive bucket count, -1 (dynamic/unaware) or -2 (postpone)", b)
	}
	if !ts.IsPrimaryKeyTable() {
		if b, _ := ts.Options.Bucket(); b > 0 && len(ts.Options.BucketKey()) == 0 {
			return ddlErr(ErrInvalidDDL, "an append table with 'bucket' = %d needs 'bucket-key'", b)
		}
	}
	return nil
}

// DropPaimonTable deletes table name of database db: every file of its
// folder (schema/ first). With ifExists a missing table is not an error.
func (p *Provider) DropPaimonTable(ctx context.Context, db, name string, ifExists bool) error {
	if err := p.checkWritable(); err != nil {
		return err
	}
	realDB, err := p.resolveDatabase(ctx, db)
	if err != nil {
		return err
	}
	if strings.Contains(name, "$") {
		return ddlErr(ErrUnsupportedDDL, "cannot drop %s: system tables and branches are not dropped with DROP TABLE", name)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	real, ok, err := p.resolveTable(ctx, realDB, name)
	if err != nil {
		return err
	}
	if !ok {
		if ifExists {
			return nil
		}
		return errTableNotFound(name)
	}
	if err := deleteTableFiles(ctx, p.tableStorage(realDB, real)); err != nil {
		return fmt.Errorf("lakesql: drop table %s.%s: %w", realDB, real, err)
	}
	return nil
}

// LatestTableSchema returns the latest schema of table name in database db
// and the table's stored spelling.
func (p *Provider) LatestTableSchema(ctx context.Context, db, name string) (*schema.TableSchema, string, error) {
	realDB, err := p.resolveDatabase(ctx, db)
	if err != nil {
		return nil, "", err
	}
	real, ok, err := p.resolveTable(ctx, realDB, name)
	if err != nil {
		return nil, "", err
	}
	if !ok {
		return nil, "", errTableNotFound(name)
	}
	ts, err := snapshot.NewSchemaManager(p.tableStorage(realDB, real), "").Latest(ctx)
	if err != nil {
		return nil, "", mapError(err)
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
