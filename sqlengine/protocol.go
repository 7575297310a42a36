package sqlengine

import (
	"bytes"
	"context"
	"strings"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"

	"github.com/lakesql/lakesql/provider"
)

// protoHandler is the outermost protocol handler. It makes what goes on the
// wire look like MySQL 8.0 where GMS v0.20.0 (and vitess) differ, without
// touching what the statements do:
//
//   - status flags: SERVER_STATUS_AUTOCOMMIT in the initial handshake and
//     SERVER_STATUS_AUTOCOMMIT / SERVER_STATUS_IN_TRANS from the session in
//     every OK and EOF packet (GMS sends 0x0000 in the handshake, so PEP 249
//     drivers believe autocommit is off and never turn it off);
//   - column definitions: binary charset (63) and NUM_FLAG on numeric
//     columns, binary charset on temporal ones, MySQL's lengths for
//     DATETIME/TIMESTAMP/TIME, and BOOLEAN table columns as tinyint(1);
//   - values: the text "NULL" GMS puts in numeric EXPLAIN columns becomes SQL
//     NULL (drivers fail parsing it as a number);
//   - SHOW TABLE STATUS names its last column Comment, as MySQL does;
//   - errors carry MySQL's SQLSTATE for their code (1146 → 42S02, …).
type protoHandler struct {
	mysql.Handler
	s *Server
}

// serverVersion is the version the handshake, VERSION() and @@version
// report (MySQL 8.0's protocol and SQL).
const serverVersion = "8.0.33-" + Version

// setServerVersion makes @@version (and so VERSION()) agree with the
// handshake; GMS's default is its own "8.0.31".
func setServerVersion() {
	_ = sql.SystemVariables.AssignValues(map[string]any{"version": serverVersion})
}

// wrapProtocol is the server's handler wrapper: the protocol layer around the
// statement fronts (statement_front.go) and the DDL front.
func (s *Server) wrapProtocol(h mysql.Handler) (mysql.Handler, error) {
	setServerVersion()
	inner, err := s.wrapAll(s.wrapPoint(s.wrapSplice(h))) // access and DDL fronts (security.go), point queries (point_handler.go), multi-row INSERTs (insert_splice.go)
	if err != nil {
		return nil, err
	}
	return &protoHandler{Handler: &frontHandler{Handler: inner, s: s}, s: s}, nil
}

// sessions maps connection ids to lakesql sessions, so that the protocol
// layer can read a connection's autocommit and transaction state.
type sessionRegistry struct{ m sync.Map }

func (r *sessionRegistry) put(id uint32, s *Session) { r.m.Store(id, s) }
func (r *sessionRegistry) drop(id uint32)            { r.m.Delete(id) }
func (r *sessionRegistry) get(id uint32) *Session {
	if v, ok := r.m.Load(id); ok {
		return v.(*Session)
	}
	return nil
}

// NewConnection implements mysql.Handler: a new session autocommits, and
// the initial handshake says so.
func (h *protoHandler) NewConnection(c *mysql.Conn) {
	c.StatusFlags |= uint16(mysql.ServerStatusAutocommit)
	h.Handler.NewConnection(c)
}

// ConnectionClosed implements mysql.Handler.
func (h *protoHandler) ConnectionClosed(c *mysql.Conn) {
	h.Handler.ConnectionClosed(c)
	h.s.sessions.drop(c.ConnectionID)
}

func (h *protoHandler) ComQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) error {
	err := h.Handler.ComQuery(ctx, c, query, h.spool(c, callback))
	h.setStatus(c)
	return provider.SQLError(err)
}

func (h *protoHandler) ComMultiQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) (string, error) {
	rest, err := h.Handler.ComMultiQuery(ctx, c, query, h.spool(c, callback))
	h.setStatus(c)
	return rest, provider.SQLError(err)
}

