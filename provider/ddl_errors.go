package provider

import (
	"errors"
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/snapshot"
)

// DDL sentinels. Errors of the DDL methods wrap one of these (or a GMS error
// kind, so clients see the MySQL code: 1007, 1049, 1050, 1051, 1054, 1060).
var (
	// ErrReadOnly: the provider was opened read-only.
	ErrReadOnly = errors.New("provider: the server is read-only")
	// ErrUnsupportedDDL: the statement asks for something Paimon (or
	// lakesql) cannot do; the message names it.
	ErrUnsupportedDDL = errors.New("provider: unsupported DDL")
	// ErrInvalidDDL: a column, key or option of the statement is invalid.
	ErrInvalidDDL = errors.New("provider: invalid DDL")
	// ErrInvalidOptionValue: a table option is set to a value Paimon does
	// not allow (MySQL 1231, ER_WRONG_VALUE_FOR_VAR); it wraps ErrInvalidDDL.
	ErrInvalidOptionValue = fmt.Errorf("%w: option value", ErrInvalidDDL)
	// ErrSchemaConflict: another writer committed schema-N first and the
	// change could not be re-applied within the retry budget; retry the
	// statement.
	ErrSchemaConflict = errors.New("provider: concurrent schema change, retry the statement")
)

// ddlErr builds an error wrapping kind with a "lakesql: ..." message.
func ddlErr(kind error, format string, args ...any) error {
	return &ddlError{kind: kind, msg: "lakesql: " + fmt.Sprintf(format, args...)}
}

type ddlError struct {
	kind error
	msg  string
}

func (e *ddlError) Error() string { return e.msg }
func (e *ddlError) Unwrap() error { return e.kind }

// mapDDLError turns lower-level errors of a DDL path into messages a MySQL
// client can act on.
func mapDDLError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, schema.ErrInvalidOption), errors.Is(err, schema.ErrInvalidSchema):
		return &ddlError{kind: ErrInvalidDDL, msg: "lakesql: " + err.Error()}
	case errors.Is(err, snapshot.ErrConflict):
		return &ddlError{kind: ErrSchemaConflict, msg: "lakesql: " + err.Error() + " (retry the statement)"}
	}
	return mapError(err)
}

// errTableExists and friends build GMS error kinds (MySQL codes).
func errTableExists(name string) error   { return sql.ErrTableAlreadyExists.New(name) }
func errTableNotFound(name string) error { return sql.ErrTableNotFound.New(name) }

// maxIdentifierLength is MySQL's limit on database, table and column names.
const maxIdentifierLength = 64

// errIdentifierTooLong is MySQL's 1059 (42000).
func errIdentifierTooLong(name string) error {
	return mysql.NewSQLError(mysql.ERTooLongIdent, mysql.SSClientError, "Identifier name '%s' is too long", truncate(name, 80))
}
