package sqlengine

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"

	"github.com/lakesql/lakesql/provider"
)

// writeHandler is the write front: it executes the statements GMS's parser
// lacks that write tables — MERGE INTO and INSERT OVERWRITE — on the
// connection's session, and hands every other statement to the wrapped
// handler unchanged. Each such statement runs as one transaction (one
// snapshot per table) in autocommit mode, or inside the client's open
// transaction. Errors never close the connection.
type writeHandler struct {
	mysql.Handler
	s *Server
}

// wrapWrites puts the write front in front of h.
func (s *Server) wrapWrites(h mysql.Handler) mysql.Handler { return &writeHandler{Handler: h, s: s} }

type writeKind uint8

const (
	notWrite writeKind = iota
	writeMerge
	writeOverwrite
)

func writeKindOf(q string) writeKind {
	switch {
	case startsWithWords(q, "MERGE", "INTO"):
		return writeMerge
	case startsWithWords(q, "INSERT", "OVERWRITE"):
		return writeOverwrite
	}
	return notWrite
}

func (h *writeHandler) ComQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) error {
	return frontQuery(ctx, c, query, callback, h.tryWrite, h.Handler)
}

func (h *writeHandler) ComMultiQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) (string, error) {
	return frontMultiQuery(ctx, c, query, callback, h.tryWrite, h.Handler)
}

// tryWrite executes query when it is a statement of the write front; done
// is false when it is not.
func (h *writeHandler) tryWrite(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn, more bool) (done bool, err error) {
	kind := writeKindOf(query)
	if kind == notWrite {
		return false, nil
	}
	var stmt any
	var perr error
	switch kind {
	case writeMerge:
		stmt, perr = parseMerge(query)
	case writeOverwrite:
		stmt, perr = parseOverwrite(query)
	}
	if perr != nil {
		return true, writeError(perr)
	}
	if h.s.cfg.ReadOnly {
		return true, writeError(sql.ErrReadOnly.New())
	}
	sctx, err := h.s.srv.SessionManager().NewContextWithQuery(ctx, c, query)
	if err != nil {
		return true, writeError(err)
	}
	if err := h.s.checkFront(sctx, stmt); err != nil { // privileges (security.go)
		return true, err
	}
	defer func() {
		if r := recover(); r != nil {
			done, err = true, mysql.NewSQLError(mysql.ERUnknownError, mysql.SSUnknownSQLState, "lakesql: internal error executing %q: %v", query, r)
		}
	}()
	var n uint64
	switch s := stmt.(type) {
	case *mergeStmt:
		n, err = h.execMerge(sctx, s)
	case *overwriteStmt:
		n, err = h.execOverwrite(sctx, s)
	}
	if err != nil {
		sctx.SetLastQueryInfoInt(sql.RowCount, -1)
		return true, writeError(err)
	}
	// ROW_COUNT() is the affected rows, as GMS sets it for its own DML.
	sctx.SetLastQueryInfoInt(sql.RowCount, int64(n))
	return true, callback(&sqltypes.Result{RowsAffected: n}, more)
}

// writeError gives an error of the write front its MySQL code: its own
// syntax errors 1064, the rest through provider.SQLError.
func writeError(err error) error {
	if errors.Is(err, errWriteSyntax) {
		return mysql.NewSQLError(mysql.ERParseError, mysql.SSClientError, "lakesql: %v", err)
	}
	return provider.SQLError(err)
}

// notSupported is MySQL's 1235 for a feature the write front lacks.
func notSupported(what string) error {
	return mysql.NewSQLError(mysql.ERNotSupportedYet, mysql.SSUnknownSQLState, "lakesql: %s is not supported", what)
}

// errUnknownColumn is MySQL's 1054 for a column the target lacks.
func errUnknownColumn(col, table string) error {
	return mysql.NewSQLError(mysql.ERBadFieldError, mysql.SSBadFieldError, "Unknown column '%s' in '%s'", col, table)
}

// stmtTx makes one write-front statement one transaction: in autocommit
// mode it opens an explicit transaction on the session (as BEGIN does) and
// commits it at the end; inside the client's transaction it runs there.
type stmtTx struct {
	ts  sql.TransactionSession
	own bool
}