func (h *protoHandler) ComPrepare(ctx context.Context, c *mysql.Conn, query string, prepare *mysql.PrepareData) ([]*querypb.Field, error) {
	if prepare.ParamsCount == 0 {
		// vitess counts the placeholders by walking the parsed statement,
		// and its walk does not enter EXPLAIN: count them on tokens.
		if n := countPlaceholders(query); n > 0 {
			prepare.ParamsCount = n
			prepare.ParamsType = make([]int32, n)
			prepare.BindVars = make(map[string]*querypb.BindVariable, n)
		}
	}
	fields, err := h.Handler.ComPrepare(ctx, c, query, prepare)
	if err != nil {
		return nil, provider.SQLError(err)
	}
	h.fixFields(c, fields)
	return fields, nil
}

func countPlaceholders(q string) uint16 {
	toks, err := Lex(q)
	if err != nil {
		return 0
	}
	var n uint16
	for _, t := range toks {
		if t.Kind == lexPlaceholder {
			n++
		}
	}
	return n
}

func (h *protoHandler) ComStmtExecute(ctx context.Context, c *mysql.Conn, prepare *mysql.PrepareData, callback func(*sqltypes.Result) error) error {
	err := h.Handler.ComStmtExecute(ctx, c, prepare, func(r *sqltypes.Result) error {
		h.fixResult(c, r)
		h.setStatus(c)
		return callback(r)
	})
	h.setStatus(c)
	return provider.SQLError(err)
}

func (h *protoHandler) spool(c *mysql.Conn, callback mysql.ResultSpoolFn) mysql.ResultSpoolFn {
	return func(r *sqltypes.Result, more bool) error {
		h.fixResult(c, r)
		h.setStatus(c)
		return callback(r, more)
	}
}

// setStatus sets the connection's status flags from its session, as GMS's
// handler does after each statement it runs itself; the fronts' statements
// and the handshake need it too.
func (h *protoHandler) setStatus(c *mysql.Conn) {
	s := h.s.sessions.get(c.ConnectionID)
	if s == nil {
		return
	}
	if s.autocommit() {
		c.StatusFlags |= uint16(mysql.ServerStatusAutocommit)
	} else {
		c.StatusFlags &^= uint16(mysql.ServerStatusAutocommit)
	}
	if s.GetTransaction() != nil {
		c.StatusFlags |= uint16(mysql.ServerInTransaction)
	} else {
		c.StatusFlags &^= uint16(mysql.ServerInTransaction)
	}
}

// fixResult rewrites one result batch in place: its column definitions,
// and the "NULL" texts of numeric and EXPLAIN columns.
func (h *protoHandler) fixResult(c *mysql.Conn, r *sqltypes.Result) {
	if r == nil {
		return
	}
	if len(r.Fields) > 0 {
		h.fixFields(c, r.Fields)
	} else if r.Info != "" {
		r.Info = fitInfo(r.Info)
	}
	if isShowVariablesLayout(r.Fields) {
		showBoolsAsOnOff(r.Rows)
	}
	if isShowKeysLayout(r.Fields) {
		ascendingKeyColumns(r.Rows)
	}
	explain := isExplainLayout(r.Fields)
	for _, row := range r.Rows {
		for i, v := range row {
			if (explain || isNumeric(v.Type())) && bytes.Equal(v.Raw(), nullText) {
				row[i] = sqltypes.NULL
			}
		}
	}
}

var nullText = []byte("NULL")

// showKeysColumns are SHOW KEYS/INDEX's columns up to Collation.
var showKeysColumns = []string{"Table", "Non_unique", "Key_name", "Seq_in_index", "Column_name", "Collation"}

func isShowKeysLayout(fields []*querypb.Field) bool {
	if len(fields) != 15 {
		return false
	}
	for i, n := range showKeysColumns {
		if fields[i].Name != n {
			return false
		}
	}
	return true
}

// ascendingKeyColumns reports the Collation of an index column as MySQL
// does for a B-tree index: 'A' (ascending; the PRIMARY key is Paimon's
// sort order). GMS v0.20.0 reports NULL, which tools read as "not sorted".
func ascendingKeyColumns(rows [][]sqltypes.Value) {
	for _, row := range rows {
		if len(row) > 5 && !row[4].IsNull() && row[5].IsNull() {
			row[5] = sqltypes.MakeTrusted(sqltypes.VarChar, []byte("A"))
		}
	}
}

