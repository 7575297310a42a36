package sqlengine

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/lakesql/lakesql/provider"
)

// The splice front. GMS parses a multi-row INSERT … VALUES of literals
// tuple by tuple into expressions and plans them (vitess's parser and
// planbuilder's literal conversion: ~6 µs of CPU a row of the bench's six
// columns, about half of a 1,000-row statement's CPU before its commit).
// For a statement insert_splice_lex.go recognises, in autocommit mode
// outside a transaction, this front hands GMS the statement with only its
// first tuple — GMS parses, resolves, checks privileges and plans it as
// ever — and keeps every tuple's values, read by the scanner, on the
// session; the direct INSERT node (insertvalues.go) then inserts those
// instead of the one tuple GMS planned. When the node does not take the
// statement (GMS's INSERT path keeps it: lakesql_insert_direct = 0, a
// table with triggers, generated or AUTO_INCREMENT columns, INSERT IGNORE
// into a primary-key table, a non-Paimon table, …), its rule refuses the
// shortened statement before anything runs, and the whole statement goes
// to GMS as written. So rows, affected rows, errors and warnings are
// those of the direct node over GMS's own literals
// (TestSpliceEqualsInsertPath); what differs is only that GMS saw a
// shorter text (SHOW PROCESSLIST shows it).
type spliceHandler struct {
	mysql.Handler
	s *Server
}

func (s *Server) wrapSplice(h mysql.Handler) mysql.Handler { return &spliceHandler{Handler: h, s: s} }

// splicedStmt is a statement in flight through the splice front, kept on
// its session (Session.spliced) while GMS plans its first tuple.
type splicedStmt struct {
	*splicedValues
	// taken: the direct node took the values; declined: the rule refused
	// the shortened statement (the whole one goes to GMS).
	taken, declined bool
}

// errSpliceDeclined fails the planning of a shortened statement the
// direct node does not take.
var errSpliceDeclined = errors.New("sqlengine: a spliced INSERT the direct path does not take")

// minSpliceRows: statements with fewer tuples go to GMS as written.
const minSpliceRows = 2

// splicedCount counts the statements the front shortened and the direct
// node took, failed or not (tests see the path was taken).
var splicedCount atomic.Int64

// SplicedInserts is the number of INSERT … VALUES statements the splice
// front has run since the process started.
func SplicedInserts() int64 { return splicedCount.Load() }

func (h *spliceHandler) ComQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) error {
	if done, err := h.try(ctx, c, query, callback); done {
		return err
	}
	return h.Handler.ComQuery(ctx, c, query, callback)
}

// ComMultiQuery: a recognised statement alone (nothing after its ';') is
// run as ComQuery runs it.
func (h *spliceHandler) ComMultiQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) (string, error) {
	if done, err := h.try(ctx, c, query, callback); done {
		return "", err
	}
	return h.Handler.ComMultiQuery(ctx, c, query, callback)
}

// try runs query through the splice front when it can; done is false when
// the query is not one of its statements (nothing ran).
func (h *spliceHandler) try(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) (bool, error) {
	if len(query) < 16 || !firstTokenIs(query, "INSERT", "REPLACE") {
		return false, nil
	}
	sess := h.s.sessions.get(c.ConnectionID)
	if sess == nil || sess.GetTransaction() != nil || sess.GetIgnoreAutoCommit() || !sess.autocommit() {
		return false, nil
	}
	v, ok := scanInsertValues(query)
	if !ok || v.rows() < minSpliceRows {
		return false, nil
	}
	sp := &splicedStmt{splicedValues: v}
	sess.spliced.Store(sp)
	err := h.Handler.ComQuery(ctx, c, v.head+" "+v.first, callback)
	sess.spliced.Store(nil)
	switch {
	case sp.declined, err != nil && !sp.taken:
		// Refused, or failed, while planning (the rule takes or refuses
		// the values when it runs, before anything executes): nothing ran,
		// and GMS answers the whole statement as written (so an error
		// names its text). The statement's own autocommit transaction,
		// left by the failure, goes first.
		if tx := sess.GetTransaction(); tx != nil && !sess.GetIgnoreAutoCommit() {
			if t, ok := tx.(*provider.Transaction); ok {
				t.Rollback()
			}
			sess.SetTransaction(nil)
		}
		return false, nil
	case err == nil && !sp.taken:
		// Never reached: every planning of an INSERT runs the rule, which
		// takes or refuses the values.
		return true, mysql.NewSQLError(mysql.ERUnknownError, mysql.SSUnknownSQLState, "lakesql: internal error: a spliced INSERT ran without its values")
	}
	if sp.taken {
		splicedCount.Add(1)
	}
	return true, err
}

// splicedOf is the statement in flight through the splice front on ctx's
// session, or nil.
func splicedOf(ctx *sql.Context) *splicedStmt {
	if s, ok := ctx.Session.(*Session); ok {
		return s.spliced.Load()
	}
	return nil
}
