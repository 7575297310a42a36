package sqlengine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/provider"
)

// ddlHandler is the outermost protocol handler: it executes the DDL that
// GMS cannot (Flink/Spark/Doris CREATE TABLE, CREATE TABLE … LIKE with the
// exact Paimon schema, every ALTER TABLE it parses, SHOW CREATE TABLE in
// MySQL form and SHOW CREATE PAIMON TABLE) directly against the provider, and hands every other
// statement to the wrapped handler unchanged. A statement the front cannot
// parse goes to GMS when GMS's parser accepts it (MySQL syntax the front
// lacks, e.g. inline indexes); otherwise the front's syntax error (1064) is
// returned. Errors never close the connection.
type ddlHandler struct {
	mysql.Handler
	s *Server
}

// wrapDDL wraps GMS's handler with the query front (wrapHandler) and the
// DDL front; it is the handler wrapper of the server.
func (s *Server) wrapDDL(h mysql.Handler) (mysql.Handler, error) {
	inner, err := wrapHandler(h)
	if err != nil {
		return nil, err
	}
	inner = s.wrapWrites(inner) // MERGE INTO, INSERT OVERWRITE (merge_handler.go)
	inner = s.wrapCalls(inner)  // CALL sys.* (call_handler.go)
	return &ddlHandler{Handler: inner, s: s}, nil
}

func (h *ddlHandler) ComQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) error {
	query = rewriteShowCollation(query)                                     // MySQL's column names (show_collation.go)
	query, err := rewriteShowTableStatus(query, h.sessionDB(ctx, c, query)) // show_table_status.go
	if err != nil {
		return err
	}
	done, err := h.s.drain.enter() // shutdown.go
	if err != nil {
		return err
	}
	defer done()
	if err := h.checkStatement(c, query); err != nil { // statements.go
		return err
	}
	if done, err := h.tryDDL(ctx, c, query, callback, false); done {
		return provider.SQLError(err)
	}
	return provider.SQLError(h.Handler.ComQuery(ctx, c, query, callback))
}

func (h *ddlHandler) ComMultiQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) (string, error) {
	done, err := h.s.drain.enter() // shutdown.go
	if err != nil {
		return "", err
	}
	defer done()
	if err := checkPacket(c, query); err != nil { // statements.go
		return "", err
	}
	first, rest, err := sqlparser.SplitStatement(query)
	if err == nil {
		if err := h.checkOne(first); err != nil {
			return "", err
		}
		if done, err := h.tryDDL(ctx, c, first, callback, strings.TrimSpace(rest) != ""); done {
			return rest, provider.SQLError(err)
		}
		// SHOW statements answered by a rewrite (show_collation.go,
		// show_table_status.go) run alone, then the rest.
		q, err := rewriteShowTableStatus(rewriteShowCollation(first), h.sessionDB(ctx, c, first))
		if err != nil {
			return rest, err
		}
		if q != first {
			more := strings.TrimSpace(rest) != ""
			err := h.Handler.ComQuery(ctx, c, q, func(res *sqltypes.Result, m bool) error { return callback(res, m || more) })
			return rest, provider.SQLError(err)
		}
	}
	rest, err = h.Handler.ComMultiQuery(ctx, c, query, callback)
	return rest, provider.SQLError(err)
}

// tryDDL executes query when it is a statement of the DDL front; done is
// false when it is not (the caller hands it to GMS).
func (h *ddlHandler) tryDDL(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn, more bool) (done bool, err error) {
	stmt, ok, perr := parseDDL(query)
	if !ok {
		return false, nil
	}
	if perr != nil {
		if errors.Is(perr, provider.ErrUnsupportedDDL) {
			return true, provider.SQLError(perr)
		}
		if _, verr := sqlparser.Parse(query); verr == nil {
			return false, nil
		}
		return true, mysql.NewSQLError(mysql.ERParseError, mysql.SSClientError, "lakesql: %v", perr)
	}
	defer func() {
		if r := recover(); r != nil {
			done, err = true, mysql.NewSQLError(mysql.ERUnknownError, mysql.SSUnknownSQLState, "lakesql: internal error executing %q: %v", query, r)
		}
	}()
	sctx, err := h.s.srv.SessionManager().NewContextWithQuery(ctx, c, query)
	if err != nil {
		return true, provider.SQLError(err)
	}
	if _, show := stmt.(*showCreateTableStmt); !show {
		if err := implicitCommit(sctx); err != nil { // statements.go
			return true, provider.SQLError(err)
		}
	}
	res, err := h.execDDL(sctx, stmt)
	if err != nil {
		return true, provider.SQLError(err)
	}
	return true, callback(res, more)
}

