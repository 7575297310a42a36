package snapshot

import (
	"errors"
	"fmt"
)

// Sentinel errors of the package. Every error returned by this package that
// falls in one of these classes wraps the sentinel, so errors.Is works.
var (
	// ErrCorrupt is wrapped by every decoder error: a metadata file
	// (snapshot, tag, consumer, hint or schema) that is not what Paimon
	// writes.
	ErrCorrupt = errors.New("snapshot: corrupt metadata file")
	// ErrSnapshotNotFound is returned when a snapshot id does not exist (or
	// a table has no snapshot at all).
	ErrSnapshotNotFound = errors.New("snapshot: snapshot not found")
	// ErrSchemaNotFound is returned when a schema id does not exist.
	ErrSchemaNotFound = errors.New("snapshot: schema not found")
	// ErrTagNotFound is returned when a tag does not exist.
	ErrTagNotFound = errors.New("snapshot: tag not found")
	// ErrTagExists is returned when creating a tag whose name is taken.
	ErrTagExists = errors.New("snapshot: tag already exists")
	// ErrBranchNotFound is returned when a branch does not exist.
	ErrBranchNotFound = errors.New("snapshot: branch not found")
	// ErrBranchExists is returned when creating a branch whose name is
	// taken.
	ErrBranchExists = errors.New("snapshot: branch already exists")
	// ErrConsumerNotFound is returned when a consumer does not exist.
	ErrConsumerNotFound = errors.New("snapshot: consumer not found")
	// ErrConflict is returned when an atomic create lost the race: another
	// writer created the same snapshot-N or schema-N first. The caller must
	// re-read the latest state, re-plan and retry.
	ErrConflict = errors.New("snapshot: commit conflict")
	// ErrDatabaseNotFound, ErrDatabaseExists, ErrTableNotFound and
	// ErrTableExists are the catalog's (Catalog); its errors are
	// *schema.ChangeError values naming the database or table.
	ErrDatabaseNotFound = errors.New("snapshot: database not found")
	ErrDatabaseExists   = errors.New("snapshot: database already exists")
	ErrTableNotFound    = errors.New("snapshot: table not found")
	ErrTableExists      = errors.New("snapshot: table already exists")
	// ErrTableDropped is returned by a commit whose table was dropped (or
	// dropped and created again) while it ran: nothing was committed and
	// the commit's files were removed. It wraps ErrTableNotFound.
	ErrTableDropped = fmt.Errorf("%w: the table was dropped while the commit ran", ErrTableNotFound)
	// ErrSchemaConflict is returned when a schema change lost the race for
	// schema-N more often than Catalog.AlterTable retries; retry the
	// statement.
	ErrSchemaConflict = errors.New("snapshot: concurrent schema change, retry the statement")
	// ErrInvalidName is returned for a tag, branch or consumer name that
	// cannot be used as a file name.
	ErrInvalidName = errors.New("snapshot: invalid name")
	// ErrInvalidConfig is returned for maintenance settings that cannot be
	// applied (retainMin < 1, retainMax < retainMin, …).
	ErrInvalidConfig = errors.New("snapshot: invalid maintenance settings")
)
