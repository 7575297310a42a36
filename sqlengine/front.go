package sqlengine

import (
	"context"
	"strings"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// frontTry answers query when it is a statement of a front (CALL, MERGE
// and INSERT OVERWRITE, the statement front); done is false when it is
// not. more says that statements follow it (a multi-statement query).
type frontTry func(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn, more bool) (done bool, err error)

// frontQuery is a front's ComQuery: the front answers its statements,
// next everything else.
func frontQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn, try frontTry, next mysql.Handler) error {
	if done, err := try(ctx, c, query, callback, false); done {
		return err
	}
	return next.ComQuery(ctx, c, query, callback)
}

// frontMultiQuery is a front's ComMultiQuery: the front answers the first
// statement when it is one of its own and returns the rest; otherwise next
// runs the query.
func frontMultiQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn, try frontTry, next mysql.Handler) (string, error) {
	first, rest, err := sqlparser.SplitStatement(query)
	if err == nil {
		if done, err := try(ctx, c, first, callback, strings.TrimSpace(rest) != ""); done {
			return rest, err
		}
	}
	return next.ComMultiQuery(ctx, c, query, callback)
}