func currentDB(ctx *sql.Context, db string) (string, error) {
	if db != "" {
		return db, nil
	}
	if cur := ctx.GetCurrentDatabase(); cur != "" {
		return cur, nil
	}
	return "", mysql.NewSQLError(mysql.ERNoDb, mysql.SSNoDB, "No database selected")
}

func (h *ddlHandler) execDDL(ctx *sql.Context, stmt any) (*sqltypes.Result, error) {
	pro := h.s.provider
	if err := h.s.checkFront(ctx, stmt); err != nil { // privileges (security.go)
		return nil, err
	}
	switch s := stmt.(type) {
	case *createTableStmt:
		db, err := currentDB(ctx, s.db)
		if err != nil {
			return nil, err
		}
		if s.isLike {
			srcDB, err := currentDB(ctx, s.likeDB)
			if err != nil {
				return nil, err
			}
			return &sqltypes.Result{}, pro.CreateTableLike(ctx, db, s.name, srcDB, s.like, s.ifNotExists)
		}
		ts, err := s.tableSchema()
		if err != nil {
			return nil, err
		}
		return &sqltypes.Result{}, pro.CreatePaimonTable(ctx, db, s.name, pro.WithTableDefaults(ts), s.ifNotExists)
	case *alterTableStmt:
		db, err := currentDB(ctx, s.db)
		if err != nil {
			return nil, err
		}
		changes, err := s.schemaChanges()
		if err != nil {
			return nil, err
		}
		return &sqltypes.Result{}, pro.AlterPaimonTable(ctx, db, s.name, changes)
	case *showCreateTableStmt:
		db, err := currentDB(ctx, s.db)
		if err != nil {
			return nil, err
		}
		ts, name, err := pro.LatestTableSchema(ctx, db, s.name)
		if err != nil {
			return nil, err
		}
		if s.paimon {
			return showCreateResult(name, ShowCreateTable(name, ts)), nil
		}
		ddl, err := ShowCreateTableMySQL(name, ts)
		if err != nil {
			return nil, err
		}
		return showCreateResult(name, ddl), nil
	}
	return nil, fmt.Errorf("lakesql: unexpected DDL statement %T", stmt)
}

// dataType is the nullable Paimon type of a column definition: its exact
// Paimon type when one was given in an executable comment, else the mapping
// of its type text.
func (c colDef) dataType(flink bool) (schema.DataType, error) {
	if !c.paimonType {
		return columnType(c.typeText, flink)
	}
	t, err := schema.ParseDataType(c.typeText)
	if err != nil {
		return schema.DataType{}, fmt.Errorf("unknown Paimon type %s", c.typeText)
	}
	if err := t.Validate(); err != nil {
		return schema.DataType{}, fmt.Errorf("column type %s: %v", c.typeText, err)
	}
	return t.WithNullable(true), nil
}

