package sqlengine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

// builtinsHandler is the outermost protocol wrapper. It fixes how the
// statement text is lexed (fixLexing), turns a panic anywhere below into a
// MySQL error with the connection kept, and holds back the first
// maxHeldResult bytes of every result set (text and binary protocol alike),
// so that an error raised while
// rows are produced (an overflow in row 50, a failed read) reaches the
// client as an error packet: vitess v0.20's Conn cannot send one after it
// has streamed rows and closes the connection instead (conn.go execQuery,
// "We can't send an error in the middle of a stream"). Results larger than
// that are streamed as before, and an error after the first maxHeldResult
// bytes still ends the connection.
type builtinsHandler struct {
	mysql.Handler
}

// maxHeldResult bounds the result bytes held back per statement.
const maxHeldResult = 4 << 20

// wrapBuiltins puts builtinsHandler around the handler that wrap builds.
func wrapBuiltins(wrap func(mysql.Handler) (mysql.Handler, error)) func(mysql.Handler) (mysql.Handler, error) {
	return func(h mysql.Handler) (mysql.Handler, error) {
		inner, err := wrap(h)
		if err != nil {
			return nil, err
		}
		return &builtinsHandler{Handler: inner}, nil
	}
}

// recovered converts a recovered panic value into a MySQL error.
func recovered(r any, query string) error {
	slog.Error("panic in a statement", "statement", query, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
	return mysql.NewSQLError(mysql.ERUnknownError, mysql.SSUnknownSQLState,
		"lakesql: internal error in go-mysql-server while running this statement (%v); the statement was not run to completion", r)
}

// outOfRangeCode gives GMS's DECIMAL range error (1105) MySQL's 1264.
func outOfRangeCode(err error) error {
	var se *mysql.SQLError
	if errors.As(err, &se) && se.Num == mysql.ERUnknownError && strings.HasPrefix(se.Message, "Out of range value for column of Decimal type") {
		return mysql.NewSQLError(mysql.ERWarnDataOutOfRange, mysql.SSDataOutOfRange, "Out of range value for a DECIMAL column")
	}
	return err
}

func (h *builtinsHandler) ComQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) (err error) {
	query = fixLexing(query)
	held := &heldResult{callback: callback, conn: c}
	defer func() {
		if r := recover(); r != nil {
			err = recovered(r, query)
		}
		err = outOfRangeCode(err)
		if err == nil {
			err = held.flush()
		} else if held.streamed {
			slog.Warn("error after streamed rows: the connection ends", "bytes", held.bytes, "err", err)
		}
	}()
	return h.Handler.ComQuery(ctx, c, query, held.spool)
}

func (h *builtinsHandler) ComMultiQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) (rest string, err error) {
	query = fixLexing(query)
	held := &heldResult{callback: callback, conn: c}
	defer func() {
		if r := recover(); r != nil {
			rest, err = "", recovered(r, query)
		}
		err = outOfRangeCode(err)
		if err == nil {
			err = held.flush()
		}
	}()
	return h.Handler.ComMultiQuery(ctx, c, query, held.spool)
}

func (h *builtinsHandler) ComPrepare(ctx context.Context, c *mysql.Conn, query string, prepare *mysql.PrepareData) (fields []*querypb.Field, err error) {
	query = fixLexing(query)
	defer func() {
		if r := recover(); r != nil {
			fields, err = nil, recovered(r, query)
		}
	}()
	return h.Handler.ComPrepare(ctx, c, query, prepare)
}

func (h *builtinsHandler) ComStmtExecute(ctx context.Context, c *mysql.Conn, prepare *mysql.PrepareData, callback func(*sqltypes.Result) error) (err error) {
	held := &heldResult{callback: func(r *sqltypes.Result, _ bool) error { return callback(r) }, conn: c}
	defer func() {
		if r := recover(); r != nil {
			err = recovered(r, prepare.PrepareStmt)
		}
		err = outOfRangeCode(err)
		if err == nil {
			err = held.flush()
		} else if held.streamed {
			slog.Warn("error after streamed rows: the connection ends", "bytes", held.bytes, "err", err)
		}
	}()
	return h.Handler.ComStmtExecute(ctx, c, prepare, func(r *sqltypes.Result) error { return held.spool(r, false) })
}

// heldResult copies result batches until maxHeldResult bytes, then
// passes them on and streams the rest.
type heldResult struct {
	callback mysql.ResultSpoolFn
	conn     *mysql.Conn
	held     []heldBatch
	bytes    int
	streamed bool
}

type heldBatch struct {
	res  *sqltypes.Result
	more bool
}

func (h *heldResult) spool(res *sqltypes.Result, more bool) error {
	if h.streamed {
		return h.callback(res, more)
	}
	if ownedResult(h.conn, res) {
		// A direct point answer: its buffers stay until the next
		// statement (point_result.go).
		h.held = append(h.held, heldBatch{res, more})
		return nil
	}
	// GMS reuses the buffers behind the values once the callback returns.
	cp := *res
	cp.Rows = make([][]sqltypes.Value, len(res.Rows))
	for i, row := range res.Rows {
		cp.Rows[i] = make([]sqltypes.Value, len(row))
		for j, v := range row {
			if v.IsNull() {
				cp.Rows[i][j] = v
				continue
			}
			raw := append([]byte(nil), v.Raw()...)
			cp.Rows[i][j] = sqltypes.MakeTrusted(v.Type(), raw)
			h.bytes += len(raw) + 8
		}
	}
	h.held = append(h.held, heldBatch{&cp, more})
	if h.bytes > maxHeldResult {
		if err := h.flush(); err != nil {
			return err
		}
		h.streamed = true
	}
	return nil
}

func (h *heldResult) flush() error {
	for len(h.held) > 0 {
		b := h.held[0]
		h.held = h.held[1:]
		if err := h.callback(b.res, b.more); err != nil {
			return fmt.Errorf("sqlengine: send result: %w", err)
		}
	}
	return nil
}
