package access

import (
	"github.com/dolthub/go-mysql-server/sql"
	_ "github.com/dolthub/go-mysql-server/sql/planbuilder" // installs GMS's default handler first
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// GMS checks LOAD DATA [LOCAL] INFILE for the global FILE privilege at
// plan time (its only use of FILE). MySQL wants FILE only for the server
// side; LOAD DATA LOCAL needs INSERT on the table. Policy.Rule checks
// exactly that (INSERT for both, FILE and secure_file_priv for the server
// side, local_infile for LOCAL), so the handler below lets GMS's FILE
// check pass and delegates everything else to GMS's handler. The factory
// is process-wide in GMS, hence installed at init.
func init() {
	sql.SetAuthorizationHandlerFactory(loadDataAuthFactory{sql.GetAuthorizationHandlerFactory()})
}

type loadDataAuthFactory struct {
	inner sql.AuthorizationHandlerFactory
}

func (f loadDataAuthFactory) CreateHandler(cat sql.Catalog) sql.AuthorizationHandler {
	return loadDataAuth{f.inner.CreateHandler(cat)}
}

type loadDataAuth struct{ sql.AuthorizationHandler }

func (h loadDataAuth) HandleAuth(ctx *sql.Context, state sql.AuthorizationQueryState, auth ast.AuthInformation) error {
	if auth.AuthType == ast.AuthType_FILE {
		return nil // LOAD DATA: checked by Policy.Rule
	}
	return h.AuthorizationHandler.HandleAuth(ctx, state, auth)
}