func beginStmtTx(ctx *sql.Context) (*stmtTx, error) {
	ts, ok := ctx.Session.(sql.TransactionSession)
	if !ok {
		return nil, fmt.Errorf("lakesql: session %T has no transactions", ctx.Session)
	}
	t := &stmtTx{ts: ts}
	if cur := ctx.GetTransaction(); (cur != nil && cur.IsReadOnly()) || sessionReadOnly(ctx) {
		return nil, sql.ErrReadOnlyTransaction.New() // 1792, as GMS's own writes
	}
	if ctx.GetIgnoreAutoCommit() {
		return t, nil // inside BEGIN … COMMIT
	}
	auto, err := plan.IsSessionAutocommit(ctx)
	if err != nil {
		return nil, err
	}
	if !auto {
		return t, nil // autocommit=0: the session's transaction runs until COMMIT
	}
	if cur := ctx.GetTransaction(); cur != nil {
		// An implicit transaction left by a failed statement holds
		// nothing; commit it as START TRANSACTION does.
		if err := ts.CommitTransaction(ctx, cur); err != nil {
			return nil, err
		}
		ctx.SetTransaction(nil)
	}
	tx, err := ts.StartTransaction(ctx, sql.ReadWrite)
	if err != nil {
		return nil, err
	}
	ctx.SetTransaction(tx)
	ctx.SetIgnoreAutoCommit(true)
	t.own = true
	return t, nil
}

// finish commits (or, on err, rolls back) a transaction the statement
// opened; a client transaction is left to the client.
func (t *stmtTx) finish(ctx *sql.Context, err error) error {
	if !t.own {
		return err
	}
	tx := ctx.GetTransaction()
	if err == nil && tx != nil {
		err = t.ts.CommitTransaction(ctx, tx)
	} else if tx != nil {
		t.ts.Rollback(ctx, tx)
	}
	ctx.SetIgnoreAutoCommit(false)
	ctx.SetTransaction(nil)
	return err
}

// abortClient rolls back the client's transaction after a statement that
// failed half-way inside it, so the failure leaves nothing written.
func (t *stmtTx) abortClient(ctx *sql.Context, err error) error {
	if t.own {
		return err
	}
	if tx := ctx.GetTransaction(); tx != nil {
		t.ts.Rollback(ctx, tx)
	}
	ctx.SetIgnoreAutoCommit(false)
	ctx.SetTransaction(nil)
	return fmt.Errorf("%w (the transaction was rolled back)", err)
}

// query runs one statement through the engine on ctx's session and
// returns its rows.
func (h *writeHandler) query(ctx *sql.Context, q string) (sql.Schema, []sql.Row, error) {
	q = rewriteQuery(q)
	// The engine ends (and cancels) the query's context when its rows are
	// closed: each statement gets its own, the writes keep ctx.
	qctx, err := ctx.ProcessList.BeginQuery(ctx.WithQuery(q), q)
	if err != nil {
		return nil, nil, err
	}
	defer ctx.ProcessList.EndQuery(qctx)
	sch, iter, _, err := h.s.engine.Query(qctx, q)
	if err != nil {
		return nil, nil, err
	}
	var rows []sql.Row
	for {
		r, err := iter.Next(qctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			iter.Close(qctx)
			return nil, nil, err
		}
		rows = append(rows, r)
	}
	if err := iter.Close(qctx); err != nil {
		return nil, nil, err
	}
	return sch, rows, nil
}

// targetTable resolves a table to write.
func (h *writeHandler) targetTable(ctx *sql.Context, db, name string) (string, sql.Table, error) {
	db, err := currentDB(ctx, db)
	if err != nil {
		return "", nil, err
	}
	d, err := h.s.provider.Database(ctx, db)
	if err != nil {
		return "", nil, err
	}
	t, ok, err := d.GetTableInsensitive(ctx, name)
	if err != nil {
		return "", nil, err
	}
	if !ok {
		return "", nil, sql.ErrTableNotFound.New(name)
	}
	return db, t, nil
}
