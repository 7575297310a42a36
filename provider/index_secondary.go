package provider

import (
	"slices"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
)

// Secondary indexes. A Paimon table has one index, its primary key; its
// secondary index is the file index, declared by table options and built
// per data file. CREATE INDEX ix ON t (a, b) adds a and b to Paimon's
// bloom-filter file index ('file-index.bloom-filter.columns'): Java Paimon
// writers (Flink, Spark) build it and Java readers skip files with it.
// lakesql neither builds nor uses file indexes (results are exact without
// them), so the index is not offered to the planner, is not listed by SHOW
// INDEX, and its name is not kept: remove it with ALTER TABLE t RESET
// ('file-index.bloom-filter.columns'). A prefix length (b(10)) is accepted;
// the file index covers whole values. UNIQUE, FULLTEXT, SPATIAL and VECTOR
// indexes are refused (error 1235) before anything changes. This is what
// pandas.DataFrame.to_sql (index=True) needs after its CREATE TABLE.

// optBloomFilterColumns is Paimon's FileIndexOptions bloom-filter column list.
const optBloomFilterColumns = "file-index.bloom-filter.columns"

var _ sql.IndexAlterableTable = (*Table)(nil)

// CreateIndex implements sql.IndexAlterableTable.
func (t *Table) CreateIndex(ctx *sql.Context, def sql.IndexDef) error {
	if def.Constraint != sql.IndexConstraint_None {
		return notSupported("lakesql: UNIQUE, FULLTEXT, SPATIAL and VECTOR indexes: a Paimon table's only unique key is its primary key (declared in CREATE TABLE), and it has no text or spatial indexes")
	}
	cols := splitColumns(t.sch.Options[optBloomFilterColumns])
	for _, c := range def.Columns {
		if t.sch.FieldIndex(c.Name) < 0 {
			return sql.ErrKeyColumnDoesNotExist.New(c.Name)
		}
		if !slices.Contains(cols, c.Name) {
			cols = append(cols, c.Name)
		}
	}
	return t.alter(ctx, []SchemaChange{{Kind: SetOption, Key: optBloomFilterColumns, Value: strings.Join(cols, ",")}})
}

// DropIndex implements sql.IndexAlterableTable. GMS reports an unknown index
// name (1091) before calling it; no secondary index is listed by name.
func (t *Table) DropIndex(ctx *sql.Context, name string) error {
	return notSupported("lakesql: DROP INDEX " + name + ": remove file-index columns with ALTER TABLE " +
		t.base + " RESET ('" + optBloomFilterColumns + "')")
}

// RenameIndex implements sql.IndexAlterableTable.
func (t *Table) RenameIndex(ctx *sql.Context, from, to string) error {
	return notSupported("lakesql: RENAME INDEX: lakesql keeps no secondary index names")
}

// notSupported is MySQL's 1235 (ER_NOT_SUPPORTED_YET) with lakesql's reason.
func notSupported(msg string) error {
	return mysql.NewSQLError(mysql.ERNotSupportedYet, "42000", "%s", msg)
}

func splitColumns(v string) []string {
	var out []string
	for _, c := range strings.Split(v, ",") {
		if c = strings.TrimSpace(c); c != "" {
			out = append(out, c)
		}
	}
	return out
}
