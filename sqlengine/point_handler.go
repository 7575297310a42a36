package sqlengine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"

	"github.com/lakesql/lakesql/internal/metrics"
	"github.com/lakesql/lakesql/provider"
)

// The point-query front. A point query (point_parse.go: SELECT of columns
// of one table where every primary-key column equals a literal) costs GMS
// far more to parse, plan and cost than to answer: lakesql answers it
// directly (provider.PointQuery: the PRIMARY index's read), for plain
// statements and server-side prepared ones alike.
//
// A statement shape (the statement with its literals replaced by their
// kinds, in a session's database, time zone and result character set) is
// first run through GMS, and its result compared with the direct answer:
// only when column definitions and rows are identical does the shape go
// direct from then on (a shape whose results differ, or that is not a
// point query provider.PointQuery answers, stays with GMS for good).
// Shapes are revalidated when the table's schema changes. The direct path
// runs only outside transactions in autocommit mode, and checks the
// SELECT privilege as GMS does; it clears warnings and sets FOUND_ROWS()
// and ROW_COUNT() as a SELECT does. Any error sends the statement through
// GMS, which reports it.
type pointHandler struct {
	mysql.Handler
	s *Server

	mu     sync.RWMutex
	shapes map[string]*pointShape
}

// pointShape is what is known of one statement shape.
type pointShape struct {
	mu      sync.Mutex
	state   pointState
	fields  []*querypb.Field // GMS's column definitions (before the protocol layer fixes them)
	version string           // the table schema the shape was validated on
	empty   int              // validations that returned no rows
}

type pointState uint8

const (
	pointUnknown pointState = iota // not validated yet
	pointDirect                    // answered directly
	pointGMS                       // always through GMS
)

var (
	pointDirectCount  = metrics.PointQueries.With("direct")
	pointPlannedCount = metrics.PointQueries.With("planned")
)

// maxPointShapes bounds the shape cache; it is cleared when full.
const maxPointShapes = 4096

// emptyValidations: a shape whose validations found no row this many times
// goes direct on the column definitions alone.
const emptyValidations = 8

func (s *Server) wrapPoint(h mysql.Handler) mysql.Handler {
	return &pointHandler{Handler: h, s: s, shapes: map[string]*pointShape{}}
}

func (h *pointHandler) ComQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) error {
	ps, ok := parsePointStmt(query)
	if !ok || hasPlaceholder(ps) {
		return h.Handler.ComQuery(ctx, c, query, callback)
	}
	return h.run(ctx, c, query, ps, func(r *sqltypes.Result) error { return callback(r, false) },
		func(capture func(*sqltypes.Result)) error {
			return h.Handler.ComQuery(ctx, c, query, func(r *sqltypes.Result, more bool) error {
				capture(r)
				return callback(r, more)
			})
		})
}

// ComMultiQuery implements mysql.Handler (clients with multi-statements
// on, such as the mysql client): a point statement alone is answered as
// ComQuery answers it.
func (h *pointHandler) ComMultiQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) (string, error) {
	if ps, ok := parsePointStmt(query); ok && !hasPlaceholder(ps) {
		return "", h.ComQuery(ctx, c, query, callback)
	}
	return h.Handler.ComMultiQuery(ctx, c, query, callback)
}

func hasPlaceholder(ps *pointStmt) bool {
	for _, k := range ps.keys {
		if k.kind == '?' {
			return true
		}
	}
	return false
}

func (h *pointHandler) ComStmtExecute(ctx context.Context, c *mysql.Conn, prepare *mysql.PrepareData, callback func(*sqltypes.Result) error) error {
	ps, ok := preparedPointStmt(prepare.PrepareStmt)
	if !ok || !bindPoint(ps, prepare.BindVars) {
		return h.Handler.ComStmtExecute(ctx, c, prepare, callback)
	}
	return h.run(ctx, c, prepare.PrepareStmt, ps, callback, func(capture func(*sqltypes.Result)) error {
		return h.Handler.ComStmtExecute(ctx, c, prepare, func(r *sqltypes.Result) error {
			capture(r)
			return callback(r)
		})
	})
}

// bindPoint puts the bound values of a prepared statement (v1, v2, … in
// placeholder order) into its literals; false when one is of a type the
// direct path does not take.
func bindPoint(ps *pointStmt, binds map[string]*querypb.BindVariable) bool {
	n := 0
	for i := range ps.keys {
		k := &ps.keys[i]
		if k.kind != '?' {
			continue
		}
		n++
		bv := binds["v"+strconv.Itoa(n)]
		if bv == nil {
			return false
		}
		switch {
		case sqltypes.IsSigned(bv.Type), sqltypes.IsUnsigned(bv.Type):
			if _, err := strconv.ParseInt(string(bv.Value), 10, 64); err != nil {
				return false
			}
			k.kind, k.text = 'i', string(bv.Value)
		case bv.Type == querypb.Type_DECIMAL:
			k.kind, k.text = 'd', string(bv.Value)
		case bv.Type == querypb.Type_VARCHAR, bv.Type == querypb.Type_CHAR, bv.Type == querypb.Type_TEXT,
			bv.Type == querypb.Type_VARBINARY, bv.Type == querypb.Type_BINARY, bv.Type == querypb.Type_BLOB:
			k.kind, k.text = 's', string(bv.Value)
		default:
			return false
		}
	}
	return n == len(binds)
}