// okInfoLen is the length an OK packet's info must have: vitess writes the
// info as the byte '#' and the text, while clients (libmysqlclient,
// libmariadb, mysql2 with CLIENT_SESSION_TRACK…) read a length-encoded
// string, whose length byte '#' says 35. An info of exactly 35 bytes is
// read right by every client ("Statement prepared" of 18 bytes made the
// mysql client report ERROR 2027 Malformed packet).
const okInfoLen = '#'

// fitInfo pads an info to okInfoLen bytes, or drops its trailing
// "  Name: value" parts until it fits (MySQL's infos are such lists, e.g.
// "Rows matched: 1  Changed: 1  Warnings: 0"); "" if nothing fits.
func fitInfo(info string) string {
	for len(info) > okInfoLen {
		i := strings.LastIndex(info, "  ")
		if i < 0 {
			return ""
		}
		info = info[:i]
	}
	return info + strings.Repeat(" ", okInfoLen-len(info))
}

// isShowVariablesLayout reports SHOW [GLOBAL|SESSION] VARIABLES' columns.
func isShowVariablesLayout(fields []*querypb.Field) bool {
	return len(fields) == 2 && fields[0].Name == "Variable_name" && fields[1].Name == "Value"
}

var (
	onText  = sqltypes.NewVarChar("ON")
	offText = sqltypes.NewVarChar("OFF")
)

// showBoolsAsOnOff writes boolean system variables as ON/OFF, as MySQL's
// SHOW VARIABLES does (GMS writes 1/0; tools test `local_infile` or
// `partial_revokes` against "ON"). SELECT @@x stays 1/0, as in MySQL.
func showBoolsAsOnOff(rows [][]sqltypes.Value) {
	for _, row := range rows {
		if len(row) != 2 {
			continue
		}
		sv, _, ok := sql.SystemVariables.GetGlobal(row[0].ToString())
		if !ok {
			continue
		}
		if _, isBool := sv.GetType().(types.SystemBoolType); !isBool {
			continue
		}
		switch row[1].ToString() {
		case "1":
			row[1] = onText
		case "0":
			row[1] = offText
		}
	}
}

// explainColumns are the columns of MySQL's (and GMS's) traditional EXPLAIN,
// in which GMS writes absent values as the text "NULL".
var explainColumns = []string{"id", "select_type", "table", "partitions", "type", "possible_keys", "key", "key_len", "ref", "rows", "filtered", "Extra"}

func isExplainLayout(fields []*querypb.Field) bool {
	if len(fields) != len(explainColumns) {
		return false
	}
	for i, f := range fields {
		if f.Name != explainColumns[i] {
			return false
		}
	}
	return true
}

func isNumeric(t querypb.Type) bool {
	return sqltypes.IsIntegral(t) || sqltypes.IsFloat(t) || t == querypb.Type_DECIMAL
}

const binaryCharset = 63 // the binary collation's id

