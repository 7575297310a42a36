package provider

import (
	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/lsmread"
)

// newSystemTable returns the system table `base$name`, or nil when name is
// not a system table.
func newSystemTable(ctx *sql.Context, d *Database, base, name string, lt *lsmread.Table, tt lsmread.TimeTravel) (sql.Table, error) {
	return nil, nil
}
