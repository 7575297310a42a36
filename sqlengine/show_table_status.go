package sqlengine

import (
	"context"

	"github.com/dolthub/vitess/go/mysql"
)

// tableStatusColumns are SHOW TABLE STATUS's columns over
// information_schema.TABLES, with MySQL 8.0's names.
const tableStatusColumns = "table_name AS `Name`, engine AS `Engine`, version AS `Version`, row_format AS `Row_format`, " +
	"table_rows AS `Rows`, avg_row_length AS `Avg_row_length`, data_length AS `Data_length`, " +
	"max_data_length AS `Max_data_length`, index_length AS `Index_length`, data_free AS `Data_free`, " +
	"auto_increment AS `Auto_increment`, create_time AS `Create_time`, update_time AS `Update_time`, " +
	"check_time AS `Check_time`, table_collation AS `Collation`, checksum AS `Checksum`, " +
	"create_options AS `Create_options`, table_comment AS `Comment`"

// rewriteShowTableStatus answers SHOW TABLE STATUS from
// information_schema.TABLES, as MySQL 8.0 does (it is a view over the data
// dictionary there), so both say the same: Engine Paimon (as SHOW CREATE
// TABLE does) and Comment the table comment. GMS v0.20.0 hard-codes
// InnoDB and a NULL comment in its own SHOW TABLE STATUS. currentDB is the
// session's database; without one (and without FROM) the answer is MySQL's
// 1046.
func rewriteShowTableStatus(q string, currentDB func() (string, error)) (string, error) {
	if !startsWithWords(q, "SHOW", "TABLE", "STATUS") {
		return q, nil
	}
	toks, err := Lex(q)
	if err != nil {
		return q, nil
	}
	// SHOW TABLE STATUS [{FROM | IN} db] [LIKE 'pattern' | WHERE expr]
	body := statementBody(toks)[3:]
	db, like, where := "", "", ""
	if len(body) >= 2 && (body[0].IsWord("FROM") || body[0].IsWord("IN")) && body[1].IsIdent() {
		db = body[1].Value()
		body = body[2:]
	}
	switch {
	case len(body) == 0:
	case len(body) == 2 && body[0].IsWord("LIKE") && body[1].Kind == lexString:
		like = body[1].Text()
	case len(body) >= 2 && body[0].IsWord("WHERE"):
		where = q[body[1].Start:body[len(body)-1].End]
	default:
		return q, nil
	}
	if db == "" {
		cur, err := currentDB()
		if err != nil {
			return q, err
		}
		db = cur
	}
	if db == "" {
		return q, mysql.NewSQLError(mysql.ERNoDb, mysql.SSNoDB, "No database selected")
	}
	sel := "SELECT " + tableStatusColumns + " FROM information_schema.tables WHERE table_schema = " + sqlStringLiteral(db)
	if like != "" {
		sel += " AND table_name LIKE " + like
	}
	if where != "" {
		// WHERE filters on SHOW's own column names.
		return "SELECT * FROM (" + sel + ") AS `tables` WHERE " + where + " ORDER BY `Name`", nil
	}
	return sel + " ORDER BY table_name", nil
}

// sessionDB returns the current database of c's session (creating the
// session when the connection has run nothing yet).
func (h *ddlHandler) sessionDB(ctx context.Context, c *mysql.Conn, query string) func() (string, error) {
	return func() (string, error) {
		sctx, err := h.s.srv.SessionManager().NewContextWithQuery(ctx, c, query)
		if err != nil {
			return "", err
		}
		return sctx.GetCurrentDatabase(), nil
	}
}
