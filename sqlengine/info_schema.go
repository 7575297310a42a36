package sqlengine

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/information_schema"
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

// paimonTablesTable is GMS's information_schema.TABLES with Engine Paimon
// for lakesql's tables, as SHOW CREATE TABLE says (GMS v0.20.0 hard-codes
// InnoDB). GMS offers information_schema.NewTablesTable as the hook for a
// backend's TABLES (a process-wide one; lakesql has one catalog kind).
func init() {
	mysqlTables := information_schema.NewTablesTable
	information_schema.NewTablesTable = func() *information_schema.InformationSchemaTable {
		t := mysqlTables()
		read := t.Reader
		t.Reader = func(ctx *sql.Context, cat sql.Catalog) (sql.RowIter, error) {
			it, err := read(ctx, cat)
			if err != nil {
				return nil, err
			}
			return &engineRows{RowIter: it}, nil
		}
		return t
	}
}

type engineRows struct{ sql.RowIter }

// engineColumn is the position of ENGINE in information_schema.TABLES.
const engineColumn = 4

func (r *engineRows) Next(ctx *sql.Context) (sql.Row, error) {
	row, err := r.RowIter.Next(ctx)
	if err == nil && len(row) > engineColumn && row[engineColumn] == "InnoDB" {
		row = append(sql.Row(nil), row...)
		row[engineColumn] = "Paimon"
	}
	return row, err
}
