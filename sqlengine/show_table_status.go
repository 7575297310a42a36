package sqlengine

import (
	"context"
	"regexp"
	"strings"

	"github.com/dolthub/vitess/go/mysql"
)

// showTableStatusRE matches SHOW TABLE STATUS [{FROM | IN} db] [LIKE 'pattern' | WHERE expr].
var showTableStatusRE = regexp.MustCompile("(?is)^\\s*SHOW\\s+TABLE\\s+STATUS" +
	"(?:\\s+(?:FROM|IN)\\s+(`(?:[^`]|``)+`|[A-Za-z0-9_$]+))?" +
	"(?:\\s+LIKE\\s+('(?:[^'\\\\]|''|\\\\.)*')|\\s+WHERE\\s+(.*?))?\\s*;?\\s*$")

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
	m := showTableStatusRE.FindStringSubmatch(q)
	if m == nil {
		return q, nil
	}
	db := ""
	if m[1] != "" {
		db = m[1]
		if strings.HasPrefix(db, "`") {
			db = strings.ReplaceAll(db[1:len(db)-1], "``", "`")
		}
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
	sel := "SELECT " + tableStatusColumns + " FROM information_schema.tables WHERE table_schema = '" +
		strings.NewReplacer(`\`, `\\`, `'`, `''`).Replace(db) + "'"
	if m[2] != "" {
		sel += " AND table_name LIKE " + m[2]
	}
	if m[3] != "" {
		// WHERE filters on SHOW's own column names.
		return "SELECT * FROM (" + sel + ") AS `tables` WHERE " + m[3] + " ORDER BY `Name`", nil
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
