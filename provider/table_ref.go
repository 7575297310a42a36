package provider

import (
	"context"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/internal/storage"
)

// ResolveTable returns the stored spellings of database db and table name
// (matched case-insensitively) and the storage rooted at the table's
// folder, for the CALL sys.* procedures. A missing database or table is
// GMS's not-found error (1049, 1146).
func (p *Provider) ResolveTable(ctx context.Context, db, name string) (realDB, real string, st storage.Storage, err error) {
	realDB, err = p.cat.ResolveDatabase(ctx, db)
	if err != nil {
		return "", "", nil, catalogError(err)
	}
	real, ok, err := p.cat.ResolveTable(ctx, realDB, name)
	if err != nil {
		return "", "", nil, catalogError(err)
	}
	if !ok {
		return "", "", nil, sql.ErrTableNotFound.New(name)
	}
	return realDB, real, p.cat.TableStorage(realDB, real), nil
}

// TableChanged is called after a procedure changed a table's snapshots,
// tags, branches or schemas outside a commit (rollback, expiration,
// fast-forward, rescale): the long-lived table handles (handles.go) are
// dropped, so the next statement opens them again.
func (p *Provider) TableChanged(db, name string) { p.forgetHandles() }
