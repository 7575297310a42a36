package provider

import (
	"errors"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/lakesql/lakesql/lsmread"
)

// mapError turns engine errors into GMS error kinds, so clients see MySQL
// error codes. Errors without a better code stay as they are (1105).
func mapError(err error) error {
	if err == nil {
		return nil
	}
	switch {
	case errors.Is(err, lsmread.ErrInvalidRange):
		return mysql.NewSQLError(mysql.ERWrongArguments, mysql.SSClientError, "%s", err.Error())
	case errors.Is(err, lsmread.ErrInvalidScan):
		return sql.ErrColumnNotFound.New(err.Error())
	}
	return err
}
