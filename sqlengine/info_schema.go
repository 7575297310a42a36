package sqlengine

import (
	"github.com/dolthub/go-mysql-server/sql"
)

// infoSchema is GMS's information_schema database reporting the collation
// its columns have, as MySQL 8.0 does (SCHEMATA says utf8mb3_general_ci for
// information_schema): GMS v0.20.0 reports the server default
// utf8mb4_0900_bin, and MySQL Connector/J then builds
// `IS_NULLABLE COLLATE utf8mb4_0900_bin = 'NO'` for DatabaseMetaData
// getColumns, which fails on the utf8mb3 column.
type infoSchema struct{ sql.Database }

var _ sql.CollatedDatabase = infoSchema{}

// GetCollation implements sql.CollatedDatabase.
func (infoSchema) GetCollation(*sql.Context) sql.CollationID {
	return sql.Collation_Information_Schema_Default
}

// SetCollation implements sql.CollatedDatabase: information_schema cannot
// be altered, as in MySQL.
func (infoSchema) SetCollation(*sql.Context, sql.CollationID) error {
	return sql.ErrDatabaseWriteLocked.New()
}
