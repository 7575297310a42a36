package provider

import "github.com/dolthub/go-mysql-server/sql"

// Every table is a sql.TemporaryTable that is not temporary. GMS v0.20.0's
// read-only-transaction check (validateReadOnlyTransaction) calls
// IsTemporary on the target of a write without checking that the table
// implements the interface, and panicked (dropping the connection) on a
// write inside START TRANSACTION READ ONLY; with it the write fails with
// error 1792 (ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION), as in MySQL.
var (
	_ sql.TemporaryTable = (*Table)(nil)
	_ sql.TemporaryTable = (*sysTable)(nil)
	_ sql.TemporaryTable = (*unreadableTable)(nil)
)

// IsTemporary implements sql.TemporaryTable: Paimon tables are never temporary.
func (t *Table) IsTemporary() bool { return false }

// IsTemporary implements sql.TemporaryTable.
func (t *sysTable) IsTemporary() bool { return false }

// IsTemporary implements sql.TemporaryTable.
func (t *unreadableTable) IsTemporary() bool { return false }
