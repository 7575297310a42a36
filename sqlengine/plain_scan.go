package sqlengine

import (
	"context"
	"log/slog"
	"strings"
	"sync/atomic"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"

	"github.com/lakesql/lakesql/provider"
)

// PlainScan is a query that only reads columns of one Paimon table
// (SELECT a, b AS c FROM t [AS OF …], no WHERE left over, no LIMIT,
// ORDER BY, aggregate or join): its result is the table's column batches
// as they are, which the Arrow Flight SQL endpoint streams without
// building rows.
type PlainScan struct {
	Scan *provider.BatchScan
	// Names are the result's column names; Cols[i] is the index in
	// Scan.Fields of result column i.
	Names []string
	Cols  []int
}

// Account is who runs a statement: the user, the host of the account it
// logged in as, and the client's host.
type Account struct {
	User, AccountHost, ClientHost string
}

var planSessionID atomic.Uint32

// PlanPlainScan analyzes query as account with db as the current database
// (privileges, the access policy and lakesql's rules apply, as for a MySQL
// client) and, when it is a plain scan, plans it. It returns nil, nil for
// any other statement, which then runs as usual.
func (s *Server) PlanPlainScan(ctx context.Context, who Account, db, query string) (*PlainScan, error) {
	if StatementKind(query) != KindSelect {
		return nil, nil
	}
	if stmts, rest := SplitStatements(query); len(stmts)+boolInt(strings.TrimSpace(rest) != "") != 1 {
		return nil, nil
	}
	if err := s.sec.users.Refresh(ctx, accountRefresh); err != nil {
		slog.Warn("reloading the accounts failed; using the ones loaded before", "err", err)
	}
	sess := newSession(sql.NewBaseSessionWithClientServer("lakesql-internal",
		sql.Client{User: who.User, Address: who.AccountHost}, 1<<31|planSessionID.Add(1)))
	if db != "" {
		sess.SetCurrentDatabase(db)
	}
	sctx := sql.NewContext(ctx, sql.WithSession(sess))
	node, err := s.engine.AnalyzeQuery(sctx, rewriteQuery(query))
	if err != nil {
		return nil, provider.SQLError(err)
	}
	var exprs []sql.Expression
	if p, ok := node.(*plan.Project); ok {
		exprs, node = p.Projections, p.Child
	}
	if a, ok := node.(*plan.TableAlias); ok {
		node = a.Child
	}
	rt, ok := node.(*plan.ResolvedTable)
	if !ok {
		return nil, nil
	}
	t, ok := sql.GetUnderlyingTable(rt.Table).(*provider.Table)
	if !ok || t.Filtered() {
		return nil, nil
	}
	sch := t.Schema()
	ps := &PlainScan{}
	if exprs == nil {
		for i, c := range sch {
			ps.Names, ps.Cols = append(ps.Names, c.Name), append(ps.Cols, i)
		}
	}
	for _, e := range exprs {
		name := ""
		if a, ok := e.(*expression.Alias); ok {
			name, e = a.Name(), a.Child
		}
		gf, ok := e.(*expression.GetField)
		if !ok {
			return nil, nil
		}
		i := sch.IndexOfColName(gf.Name())
		if i < 0 {
			return nil, nil
		}
		if name == "" {
			name = sch[i].Name
		}
		ps.Names, ps.Cols = append(ps.Names, name), append(ps.Cols, i)
	}
	if ps.Scan, err = t.BatchScan(sctx); err != nil {
		return nil, provider.SQLError(err)
	}
	if len(ps.Scan.Fields) != len(sch) {
		return nil, nil // the scan's columns are not the table's projection
	}
	return ps, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
