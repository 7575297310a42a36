package sqlengine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/dolthub/vitess/go/mysql"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/provider"
	"github.com/lakesql/lakesql/snapshot"
)

// A statement reads the snapshot that was the latest when it was planned.
// Another server may expire that snapshot while the statement runs (its
// snapshot.time-retained is shorter than the statement) and delete its
// files, or drop the table and create it again while this server still
// holds a handle of the old one. The read then fails on a file that is
// gone, although the table is fine (vanished.go answers 1146 when the
// table is gone). Such a statement is planned again, once, on the latest
// snapshot with fresh handles when nothing of it has reached the client
// yet and it runs outside a transaction (a statement that failed reading
// committed nothing, so running it again is running it later); otherwise
// the answer is errSnapshotExpired's, which says so.

// erTableDefChanged is MySQL's ER_TABLE_DEF_CHANGED ("please retry
// transaction"), the closest of MySQL's errors: the data the statement
// read changed under it in a way it cannot continue from.
const erTableDefChanged = 1412

// missingTableFile reports whether err says a file or schema of a table
// is gone, and the table ("db", "t") when the error names it.
func missingTableFile(err error) (db, table string, ok bool) {
	if err == nil {
		return "", "", false
	}
	msg := err.Error()
	if !strings.Contains(msg, storage.ErrNotExist.Error()) && !strings.Contains(msg, snapshot.ErrSchemaNotFound.Error()) {
		return "", "", false
	}
	m := tableDirRE.FindStringSubmatch(msg)
	if m == nil {
		// A schema a stale handle asked for (the table was created again
		// with fewer schemas), in an error that names no table (the
		// schema manager's name it).
		return "", "", strings.Contains(msg, snapshot.ErrSchemaNotFound.Error())
	}
	return m[1], m[2], true
}

// replannable reports whether the statement query, which failed with err
// (after vanishedTable) before anything was sent to the client, is run
// again: a missing file of a table that still exists, outside a
// transaction, and a statement that reads and writes only through a
// commit at its end.
func (s *Server) replannable(c *mysql.Conn, query string, sent bool, err error) bool {
	if sent {
		return false
	}
	if _, _, ok := missingTableFile(err); !ok {
		return false
	}
	sess := s.sessions.get(c.ConnectionID)
	if sess == nil || sess.GetIgnoreAutoCommit() || !sess.autocommit() {
		return false // in a transaction (BEGIN, or autocommit off)
	}
	if tx := sess.GetTransaction(); tx != nil {
		// The statement's own autocommit transaction, left by the failure:
		// its buffered writes go before the statement runs again.
		if t, ok := tx.(*provider.Transaction); ok {
			t.Rollback()
		}
		sess.SetTransaction(nil)
	}
	toks, lerr := lexLimit(query, mysqlDialect, 2)
	if lerr != nil || len(toks) == 0 {
		return false
	}
	for _, kw := range []string{"SELECT", "WITH", "INSERT", "REPLACE", "UPDATE", "DELETE", "TABLE", "VALUES", "MERGE"} {
		if toks[0].IsWord(kw) {
			return true
		}
	}
	return toks[0].IsSymbol("(") // (SELECT …) UNION …
}

// errSnapshotExpired rewrites a missing file of an existing table into
// 1412 saying that another writer expired the snapshot the statement read,
// when that is what happened: the table's earliest snapshot now is younger
// than the statement (the statement read the latest snapshot when it
// started, so that one is gone). Otherwise (a file lost from a live
// snapshot) the error stays, naming the file. The table handles are
// dropped either way: a stale one (the table created again by another
// server) is not used again.
func (s *Server) errSnapshotExpired(ctx context.Context, start time.Time, err error) error {
	db, table, ok := missingTableFile(err)
	if !ok || s.provider == nil {
		return err
	}
	s.provider.ForgetTables()
	if table == "" {
		return err
	}
	ctx = context.WithoutCancel(ctx)
	st := s.provider.Catalog().Storage().Sub(db + snapshot.DatabaseSuffix + "/" + table)
	earliest, eerr := snapshot.NewSnapshotManager(st, snapshot.MainBranch).Earliest(ctx)
	if eerr != nil || earliest.TimeMillis < start.UnixMilli() {
		return err
	}
	return mysql.NewSQLError(erTableDefChanged, mysql.SSUnknownSQLState, "%s", fmt.Sprintf(
		"Table '%s.%s': another writer expired the snapshot this statement was reading while it ran (its earliest snapshot is now %d, committed after the statement started); please retry (%v)",
		db, table, earliest.ID, err))
}