func (h *protoHandler) fixFields(c *mysql.Conn, fields []*querypb.Field) {
	if n := len(fields); n == 18 && fields[0].Name == "Name" && fields[1].Name == "Engine" && fields[17].Name == "Comments" {
		fields[17].Name, fields[17].OrgName = "Comment", "Comment" // SHOW TABLE STATUS
	}
	var boolCols []bool
	if s := h.s.sessions.get(c.ConnectionID); s != nil {
		boolCols = s.resultBools(fields)
	}
	for i, f := range fields {
		switch {
		case isNumeric(f.Type) || f.Type == querypb.Type_YEAR:
			f.Charset = binaryCharset
			f.Flags |= uint32(querypb.MySqlFlag_NUM_FLAG)
			if f.Type == querypb.Type_INT8 && i < len(boolCols) && boolCols[i] {
				f.ColumnLength = 1 // BOOLEAN is tinyint(1)
			}
		case f.Type == querypb.Type_BIT:
			f.Charset = binaryCharset
			f.Flags |= uint32(querypb.MySqlFlag_UNSIGNED_FLAG)
		case f.Type == querypb.Type_DATE:
			f.Charset = binaryCharset
			f.Flags |= uint32(querypb.MySqlFlag_BINARY_FLAG)
			f.ColumnLength = 10
		case f.Type == querypb.Type_DATETIME || f.Type == querypb.Type_TIMESTAMP:
			f.Charset = binaryCharset
			f.Flags |= uint32(querypb.MySqlFlag_BINARY_FLAG)
			f.ColumnLength = 19 // 'YYYY-MM-DD hh:mm:ss', plus '.' and the fraction
			if f.Decimals > 0 && f.Decimals <= 6 {
				f.ColumnLength = 20 + f.Decimals
			}
		case f.Type == querypb.Type_TIME:
			f.Charset = binaryCharset
			f.Flags |= uint32(querypb.MySqlFlag_BINARY_FLAG)
			f.ColumnLength = 10 // '-838:59:59'
			if f.Decimals > 0 && f.Decimals <= 6 {
				f.ColumnLength = 11 + f.Decimals
			}
		}
	}
}

// ResultSchemaRuleID identifies the analyzer rule that records the result
// schema of the statement being analyzed in the session.
const ResultSchemaRuleID analyzer.RuleId = 1001

// ResultSchemaRule records which result columns are BOOLEAN table columns,
// so that the protocol layer can describe them as tinyint(1) (GMS's column
// definitions lose the display width). It leaves the plan as it is; of an
// EXPLAIN it clears the one-row flag GMS sets for the explained query.
func ResultSchemaRule(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qf *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if scope != nil && !scope.IsEmpty() {
		return n, transform.SameTree, nil
	}
	if qf != nil && isExplain(ctx.Query()) {
		// GMS analyzes only the explained query, which sets the one-row
		// flag for a primary-key point query; the plan has many rows ("max1Row
		// iterator returned more than one row").
		qf.Unset(sql.QFlagMax1Row)
	}
	s, ok := ctx.Session.(*Session)
	if !ok {
		return n, transform.SameTree, nil
	}
	s.recordResultSchema(n)
	return n, transform.SameTree, nil
}

// isExplain reports whether a statement is EXPLAIN/DESCRIBE/DESC.
func isExplain(q string) bool {
	q = strings.TrimLeft(q, " \t\r\n(")
	if len(q) < 4 || !strings.EqualFold(q[:4], "EXPL") && !strings.EqualFold(q[:4], "DESC") {
		return false
	}
	toks, err := Lex(q)
	return err == nil && (toks[0].IsWord("EXPLAIN") || toks[0].IsWord("DESCRIBE") || toks[0].IsWord("DESC"))
}

// resultShape is what the protocol layer needs of a statement's result
// schema: each column's wire type, and whether it is a BOOLEAN.
type resultShape struct {
	types []querypb.Type
	bools []bool
}

func (s *Session) recordResultSchema(n sql.Node) {
	defer func() { _ = recover() }() // Schema() of an odd node must not fail a statement
	var shape resultShape
	for _, c := range n.Schema() {
		shape.types = append(shape.types, c.Type.Type())
		shape.bools = append(shape.bools, c.Type == types.Boolean && c.Source != "")
	}
	s.shape.Store(&shape)
}

// resultBools returns, for fields that match the last recorded result
// schema, which are BOOLEAN columns; nil when they do not match.
func (s *Session) resultBools(fields []*querypb.Field) []bool {
	shape, _ := s.shape.Load().(*resultShape)
	if shape == nil || len(shape.types) != len(fields) {
		return nil
	}
	for i, f := range fields {
		if shape.types[i] != f.Type || shape.bools[i] && f.OrgTable == "" {
			return nil
		}
	}
	return shape.bools
}
