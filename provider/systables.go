package provider

import (
	"fmt"
	"io"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/lsmread"
)

// Paimon's system tables (`t$snapshots`, ...), mirroring the classes of
// org.apache.paimon.table.system (SystemTableLoader): the same names, column
// names, column types and nullability as Paimon 1.3, with Paimon types mapped
// to MySQL types by sqlType (STRING → LONGTEXT, TIMESTAMP(3) → DATETIME(3),
// ARRAY → JSON).
//
// Times: Java renders commit_time, update_time, $branches.create_time and
// $partitions/$buckets.last_update_time in the JVM's local time zone; lakesql
// reports them in UTC. Values that Paimon stores as a local wall clock
// (a data file's creation_time, a tag's create_time) are shown as stored.
//
// Each system table is read-only, has one partition and computes its rows
// when read. $files, $manifests, $partitions, $buckets and $table_indexes
// honour AS OF (they describe that snapshot, with that snapshot's schema);
// the others ignore it, as Java does.

// sysTableBuilders are the supported system tables, by lower-case name.
var sysTableBuilders = map[string]func(*sysTableEnv) (*sysTable, error){
	"snapshots":     newSnapshotsTable,
	"schemas":       newSchemasTable,
	"options":       newOptionsTable,
	"tags":          newTagsTable,
	"branches":      newBranchesTable,
	"consumers":     newConsumersTable,
	"files":         newFilesTable,
	"manifests":     newManifestsTable,
	"partitions":    newPartitionsTable,
	"buckets":       newBucketsTable,
	"table_indexes": newTableIndexesTable,
}

// unsupportedSysTables are Paimon system tables lakesql does not serve yet
// (ro and branch_* are resolved by Database.table).
var unsupportedSysTables = map[string]bool{
	"statistics":         true,
	"aggregation_fields": true,
	"row_tracking":       true,
}

// newSystemTable returns the system table `base$name`, or nil when name is
// not a system table.
func newSystemTable(ctx *sql.Context, d *Database, base, name string, lt *lsmread.Table, tt lsmread.TimeTravel) (sql.Table, error) {
	name = strings.ToLower(name)
	build, ok := sysTableBuilders[name]
	if !ok {
		if unsupportedSysTables[name] {
			return nil, fmt.Errorf("system table $%s is not supported yet (table %s)", name, base)
		}
		return nil, nil
	}
	if tt != (lsmread.TimeTravel{}) && !sysTablesAsOf[name] {
		return nil, notSupported(fmt.Sprintf("lakesql: AS OF on %s$%s: $%s does not read one snapshot; AS OF applies to $files, $manifests, $partitions, $buckets and $table_indexes", base, name, name))
	}
	env := &sysTableEnv{ctx: ctx, db: d, base: base, name: base + "$" + name, lt: lt, tt: tt}
	return build(env)
}

// sysTablesAsOf are the system tables that read one snapshot and so apply
// AS OF; the others (snapshots, schemas, options, tags, branches,
// consumers) refuse it (1235) instead of silently ignoring it.
var sysTablesAsOf = map[string]bool{"files": true, "manifests": true, "partitions": true, "buckets": true, "table_indexes": true}

// sysTableEnv is what a system table builder gets.
type sysTableEnv struct {
	ctx  *sql.Context
	db   *Database
	base string // table folder name
	name string // addressed name, e.g. t$files
	lt   *lsmread.Table
	tt   lsmread.TimeTravel
}

// sysColumn is one column of a system table, typed as Paimon types it.
type sysColumn struct {
	name string
	typ  schema.DataType
}

func sysNotNull(t schema.DataType) schema.DataType { t.Nullable = false; return t }

func sysNullable(t schema.DataType) schema.DataType { t.Nullable = true; return t }

var (
	pString    = schema.StringType()
	pBigInt    = schema.AtomicType(schema.TypeBigInt)
	pInt       = schema.AtomicType(schema.TypeInt)
	pTimestamp = schema.TimestampType(3)
)

// sysTable is a read-only GMS table whose rows are computed on each read.
type sysTable struct {
	name   string
	schema sql.Schema
	rows   func(ctx *sql.Context) ([]sql.Row, error)
}

var _ sql.Table = (*sysTable)(nil)

func (e *sysTableEnv) table(cols []sysColumn, rows func(ctx *sql.Context) ([]sql.Row, error)) (*sysTable, error) {
	sch := make(sql.Schema, len(cols))
	for i, c := range cols {
		st, err := sqlType(&c.typ)
		if err != nil {
			return nil, fmt.Errorf("provider: system table %s column %s: %w", e.name, c.name, err)
		}
		sch[i] = &sql.Column{Name: c.name, Type: st, Nullable: c.typ.Nullable, Source: e.name, DatabaseSource: e.db.name}
	}
	return &sysTable{name: e.name, schema: sch, rows: rows}, nil
}

// Name implements sql.Nameable.
func (t *sysTable) Name() string { return t.name }

// String implements fmt.Stringer.
func (t *sysTable) String() string { return t.name }

// Schema implements sql.Table.
func (t *sysTable) Schema() sql.Schema { return t.schema }

// Collation implements sql.Table.
func (t *sysTable) Collation() sql.CollationID { return sql.Collation_Default }

type sysPartition struct{}

func (sysPartition) Key() []byte { return []byte("sys") }

// Partitions implements sql.Table: one partition.
func (t *sysTable) Partitions(*sql.Context) (sql.PartitionIter, error) {
	return sql.PartitionsToPartitionIter(sysPartition{}), nil
}

// PartitionRows implements sql.Table: the rows are computed here.
func (t *sysTable) PartitionRows(ctx *sql.Context, _ sql.Partition) (sql.RowIter, error) {
	rows, err := t.rows(ctx)
	if err != nil {
		return nil, mapError(fmt.Errorf("system table %s: %w", t.name, err))
	}
	return &sysRowIter{rows: rows}, nil
}

// sysRowIter yields rows from a slice.
type sysRowIter struct {
	rows []sql.Row
	i    int
}

func (it *sysRowIter) Next(*sql.Context) (sql.Row, error) {
	if it.i >= len(it.rows) {
		return nil, io.EOF
	}
	r := it.rows[it.i]
	it.i++
	return r, nil
}

func (it *sysRowIter) Close(*sql.Context) error { return nil }
