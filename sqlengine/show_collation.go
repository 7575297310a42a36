package sqlengine

import (
	"regexp"
	"strings"
)

// showCollationRE matches SHOW COLLATION [LIKE 'pattern'].
var showCollationRE = regexp.MustCompile(`(?is)^\s*SHOW\s+COLLATION(?:\s+LIKE\s+('(?:[^'\\]|''|\\.)*'))?\s*;?\s*$`)

// rewriteShowCollation answers SHOW COLLATION with MySQL 8.0's column names
// (Collation, Charset, Id, Default, Compiled, Sortlen, Pad_attribute); GMS
// v0.20.0 names them collation, charset, ID, default, compiled, SORTLEN,
// PAD_ATTRIBUTE, which tools that read by name (SQLAlchemy reads by
// position, DBeaver by name) do not find.
func rewriteShowCollation(q string) string {
	m := showCollationRE.FindStringSubmatch(q)
	if m == nil {
		return q
	}
	where := ""
	if m[1] != "" {
		where = " WHERE collation_name LIKE " + m[1]
	}
	return strings.Join([]string{"SELECT collation_name AS `Collation`, character_set_name AS `Charset`, id AS `Id`,",
		"is_default AS `Default`, is_compiled AS `Compiled`, sortlen AS `Sortlen`, pad_attribute AS `Pad_attribute`",
		"FROM information_schema.collations" + where + " ORDER BY collation_name"}, " ")
}
