package provider

import (
	"errors"
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/internal/schema"
)

// unreadableTable stands for a table whose schema lakesql cannot represent
// (a type of a newer Paimon, schema.ErrUnsupportedType). It keeps the
// catalog whole: SHOW TABLES, SHOW TABLE STATUS and information_schema list
// it (with no columns, and the reason as its comment) next to every other
// table, while reading or writing it fails with that reason (1235).
type unreadableTable struct {
	name string
	err  error
}

var _ sql.Table = (*unreadableTable)(nil)

func (t *unreadableTable) Name() string                                       { return t.name }
func (t *unreadableTable) String() string                                     { return t.name }
func (t *unreadableTable) Schema() sql.Schema                                 { return sql.Schema{} }
func (t *unreadableTable) Collation() sql.CollationID                         { return sql.Collation_Default }
func (t *unreadableTable) Comment() string                                    { return "lakesql cannot read this table: " + t.err.Error() }
func (t *unreadableTable) Partitions(*sql.Context) (sql.PartitionIter, error) { return nil, t.sqlErr() }
func (t *unreadableTable) PartitionRows(*sql.Context, sql.Partition) (sql.RowIter, error) {
	return nil, t.sqlErr()
}

func (t *unreadableTable) sqlErr() error {
	return notSupported(fmt.Sprintf("lakesql: table %s: %v", t.name, t.err))
}

// unreadable returns the stand-in for a table whose schema lakesql cannot
// represent, or nil when err is another error.
func unreadable(name string, err error) sql.Table {
	if errors.Is(err, schema.ErrUnsupportedType) {
		return &unreadableTable{name: name, err: err}
	}
	return nil
}
