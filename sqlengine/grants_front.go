package sqlengine

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

// grants_front.go answers what tools ask about accounts while lakesql has
// no account database (GMS's mysql database is not enabled): the server
// checks no passwords and no privileges, so every connection may do
// everything, and no accounts were created.
//
//   - SHOW GRANTS [FOR CURRENT_USER[()] | FOR user[@host]] returns
//     GRANT ALL PRIVILEGES ON *.* TO `user`@`%` WITH GRANT OPTION;
//   - mysql.user in a query reads as an empty table with MySQL 8.0's columns.
//
// When the account database is enabled, GMS answers both itself and this
// front steps aside (frontHandler checks MySQLDb.Enabled()).

// showGrants answers SHOW GRANTS; ok is false for other statements.
func (h *frontHandler) showGrants(c *mysql.Conn, body []Token) (*sqltypes.Result, bool) {
	if !tokensAre(body, "SHOW", "GRANTS") {
		return nil, false
	}
	user := ""
	if u, ok := c.UserData.(sql.MysqlConnectionUser); ok {
		user = u.User
	}
	host := "%"
	rest := body[2:]
	if len(rest) > 0 && rest[0].IsWord("FOR") {
		rest = rest[1:]
		switch {
		case len(rest) > 0 && rest[0].IsWord("CURRENT_USER"):
			rest = rest[1:]
			if tokensAre(rest, "(", ")") {
				rest = rest[2:]
			}
		default:
			u, h, next, ok := accountAt(rest, 0)
			if !ok {
				return nil, false
			}
			user, host, rest = u, h, rest[next:]
		}
	}
	if len(rest) > 0 {
		return nil, false // USING role, …: GMS answers
	}
	grant := fmt.Sprintf("GRANT ALL PRIVILEGES ON *.* TO %s@%s WITH GRANT OPTION", quoteName(user), quoteName(host))
	return &sqltypes.Result{
		Fields: []*querypb.Field{{Name: fmt.Sprintf("Grants for %s@%s", user, host), Type: querypb.Type_VARCHAR,
			Charset: uint32(sql.CharacterSet_utf8mb4), ColumnLength: 1024}},
		Rows: [][]sqltypes.Value{{sqltypes.MakeTrusted(querypb.Type_VARCHAR, []byte(grant))}},
	}, true
}

// mysqlUserColumns are MySQL 8.0's mysql.user columns with types GMS casts to.
var mysqlUserColumns = func() string {
	cols := []string{"CAST(NULL AS CHAR(255)) AS `Host`", "CAST(NULL AS CHAR(32)) AS `User`"}
	for _, p := range []string{"Select", "Insert", "Update", "Delete", "Create", "Drop", "Reload", "Shutdown",
		"Process", "File", "Grant", "References", "Index", "Alter", "Show_db", "Super", "Create_tmp_table",
		"Lock_tables", "Execute", "Repl_slave", "Repl_client", "Create_view", "Show_view", "Create_routine",
		"Alter_routine", "Create_user", "Event", "Trigger", "Create_tablespace"} {
		cols = append(cols, "CAST(NULL AS CHAR(1)) AS `"+p+"_priv`")
	}
	cols = append(cols,
		"CAST(NULL AS CHAR(9)) AS `ssl_type`", "CAST(NULL AS BINARY) AS `ssl_cipher`",
		"CAST(NULL AS BINARY) AS `x509_issuer`", "CAST(NULL AS BINARY) AS `x509_subject`",
		"CAST(NULL AS UNSIGNED) AS `max_questions`", "CAST(NULL AS UNSIGNED) AS `max_updates`",
		"CAST(NULL AS UNSIGNED) AS `max_connections`", "CAST(NULL AS UNSIGNED) AS `max_user_connections`",
		"CAST(NULL AS CHAR(64)) AS `plugin`", "CAST(NULL AS CHAR(255)) AS `authentication_string`",
		"CAST(NULL AS CHAR(1)) AS `password_expired`", "CAST(NULL AS DATETIME) AS `password_last_changed`",
		"CAST(NULL AS UNSIGNED) AS `password_lifetime`", "CAST(NULL AS CHAR(1)) AS `account_locked`",
		"CAST(NULL AS CHAR(1)) AS `Create_role_priv`", "CAST(NULL AS CHAR(1)) AS `Drop_role_priv`",
		"CAST(NULL AS UNSIGNED) AS `Password_reuse_history`", "CAST(NULL AS UNSIGNED) AS `Password_reuse_time`",
		"CAST(NULL AS CHAR(1)) AS `Password_require_current`", "CAST(NULL AS JSON) AS `User_attributes`")
	return "(SELECT " + strings.Join(cols, ", ") + " LIMIT 0)"
}()

// rewriteMySQLUser replaces each mysql.user table reference in a query with
// an empty derived table of the same columns; ok is false when there is none.
func rewriteMySQLUser(q string, body []Token) (string, bool) {
	if !body[0].IsWord("SELECT") && !body[0].IsWord("WITH") && !body[0].IsSymbol("(") {
		return "", false
	}
	var edits []edit
	for i := 0; i+2 < len(body); i++ {
		if !body[i].IsIdent() || !strings.EqualFold(body[i].Value(), "mysql") || !body[i+1].IsSymbol(".") ||
			!body[i+2].IsIdent() || !strings.EqualFold(body[i+2].Value(), "user") {
			continue
		}
		text := mysqlUserColumns
		next := Token{Kind: lexEOF}
		if i+3 < len(body) {
			next = body[i+3]
		}
		hasAlias := next.IsWord("AS") || next.Kind == lexQuotedIdent ||
			next.Kind == lexWord && !asOfEnd[strings.ToUpper(next.Text())]
		if !hasAlias {
			text += " AS `user`"
		}
		edits = append(edits, edit{body[i].Start, body[i+2].End, text})
		i += 2
	}
	if len(edits) == 0 {
		return "", false
	}
	return splice(q, edits), true
}
