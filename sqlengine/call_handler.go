package sqlengine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/procedures"
	"github.com/lakesql/lakesql/provider"
)

// callHandler is the CALL front: it runs `CALL [catalog.]sys.<proc>(…)`,
// Paimon's maintenance procedures (package procedures), and hands every
// other statement — CALL of a stored procedure included — to the wrapped
// handler. A call
//
//   - is refused on a --read-only server (1290) and in a READ ONLY
//     transaction or session (1792);
//   - needs EXECUTE on the table's database (else 1370) and the table
//     privileges its procedure declares (else 1142);
//   - commits an open transaction first, as DDL does: procedures change
//     snapshots, tags and branches outside transactions;
//   - answers with one result set saying what it did.
//
// Unknown procedures are 1305, a wrong number of arguments 1318, an unknown
// or repeated argument 1210, a bad value 1231; the connection survives.
type callHandler struct {
	mysql.Handler
	s     *Server
	procs *procedures.Registry
}

// wrapCalls puts the CALL front in front of h.
func (s *Server) wrapCalls(h mysql.Handler) mysql.Handler {
	return &callHandler{Handler: h, s: s, procs: procedures.Default()}
}

func (h *callHandler) ComQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) error {
	return frontQuery(ctx, c, query, callback, h.tryCall, h.Handler)
}

func (h *callHandler) ComMultiQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) (string, error) {
	return frontMultiQuery(ctx, c, query, callback, h.tryCall, h.Handler)
}

// ComPrepare prepares a CALL sys.* server-side: its `?` arguments are
// bound at execution (the statement answers with its result set then, as
// MySQL's prepared CALL does, so it reports no columns here).
func (h *callHandler) ComPrepare(ctx context.Context, c *mysql.Conn, query string, prepare *mysql.PrepareData) ([]*querypb.Field, error) {
	if !startsWithWords(query, "CALL") {
		return h.Handler.ComPrepare(ctx, c, query, prepare)
	}
	stmt, ok, err := parseCallPrepared(query)
	if !ok {
		return h.Handler.ComPrepare(ctx, c, query, prepare)
	}
	if err != nil {
		return nil, mysql.NewSQLError(mysql.ERParseError, mysql.SSClientError, "lakesql: %v", err)
	}
	if prepare != nil && int(prepare.ParamsCount) != len(stmt.params) {
		return nil, mysql.NewSQLError(mysql.ERParseError, mysql.SSClientError,
			"lakesql: CALL %s: %d placeholders, the protocol counted %d", stmt.proc, len(stmt.params), prepare.ParamsCount)
	}
	return nil, nil
}

// ComStmtExecute runs a prepared CALL sys.* with its bound values.
func (h *callHandler) ComStmtExecute(ctx context.Context, c *mysql.Conn, prepare *mysql.PrepareData, callback func(*sqltypes.Result) error) error {
	if prepare == nil || !startsWithWords(prepare.PrepareStmt, "CALL") {
		return h.Handler.ComStmtExecute(ctx, c, prepare, callback)
	}
	stmt, ok, err := parseCallPrepared(prepare.PrepareStmt)
	if !ok {
		return h.Handler.ComStmtExecute(ctx, c, prepare, callback)
	}
	if err != nil {
		return mysql.NewSQLError(mysql.ERParseError, mysql.SSClientError, "lakesql: %v", err)
	}
	for n, i := range stmt.params {
		bv, ok := prepare.BindVars[fmt.Sprintf("v%d", n+1)]
		if !ok {
			return mysql.NewSQLError(mysql.ERWrongArguments, mysql.SSUnknownSQLState, "Incorrect arguments to EXECUTE: parameter %d has no value", n+1)
		}
		stmt.args[i].Value = bindValue(bv)
	}
	res, err := h.execCall(ctx, c, prepare.PrepareStmt, stmt)
	if err != nil {
		return callErr(stmt, err)
	}
	return callback(res)
}