// run answers a point statement directly when its shape allows, else
// through GMS (gms, which hands each result to capture before sending it).
func (h *pointHandler) run(ctx context.Context, c *mysql.Conn, query string, ps *pointStmt, send func(*sqltypes.Result) error, planned func(capture func(*sqltypes.Result)) error) error {
	gms := func(capture func(*sqltypes.Result)) error {
		pointPlannedCount.Inc()
		return planned(capture)
	}
	sess := h.s.sessions.get(c.ConnectionID)
	if sess == nil || sess.GetTransaction() != nil || !autocommit(sess) {
		return gms(func(*sqltypes.Result) {})
	}
	db := ps.db
	if db == "" {
		db = sess.GetCurrentDatabase()
	}
	switch strings.ToLower(db) {
	case "", "mysql", "information_schema", "performance_schema", "sys":
		return gms(func(*sqltypes.Result) {})
	}
	shape := h.shape(sess, db, ps)
	shape.mu.Lock()
	state, fields, version := shape.state, shape.fields, shape.version
	shape.mu.Unlock()
	switch state {
	case pointGMS:
		return gms(func(*sqltypes.Result) {})
	case pointDirect:
		res, sctx, err := h.answer(ctx, c, query, db, ps)
		if errors.Is(err, errPointPrivilege) {
			return gms(func(*sqltypes.Result) {})
		}
		if err == nil && res.Version == version {
			r, err := dataOf(c).point.result(sctx, fields, res) // point_result.go
			if err == nil {
				finishSelect(sctx, len(r.Rows))
				pointDirectCount.Inc()
				return send(r)
			}
		}
		shape.mu.Lock()
		shape.state = pointUnknown // the schema changed (or the read failed): validate again
		shape.mu.Unlock()
		return gms(func(*sqltypes.Result) {})
	}
	// Validation: GMS answers; the direct answer must be the same.
	var got []*sqltypes.Result
	err := gms(func(r *sqltypes.Result) { got = append(got, cloneResult(r)) })
	if err != nil || len(got) != 1 {
		return err
	}
	res, sctx, derr := h.answer(ctx, c, query, db, ps)
	shape.mu.Lock()
	defer shape.mu.Unlock()
	switch {
	case errors.Is(derr, provider.ErrNotPoint):
		shape.state = pointGMS
	case derr != nil:
		// A read error: try again next time.
	default:
		mine, err := resultOf(sctx, got[0].Fields, res)
		switch {
		case err != nil || !sameResult(mine, got[0]):
			shape.state = pointGMS
			slog.Debug("lakesql: point query answered differently than GMS; it stays with GMS", "query", query)
		case len(mine.Rows) == 0 && shape.empty < emptyValidations:
			shape.empty++
		default:
			shape.state, shape.fields, shape.version = pointDirect, got[0].Fields, res.Version
		}
	}
	return nil
}

