package provider

import (
	"fmt"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
)

// With accounts enabled, GMS wraps every database in
// mysql_db.PrivilegedDatabase, which claims the optional database
// interfaces (views, triggers, stored procedures, events, collations) and
// answers "not supported" errors for the ones the database lacks — even to
// lookups, so a missing table became "database 'x' doesn't support views"
// instead of 1146. Database implements them here: lookups find nothing,
// and creating a view, trigger, procedure or event is refused with a clear
// error (lakesql has nowhere to keep them yet; a session-only view that
// vanished on restart was worse).
var (
	_ sql.TriggerDatabase          = (*Database)(nil)
	_ sql.StoredProcedureDatabase  = (*Database)(nil)
	_ sql.EventDatabase            = (*Database)(nil)
	_ sql.CollatedDatabase         = (*Database)(nil)
	_ sql.CollatedDatabaseProvider = (*Provider)(nil)
)

func errNotKept(what string) error {
	return sql.ErrUnsupportedFeature.New(fmt.Sprintf("lakesql does not store %s yet (a Paimon warehouse has no place for them)", what))
}

// Views: views.go.

// GetTriggers implements sql.TriggerDatabase: there are none.
func (d *Database) GetTriggers(*sql.Context) ([]sql.TriggerDefinition, error) { return nil, nil }

// CreateTrigger implements sql.TriggerDatabase.
func (d *Database) CreateTrigger(*sql.Context, sql.TriggerDefinition) error {
	return errNotKept("triggers")
}

// DropTrigger implements sql.TriggerDatabase.
func (d *Database) DropTrigger(_ *sql.Context, name string) error {
	return sql.ErrTriggerDoesNotExist.New(name)
}

// GetStoredProcedure implements sql.StoredProcedureDatabase.
func (d *Database) GetStoredProcedure(*sql.Context, string) (sql.StoredProcedureDetails, bool, error) {
	return sql.StoredProcedureDetails{}, false, nil
}

// GetStoredProcedures implements sql.StoredProcedureDatabase.
func (d *Database) GetStoredProcedures(*sql.Context) ([]sql.StoredProcedureDetails, error) {
	return nil, nil
}

// SaveStoredProcedure implements sql.StoredProcedureDatabase.
func (d *Database) SaveStoredProcedure(*sql.Context, sql.StoredProcedureDetails) error {
	return errNotKept("stored procedures")
}

// DropStoredProcedure implements sql.StoredProcedureDatabase.
func (d *Database) DropStoredProcedure(_ *sql.Context, name string) error {
	return sql.ErrStoredProcedureDoesNotExist.New(name)
}

// GetEvent implements sql.EventDatabase.
func (d *Database) GetEvent(*sql.Context, string) (sql.EventDefinition, bool, error) {
	return sql.EventDefinition{}, false, nil
}

// GetEvents implements sql.EventDatabase.
func (d *Database) GetEvents(*sql.Context) ([]sql.EventDefinition, any, error) { return nil, nil, nil }

// SaveEvent implements sql.EventDatabase.
func (d *Database) SaveEvent(*sql.Context, sql.EventDefinition) (bool, error) {
	return false, errNotKept("events")
}

// DropEvent implements sql.EventDatabase.
func (d *Database) DropEvent(_ *sql.Context, name string) error {
	return sql.ErrEventDoesNotExist.New(name)
}

// UpdateEvent implements sql.EventDatabase.
func (d *Database) UpdateEvent(*sql.Context, string, sql.EventDefinition) (bool, error) {
	return false, errNotKept("events")
}

// NeedsToReloadEvents implements sql.EventDatabase.
func (d *Database) NeedsToReloadEvents(*sql.Context, any) (bool, error) { return false, nil }

// UpdateLastExecuted implements sql.EventDatabase.
func (d *Database) UpdateLastExecuted(*sql.Context, string, time.Time) error { return nil }

// GetCollation implements sql.CollatedDatabase: lakesql's strings are
// UTF-8 (utf8mb4_0900_bin, GMS's default).
func (d *Database) GetCollation(*sql.Context) sql.CollationID { return sql.Collation_Default }

// SetCollation implements sql.CollatedDatabase: Paimon keeps no database
// collation, so it is ignored (as it was before accounts wrapped the
// database).
func (d *Database) SetCollation(*sql.Context, sql.CollationID) error { return nil }

// CreateCollatedDatabase implements sql.CollatedDatabaseProvider; the
// collation is ignored (see SetCollation).
func (p *Provider) CreateCollatedDatabase(ctx *sql.Context, name string, _ sql.CollationID) error {
	return p.CreateDatabase(ctx, name)
}
