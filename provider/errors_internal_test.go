package provider

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
)

// TestSQLErrorGMSKinds: each GMS error kind lakesql maps gets the same
// MySQL code, SQLSTATE and message whether its value reaches SQLError
// (errorCodes, by kind, also wrapped by a front) or only its text, after
// GMS's handler cast it to 1105 (fromGMSText) — and neither is 1105.
func TestSQLErrorGMSKinds(t *testing.T) {
	for _, c := range []struct {
		err   error
		code  int
		state string
	}{
		{sql.ErrSyntaxError.New("syntax error at position 7 near 'FROM'"), 1064, "42000"},
		{sql.ErrColumnNotFound.New("nosuch"), 1054, "42S22"},
		{sql.ErrAmbiguousColumnName.New("id", "a, b"), 1052, "23000"},
		{sql.ErrSystemVariableReadOnly.New("version"), 1238, "HY000"},
		{sql.ErrTemporaryTableNotSupported.New(), 1235, "42000"},
		{types.ErrLengthBeyondLimit.New("abcdef", "v"), 1406, "22001"},
		{sql.ErrValueOutOfRange.New(300, "tinyint"), 1264, "22003"},
		{types.ErrConvertingToTime.New("2026-13-45"), 1292, "22007"},
		{sql.ErrInvalidAsOfExpression.New("(1, 2)"), 1210, "HY000"},
		{sql.ErrInsertIntoNonNullableDefaultNullColumn.New("b"), 1364, "HY000"},
		{sql.ErrRenameTableNotSupported.New("db"), 1235, "42000"},
		{sql.ErrReadOnly.New(), 1290, "HY000"},
		{sql.ErrPrivilegeCheckFailed.New("'bob'@'%'"), 1142, "42000"},
		{sql.ErrDatabaseAccessDeniedForUser.New("'bob'@'%'", "s2"), 1044, "42000"},
		{sql.ErrTableAccessDeniedForUser.New("'bob'@'%'", "t"), 1142, "42000"},
		{context.Canceled, 1317, "70100"},
		{sql.ErrNoMemoryAvailable.New(), 3170, "HY000"},
	} {
		for _, err := range []error{c.err, fmt.Errorf("lakesql: MERGE: %w", c.err)} {
			se, ok := codeFor(err, true)
			if !ok || se.Num != c.code || se.State != c.state {
				t.Errorf("%v by identity: %v (ok %v), want %d (%s)", err, se, ok, c.code, c.state)
				continue
			}
			var out *mysql.SQLError
			if !errors.As(SQLError(err), &out) || out.Num != c.code || out.State != c.state {
				t.Errorf("SQLError(%v) = %v, want %d (%s)", err, out, c.code, c.state)
			}
		}
		// After GMS's handler cast it to 1105, only the text is left.
		se, ok := codeFor(c.err, true)
		if !ok {
			continue
		}
		var byText *mysql.SQLError
		errors.As(SQLError(mysql.NewSQLError(mysql.ERUnknownError, mysql.SSUnknownSQLState, "%s", c.err.Error())), &byText)
		if byText == nil || byText.Num != se.Num || byText.State != se.State || byText.Message != se.Message {
			t.Errorf("%v by text: %v, by identity: %v", c.err, byText, se)
		}
	}
}