// bindValue is the literal of a bound parameter.
func bindValue(bv *querypb.BindVariable) procedures.Value {
	switch {
	case bv == nil || bv.Type == querypb.Type_NULL_TYPE:
		return procedures.NullValue()
	case sqltypes.IsIntegral(bv.Type) || sqltypes.IsFloat(bv.Type) || bv.Type == querypb.Type_DECIMAL:
		return procedures.NumberValue(string(bv.Value))
	}
	return procedures.StringValue(string(bv.Value))
}

func (h *callHandler) tryCall(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn, more bool) (done bool, err error) {
	if !startsWithWords(query, "CALL") {
		return false, nil
	}
	stmt, ok, perr := parseCall(query)
	if !ok {
		return false, nil
	}
	if perr != nil {
		return true, mysql.NewSQLError(mysql.ERParseError, mysql.SSClientError, "lakesql: %v", perr)
	}
	defer func() {
		if r := recover(); r != nil {
			done, err = true, mysql.NewSQLError(mysql.ERUnknownError, mysql.SSUnknownSQLState, "lakesql: internal error executing %q: %v", query, r)
		}
	}()
	res, err := h.execCall(ctx, c, query, stmt)
	if err != nil {
		return true, callErr(stmt, err)
	}
	return true, callback(res, more)
}

func (h *callHandler) execCall(ctx context.Context, c *mysql.Conn, query string, stmt *callStmt) (*sqltypes.Result, error) {
	sctx, err := h.s.srv.SessionManager().NewContextWithQuery(ctx, c, query)
	if err != nil {
		return nil, err
	}
	// EXECUTE first, as GMS checks it for stored procedures: an account
	// without it learns nothing about the procedures.
	db := sctx.GetCurrentDatabase()
	if t, ok := tableArg(stmt); ok {
		if id, err := procedures.ParseTableIdent(t, db, true); err == nil {
			db = id.DB
		}
	}
	if err := h.s.checkExecute(sctx, db, "sys."+stmt.proc); err != nil {
		return nil, err
	}
	proc, err := h.procs.Lookup(stmt.proc)
	if err != nil {
		return nil, err
	}
	args, err := proc.Bind(stmt.args)
	if err != nil {
		return nil, err
	}
	if h.s.cfg.ReadOnly {
		return nil, writeError(sql.ErrReadOnly.New())
	}
	if cur := sctx.GetTransaction(); (cur != nil && cur.IsReadOnly()) || sessionReadOnly(sctx) {
		return nil, sql.ErrReadOnlyTransaction.New()
	}
	table, _ := args.String("table")
	id, err := procedures.ParseTableIdent(table, sctx.GetCurrentDatabase(), true)
	if err != nil {
		return nil, err
	}
	if err := h.s.checkCall(sctx, proc, id); err != nil {
		return nil, err
	}
	if err := implicitCommit(sctx); err != nil {
		return nil, err
	}
	env := &procedures.Env{Catalog: procCatalog{h.s}, CurrentDB: sctx.GetCurrentDatabase()}
	res, err := proc.Run(sctx, env, args)
	if err != nil {
		return nil, err
	}
	return procResult(res), nil
}

// tableArg is the table argument of a call before binding: the named
// argument `table`, else the first positional one.
func tableArg(stmt *callStmt) (string, bool) {
	for _, a := range stmt.args {
		if strings.EqualFold(a.Name, "table") && a.Value.Kind == procedures.KindString {
			return a.Value.String(), true
		}
	}
	if len(stmt.args) > 0 && stmt.args[0].Name == "" && stmt.args[0].Value.Kind == procedures.KindString {
		return stmt.args[0].Value.String(), true
	}
	return "", false
}

// checkExecute checks EXECUTE on database db (1370).
func (s *Server) checkExecute(ctx *sql.Context, db, routine string) error {
	cl := ctx.Session.Client()
	if !s.sec.users.DB().UserHasPrivileges(ctx, sql.NewPrivilegedOperation(sql.PrivilegeCheckSubject{Database: db}, sql.PrivilegeType_Execute)) {
		return mysql.NewSQLError(1370, "42000", "execute command denied to user '%s'@'%s' for routine '%s'",
			cl.User, cl.Address, routine)
	}
	return nil
}

