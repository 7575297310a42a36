package sqlengine

import (
	"strings"
)

// rewriteShowCollation answers SHOW COLLATION [LIKE 'pattern'] with MySQL
// 8.0's column names (Collation, Charset, Id, Default, Compiled, Sortlen,
// Pad_attribute); GMS v0.20.0 names them collation, charset, ID, default,
// compiled, SORTLEN, PAD_ATTRIBUTE, which tools that read by name
// (SQLAlchemy reads by position, DBeaver by name) do not find. Other
// statements are returned as they are.
func rewriteShowCollation(q string) string {
	if !startsWithWords(q, "SHOW", "COLLATION") {
		return q
	}
	toks, err := lexLimit(q, mysqlDialect, 6) // SHOW COLLATION LIKE '…' ; EOF
	if err != nil || toks[len(toks)-1].Kind != lexEOF {
		return q
	}
	body := statementBody(toks)
	where := ""
	switch {
	case len(body) == 2:
	case len(body) == 4 && body[2].IsWord("LIKE") && body[3].Kind == lexString:
		where = " WHERE collation_name LIKE " + body[3].Text()
	default:
		return q
	}
	return strings.Join([]string{"SELECT collation_name AS `Collation`, character_set_name AS `Charset`, id AS `Id`,",
		"is_default AS `Default`, is_compiled AS `Compiled`, sortlen AS `Sortlen`, pad_attribute AS `Pad_attribute`",
		"FROM information_schema.collations" + where + " ORDER BY collation_name"}, " ")
}
