package provider

import (
	"slices"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"

	"github.com/lakesql/lakesql/internal/schema"
)

// Key and partition columns whose type maps to a TEXT or BLOB type
// (STRING, VARCHAR(n > 16383), CHAR(n > 255), BYTES, …) are shown as
// VARCHAR(16383) / VARBINARY(65535) instead: MySQL cannot key a TEXT/BLOB
// column without a prefix length, so MySQL tools refuse "longtext … PRI".
// These are the widest VARCHAR (utf8mb4) and VARBINARY MySQL has; a longer
// value in such a column is read as it is but cannot be written through
// lakesql (error 1406). Documented in the README's type mapping.
const (
	maxKeyVarChar   = 16383
	maxKeyVarBinary = 65535
)

// columnSQLType is the GMS type of a table column: sqlType, narrowed to a
// keyable type for primary-key and partition columns.
func columnSQLType(t *schema.DataType, key bool) (sql.Type, error) {
	st, err := sqlType(t)
	if err != nil || !key {
		return st, err
	}
	switch t.Root {
	case schema.TypeChar, schema.TypeVarChar:
		if types.IsTextBlob(st) {
			return types.CreateString(sqltypes.VarChar, int64(min(t.Length, maxKeyVarChar)), sql.Collation_Default)
		}
	case schema.TypeBinary, schema.TypeVarBinary:
		if types.IsTextBlob(st) {
			return types.CreateBinary(sqltypes.VarBinary, int64(min(t.Length, maxKeyVarBinary)))
		}
	}
	return st, nil
}

// IsKeyColumn reports whether a column is a primary-key or partition column
// of ts (those get a keyable MySQL type).
func IsKeyColumn(ts *schema.TableSchema, name string) bool {
	return slices.Contains(ts.PrimaryKeys, name) || slices.Contains(ts.PartitionKeys, name)
}

// MySQLColumnType is the lower-case MySQL type of column f of ts, as
// DESCRIBE, information_schema.COLUMNS and the MySQL form of SHOW CREATE
// TABLE show it ("bigint", "varchar(10)", "datetime(3)", "json", …).
func MySQLColumnType(ts *schema.TableSchema, f *schema.DataField) (string, error) {
	st, err := columnSQLType(&f.Type, IsKeyColumn(ts, f.Name))
	if err != nil {
		return "", mapError(err)
	}
	return st.String(), nil
}
