package provider

import (
	"github.com/dolthub/go-mysql-server/sql"
)

// Views. Paimon's filesystem catalog has no views (Java's
// FileSystemCatalog throws on createView), so a view could live only in
// this server's memory and would vanish on restart, unseen by other servers
// on the warehouse. CREATE VIEW is therefore refused with 1235 before
// anything is stored; there are never views to list, drop or read.

var _ sql.ViewDatabase = (*Database)(nil)

// CreateView implements sql.ViewDatabase.
func (d *Database) CreateView(ctx *sql.Context, name, selectStatement, createViewStmt string) error {
	return notSupported("lakesql: CREATE VIEW " + name + ": Paimon's filesystem catalog has no views, and a view kept only by this server would vanish on restart; query the SELECT directly")
}

// DropView implements sql.ViewDatabase.
func (d *Database) DropView(ctx *sql.Context, name string) error {
	return sql.ErrViewDoesNotExist.New(d.name, name)
}

// GetViewDefinition implements sql.ViewDatabase.
func (d *Database) GetViewDefinition(ctx *sql.Context, name string) (sql.ViewDefinition, bool, error) {
	return sql.ViewDefinition{}, false, nil
}

// AllViews implements sql.ViewDatabase.
func (d *Database) AllViews(ctx *sql.Context) ([]sql.ViewDefinition, error) { return nil, nil }