// checkCall checks EXECUTE on the table's database (1370) and the table
// privileges the procedure declares (1142).
func (s *Server) checkCall(ctx *sql.Context, proc *procedures.Procedure, id procedures.TableIdent) error {
	if err := s.checkExecute(ctx, id.DB, proc.QualifiedName()); err != nil {
		return err
	}
	db := s.sec.users.DB()
	cl := ctx.Session.Client()
	for _, p := range proc.Privileges {
		pt := privilegeType(p)
		if !db.UserHasPrivileges(ctx, sql.NewPrivilegedOperation(sql.PrivilegeCheckSubject{Database: id.DB, Table: id.Name}, pt)) {
			return mysql.NewSQLError(1142, "42000", "%s command denied to user '%s'@'%s' for table '%s'",
				strings.ToUpper(pt.String()), cl.User, cl.Address, id.Name)
		}
	}
	return nil
}

func privilegeType(p procedures.Privilege) sql.PrivilegeType {
	switch p {
	case procedures.PrivSelect:
		return sql.PrivilegeType_Select
	case procedures.PrivInsert:
		return sql.PrivilegeType_Insert
	case procedures.PrivUpdate:
		return sql.PrivilegeType_Update
	case procedures.PrivDelete:
		return sql.PrivilegeType_Delete
	}
	return sql.PrivilegeType_Alter
}

// procResult is a procedure's result as a MySQL result set.
func procResult(r *procedures.Result) *sqltypes.Result {
	cs := uint32(sql.CharacterSet_utf8mb4)
	out := &sqltypes.Result{}
	for _, c := range r.Columns {
		f := &querypb.Field{Name: c.Name}
		switch c.Type {
		case procedures.ColInt64:
			f.Type, f.ColumnLength, f.Charset = querypb.Type_INT64, 20, uint32(sql.Collation_binary)
		case procedures.ColBool:
			f.Type, f.ColumnLength, f.Charset = querypb.Type_INT8, 1, uint32(sql.Collation_binary)
		default:
			f.Type, f.ColumnLength, f.Charset = querypb.Type_VARCHAR, 1<<16, cs
		}
		out.Fields = append(out.Fields, f)
	}
	for _, row := range r.Rows {
		vals := make([]sqltypes.Value, len(row))
		for i, v := range row {
			switch x := v.(type) {
			case nil:
				vals[i] = sqltypes.NULL
			case int64:
				vals[i] = sqltypes.NewInt64(x)
			case bool:
				b := int64(0)
				if x {
					b = 1
				}
				vals[i] = sqltypes.NewInt8(int8(b))
			case string:
				vals[i] = sqltypes.MakeTrusted(querypb.Type_VARCHAR, []byte(x))
			default:
				vals[i] = sqltypes.MakeTrusted(querypb.Type_VARCHAR, []byte(fmt.Sprint(x)))
			}
		}
		out.Rows = append(out.Rows, vals)
	}
	return out
}

// callErr gives an error of a procedure call MySQL's code: the one error
// table (provider/errors.go) knows the procedures' errors by identity.
func callErr(stmt *callStmt, err error) error {
	return provider.SQLError(&procedures.CallError{Procedure: "sys." + stmt.proc, Err: err})
}

// procCatalog is the procedures' view of the provider.
type procCatalog struct{ s *Server }

func (c procCatalog) Table(ctx context.Context, db, name string) (*procedures.TableRef, error) {
	realDB, real, st, err := c.s.provider.ResolveTable(ctx, db, name)
	if err != nil {
		return nil, err
	}
	return &procedures.TableRef{DB: realDB, Name: real, Store: st}, nil
}

func (c procCatalog) SetOptions(ctx context.Context, db, name string, options map[string]string) error {
	keys := make([]string, 0, len(options))
	for k := range options {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	changes := make([]provider.SchemaChange, 0, len(keys))
	for _, k := range keys {
		kind := provider.SetOption
		if k == schema.OptBucket {
			kind = provider.RescaleBucket
		}
		changes = append(changes, provider.SchemaChange{Kind: kind, Key: k, Value: options[k]})
	}
	return c.s.provider.AlterPaimonTable(ctx, db, name, changes)
}

func (c procCatalog) Changed(db, name string) { c.s.provider.TableChanged(db, name) }
