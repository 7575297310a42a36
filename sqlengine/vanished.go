package sqlengine

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/dolthub/vitess/go/mysql"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot"
)

// A statement that reads or writes a table while another server drops it
// finds the table's files going away under it: a manifest, a snapshot or
// the schema is missing. When the table is gone by the time the statement
// fails, the answer is MySQL's 1146 for that table (what MySQL answers
// for a table dropped before the statement), not the missing file: nothing
// is wrong with the warehouse. A missing file of a table that still exists
// keeps its error, which names the file.

// tableDirRE finds "<db>.db/<table>/" in a storage path of an error, or
// "<db>.db/<table>:" where a commit names its table.
var tableDirRE = regexp.MustCompile(`([^/\s'"]+)\.db/([^/\s'":]+)[/:]`)

// vanishedTable returns 1146 for err when it is a missing file of a table
// that no longer exists, or that was created again after the statement
// started, else err.
func (s *Server) vanishedTable(ctx context.Context, start time.Time, err error) error {
	if err == nil || s.provider == nil {
		return err
	}
	msg := err.Error()
	if errors.Is(err, snapshot.ErrTableDropped) || strings.Contains(msg, snapshot.ErrTableDropped.Error()) { // mapped to 1146 already, inside
		// A commit found its table dropped, or dropped and created again,
		// by another server: the handle it wrote through is stale, and the
		// next statements must resolve the table afresh (a retry writes
		// into the new table).
		s.provider.ForgetTables()
		if m := tableDirRE.FindStringSubmatch(msg); m != nil {
			return mysql.NewSQLError(mysql.ERNoSuchTable, mysql.SSUnknownTable,
				"%s", fmt.Sprintf("Table '%s.%s' doesn't exist (another server dropped it, or dropped and created it again, while the statement ran)", m[1], m[2]))
		}
		return err
	}
	if !strings.Contains(msg, storage.ErrNotExist.Error()) && !strings.Contains(msg, snapshot.ErrSchemaNotFound.Error()) &&
		!strings.Contains(msg, snapshot.ErrTableDropped.Error()) {
		return err
	}
	m := tableDirRE.FindStringSubmatch(msg)
	if m == nil {
		return err
	}
	db, table := m[1], m[2]
	cat := s.provider.Catalog()
	ctx = context.WithoutCancel(ctx)
	data, rerr := cat.Storage().ReadAll(ctx, db+snapshot.DatabaseSuffix+"/"+table+"/"+snapshot.SchemaDir("")+"/"+snapshot.SchemaFileName(0))
	switch {
	case errors.Is(rerr, storage.ErrNotExist): // dropped
	case rerr != nil:
		return err
	default:
		// Dropped and created again while the statement ran: its
		// schema-0 is younger than the statement.
		ts, derr := schema.DecodeTableSchema(data)
		if derr != nil || ts.TimeMillis < start.UnixMilli() {
			return err
		}
	}
	// Gone: the names and handles cached for it go too.
	s.provider.ForgetTables()
	return mysql.NewSQLError(mysql.ERNoSuchTable, mysql.SSUnknownTable,
		"%s", fmt.Sprintf("Table '%s.%s' doesn't exist (it was dropped while the statement ran)", db, table))
}