// tableSchema builds the schema of CREATE TABLE (ids and defaults are
// assigned by the provider).
func (s *createTableStmt) tableSchema() (*schema.TableSchema, error) {
	flink := s.flink
	for _, c := range s.cols {
		flink = flink || !c.paimonType && isFlinkType(c.typeText)
	}
	ts := &schema.TableSchema{PrimaryKeys: s.primaryKey, PartitionKeys: s.partitionKeys, Options: schema.Options{}, Comment: s.comment}
	for _, c := range s.cols {
		t, err := c.dataType(flink)
		if errors.Is(err, errUnknownColumnType) {
			return nil, provider.Invalid("column %s: %v", c.name, err)
		}
		if err != nil {
			return nil, provider.Unsupported("column %s: %v", c.name, err)
		}
		ts.Fields = append(ts.Fields, schema.DataField{Name: c.name, Type: t.WithNullable(!c.notNull), Description: c.comment})
		if u, ok := unsignedType(c.typeText); ok { // ddl_types.go
			ts.Options[provider.UnsignedOptionPrefix+c.name] = u
		}
	}
	for _, kv := range s.options {
		if _, dup := ts.Options[kv[0]]; dup {
			return nil, provider.Invalid("option '%s' is given twice", kv[0])
		}
		ts.Options[kv[0]] = kv[1]
	}
	return ts, nil
}

// schemaChanges turns ALTER TABLE actions into provider schema changes.
func (s *alterTableStmt) schemaChanges() ([]provider.SchemaChange, error) {
	flink := s.flink
	for _, a := range s.actions {
		if a.col.typeText != "" {
			flink = flink || !a.col.paimonType && isFlinkType(a.col.typeText)
		}
	}
	colType := func(c colDef) (schema.DataType, error) {
		t, err := c.dataType(flink)
		if err != nil {
			return t, provider.Unsupported("column %s: %v", c.name, err)
		}
		return t.WithNullable(!c.notNull), nil
	}
	var out []provider.SchemaChange
	for _, a := range s.actions {
		switch a.kind {
		case "ADD":
			t, err := colType(a.col)
			if err != nil {
				return nil, err
			}
			if a.col.pk {
				return nil, provider.Unsupported("changing the primary key of a Paimon table is not supported")
			}
			out = append(out, provider.SchemaChange{Kind: provider.AddColumn, Column: a.col.name, Type: t, Comment: a.col.comment, First: a.first, After: a.after})
			out = append(out, unsignedChange(a.col))
		case "MODIFY", "CHANGE":
			t, err := colType(a.col)
			if err != nil {
				return nil, err
			}
			name := a.col.name
			if a.kind == "CHANGE" && a.column != a.col.name {
				out = append(out, provider.SchemaChange{Kind: provider.RenameColumn, Column: a.column, NewName: a.col.name})
			}
			out = append(out,
				provider.SchemaChange{Kind: provider.UpdateColumnType, Column: name, Type: t},
				provider.SchemaChange{Kind: provider.UpdateColumnComment, Column: name, Comment: a.col.comment},
				unsignedChange(a.col))
			if a.first || a.after != "" {
				out = append(out, provider.SchemaChange{Kind: provider.MoveColumn, Column: name, First: a.first, After: a.after})
			}
		case "DROP":
			out = append(out, provider.SchemaChange{Kind: provider.DropColumn, Column: a.column})
		case "RENAME":
			out = append(out, provider.SchemaChange{Kind: provider.RenameColumn, Column: a.column, NewName: a.newName})
		case "SET":
			for _, kv := range a.props {
				out = append(out, provider.SchemaChange{Kind: provider.SetOption, Key: kv[0], Value: kv[1]})
			}
		case "RESET":
			for _, k := range a.keys {
				out = append(out, provider.SchemaChange{Kind: provider.RemoveOption, Key: k})
			}
		case "COMMENT":
			c := a.comment
			out = append(out, provider.SchemaChange{Kind: provider.UpdateComment, Comment: &c})
		}
	}
	return out, nil
}

func showCreateResult(name, ddl string) *sqltypes.Result {
	cs := uint32(sql.CharacterSet_utf8mb4)
	return &sqltypes.Result{
		Fields: []*querypb.Field{
			{Name: "Table", Type: querypb.Type_VARCHAR, Charset: cs, ColumnLength: 256},
			{Name: "Create Table", Type: querypb.Type_VARCHAR, Charset: cs, ColumnLength: 1 << 20},
		},
		Rows: [][]sqltypes.Value{{
			sqltypes.MakeTrusted(querypb.Type_VARCHAR, []byte(name)),
			sqltypes.MakeTrusted(querypb.Type_VARCHAR, []byte(ddl)),
		}},
	}
}