// shape returns the cache entry of ps's shape in sess.
func (h *pointHandler) shape(sess *Session, db string, ps *pointStmt) *pointShape {
	key := db + "\x00" + ps.shape + "\x00" + sessionText(sess, "time_zone") + "\x00" + sessionText(sess, "character_set_results") +
		"\x00" + sessionText(sess, "sql_mode")
	h.mu.RLock()
	e := h.shapes[key]
	h.mu.RUnlock()
	if e != nil {
		return e
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	e = h.shapes[key]
	if e == nil {
		if len(h.shapes) >= maxPointShapes {
			clear(h.shapes)
		}
		e = &pointShape{}
		h.shapes[key] = e
	}
	return e
}

func sessionText(sess *Session, name string) string {
	v, err := sess.GetSessionVariable(nil, name)
	if err != nil || v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

func autocommit(sess *Session) bool {
	v, err := sess.GetSessionVariable(nil, "autocommit")
	if err != nil {
		return false
	}
	b, err := sql.ConvertToBool(nil, v)
	return err == nil && b
}

// errPointPrivilege: the session's account may not SELECT the table (GMS
// reports it; the shape is not GMS-only for other accounts).
var errPointPrivilege = errors.New("lakesql: point query without the SELECT privilege")

// answer reads the point statement's rows directly.
func (h *pointHandler) answer(ctx context.Context, c *mysql.Conn, query, db string, ps *pointStmt) (*provider.PointResult, *sql.Context, error) {
	sctx, err := h.s.srv.SessionManager().NewContextWithQuery(ctx, c, query)
	if err != nil {
		return nil, nil, err
	}
	op := sql.NewPrivilegedOperation(sql.PrivilegeCheckSubject{Database: db, Table: ps.table}, sql.PrivilegeType_Select)
	if !h.s.engine.Analyzer.Catalog.MySQLDb.UserHasPrivileges(sctx, op) {
		return nil, nil, errPointPrivilege // GMS reports the missing privilege
	}
	q := provider.PointQuery{Database: db, Table: ps.table, Columns: ps.cols}
	for _, k := range ps.keys {
		pk := provider.PointKey{Column: k.col}
		switch k.kind {
		case 'i':
			n, err := strconv.ParseInt(k.text, 10, 64)
			if err != nil {
				return nil, nil, provider.ErrNotPoint
			}
			pk.Literal = n
		case 's':
			pk.Literal = k.text
		case 'd':
			pk.Decimal = k.text
		default:
			return nil, nil, provider.ErrNotPoint
		}
		q.Key = append(q.Key, pk)
	}
	res, err := h.s.provider.PointQuery(sctx, q)
	return res, sctx, err
}

// resultOf converts a direct answer to the wire (as GMS's RowToSQL does)
// with the shape's column definitions, copied: the protocol layer adjusts
// them in place.
func resultOf(ctx *sql.Context, fields []*querypb.Field, res *provider.PointResult) (*sqltypes.Result, error) {
	if len(fields) != len(res.Schema) {
		return nil, errors.New("lakesql: point query: column count changed")
	}
	r := &sqltypes.Result{Fields: make([]*querypb.Field, len(fields)), Rows: make([][]sqltypes.Value, 0, len(res.Rows))}
	slab := make([]querypb.Field, len(fields)) // one allocation for the copies
	for i, f := range fields {
		copyFieldTo(&slab[i], f)
		r.Fields[i] = &slab[i]
	}
	for _, row := range res.Rows {
		out := make([]sqltypes.Value, len(row))
		for i, v := range row {
			if v == nil {
				out[i] = sqltypes.NULL
				continue
			}
			sv, err := res.Schema[i].Type.SQL(ctx, nil, v)
			if err != nil {
				return nil, err
			}
			out[i] = sv
		}
		r.Rows = append(r.Rows, out)
	}
	return r, nil
}

func copyField(f *querypb.Field) *querypb.Field {
	c := new(querypb.Field)
	copyFieldTo(c, f)
	return c
}

// copyFieldTo sets dst (a zero Field) to f's column definition.
func copyFieldTo(dst, f *querypb.Field) {
	dst.Name, dst.Type, dst.Table, dst.OrgTable, dst.Database = f.Name, f.Type, f.Table, f.OrgTable, f.Database
	dst.OrgName, dst.ColumnLength, dst.Charset, dst.Decimals, dst.Flags = f.OrgName, f.ColumnLength, f.Charset, f.Decimals, f.Flags
}

func cloneResult(r *sqltypes.Result) *sqltypes.Result {
	c := &sqltypes.Result{RowsAffected: r.RowsAffected, InsertID: r.InsertID, Info: r.Info}
	for _, f := range r.Fields {
		c.Fields = append(c.Fields, copyField(f))
	}
	for _, row := range r.Rows {
		c.Rows = append(c.Rows, append([]sqltypes.Value(nil), row...))
	}
	return c
}

// sameResult compares column definitions and rows, byte for byte.
func sameResult(a, b *sqltypes.Result) bool {
	if len(a.Fields) != len(b.Fields) || len(a.Rows) != len(b.Rows) {
		return false
	}
	for i := range a.Fields {
		x, y := a.Fields[i], b.Fields[i]
		if x.Name != y.Name || x.Type != y.Type || x.Table != y.Table || x.OrgTable != y.OrgTable || x.Database != y.Database ||
			x.OrgName != y.OrgName || x.ColumnLength != y.ColumnLength || x.Charset != y.Charset || x.Decimals != y.Decimals ||
			x.Flags != y.Flags {
			return false
		}
	}
	// Rows in any order: the direct read and GMS's may order buckets alike
	// or not; a point query has at most one row per key anyway.
	key := func(row []sqltypes.Value) string {
		var b bytes.Buffer
		for _, v := range row {
			b.WriteString(v.Type().String())
			b.WriteByte(0)
			if v.IsNull() {
				b.WriteString("\x01NULL")
			} else {
				b.Write(v.Raw())
			}
			b.WriteByte(0)
		}
		return b.String()
	}
	count := map[string]int{}
	for _, row := range a.Rows {
		count[key(row)]++
	}
	for _, row := range b.Rows {
		k := key(row)
		if count[k] == 0 {
			return false
		}
		count[k]--
	}
	return true
}

// finishSelect does what a SELECT's end does to the session in GMS.
func finishSelect(ctx *sql.Context, rows int) {
	ctx.ClearWarnings()
	ctx.SetLastQueryInfoInt(sql.RowCount, -1)
	ctx.SetLastQueryInfoInt(sql.FoundRows, int64(rows))
	sql.IncrementStatusVariable(ctx, "Questions", 1)
	sql.IncrementStatusVariable(ctx, "Com_select", 1)
}
