package provider

import (
	"errors"
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/snapshot"
)

// DDL sentinels. Errors of the DDL methods wrap one of these (or are a GMS
// error kind, so clients see the MySQL code: 1007, 1049, 1050, 1051, 1054,
// 1059, 1060). The schema rules and the catalog below report the same
// classes as *schema.ChangeError values (catalogError translates them).
var (
	// ErrReadOnly: the provider was opened read-only.
	ErrReadOnly = errors.New("provider: the server is read-only")
	// ErrUnsupportedDDL: the statement asks for something Paimon (or
	// lakesql) cannot do; the message names it.
	ErrUnsupportedDDL = schema.ErrUnsupportedChange
	// ErrInvalidDDL: a column, key or option of the statement is invalid.
	ErrInvalidDDL = schema.ErrInvalidSchema
	// ErrInvalidOptionValue: a table option is set to a value Paimon does
	// not allow (MySQL 1231, ER_WRONG_VALUE_FOR_VAR).
	ErrInvalidOptionValue = schema.ErrInvalidOptionValue
	// ErrSchemaConflict: another writer committed schema-N first and the
	// change could not be re-applied within the retry budget; retry the
	// statement.
	ErrSchemaConflict = snapshot.ErrSchemaConflict
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

// catalogError turns an error of the catalog or the schema rules into the
// error a DDL statement returns: a GMS error kind for the classes MySQL
// has a code for, else an error wrapping the class with a "lakesql: ..."
// message.
func catalogError(err error) error {
	var ce *schema.ChangeError
	if err == nil || !errors.As(err, &ce) {
		return mapError(err)
	}
	switch ce.Kind {
	case snapshot.ErrDatabaseNotFound:
		return sql.ErrDatabaseNotFound.New(ce.Name)
	case snapshot.ErrDatabaseExists:
		return sql.ErrDatabaseExists.New(ce.Name)
	case snapshot.ErrTableNotFound:
		return sql.ErrTableNotFound.New(ce.Name)
	case snapshot.ErrTableExists:
		return sql.ErrTableAlreadyExists.New(ce.Name)
	case schema.ErrColumnExists:
		return sql.ErrColumnExists.New(ce.Name)
	case schema.ErrColumnNotFound:
		return sql.ErrTableColumnNotFound.New("", ce.Name)
	case schema.ErrDuplicateColumn:
		return sql.ErrDuplicateColumn.New(ce.Name)
	case schema.ErrNameTooLong:
		return errIdentifierTooLong(ce.Name)
	}
	return &ddlError{kind: ce.Kind, msg: "lakesql: " + ce.Msg}
}

// errIdentifierTooLong is MySQL's 1059 (42000).
func errIdentifierTooLong(name string) error {
	return mysql.NewSQLError(mysql.ERTooLongIdent, mysql.SSClientError, "Identifier name '%s' is too long", truncate(name, 80))
}
