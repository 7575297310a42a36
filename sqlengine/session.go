package sqlengine

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/provider"
)

// Session is one client connection's state. It is a sql.TransactionSession:
// GMS starts a transaction before each statement (or at BEGIN) and commits
// it after the statement in autocommit mode (or at COMMIT); lakesql commits
// one Paimon snapshot per written table then.
type Session struct {
	*sql.BaseSession
	shape atomic.Value // *resultShape of the last analyzed statement (protocol.go)
	// noResultsCharset: character_set_results was set to NULL (results
	// are sent without conversion); GMS keeps '' and reads that back.
	noResultsCharset atomic.Bool
	// spliced is the INSERT in flight through the splice front
	// (insert_splice.go), read by the direct INSERT node's rule.
	spliced atomic.Pointer[splicedStmt]
}

var (
	_ sql.TransactionSession    = (*Session)(nil)
	_ sql.LifecycleAwareSession = (*Session)(nil)
)

func newSession(base *sql.BaseSession) *Session {
	s := &Session{BaseSession: base}
	s.SetCurrentDatabase(provider.DefaultDatabase)
	return s
}

// txVariablePairs are the system variables MySQL keeps as two names of
// one setting.
var txVariablePairs = map[string]string{
	"tx_isolation": "transaction_isolation", "transaction_isolation": "tx_isolation",
	"tx_read_only": "transaction_read_only", "transaction_read_only": "tx_read_only",
}

// SetSessionVariable implements sql.Session: tx_isolation and
// transaction_isolation (and tx_read_only / transaction_read_only) are one
// setting, as in MySQL.
func (s *Session) SetSessionVariable(ctx *sql.Context, name string, val interface{}) error {
	if err := s.BaseSession.SetSessionVariable(ctx, name, val); err != nil {
		return err
	}
	if strings.EqualFold(name, "character_set_results") {
		s.noResultsCharset.Store(val == nil)
	}
	if other, ok := txVariablePairs[strings.ToLower(name)]; ok {
		if v, err := s.BaseSession.GetSessionVariable(ctx, name); err == nil {
			return s.BaseSession.SetSessionVariable(ctx, other, v)
		}
	}
	return nil
}

// GetSessionVariable implements sql.Session: character_set_results set to
// NULL reads back as NULL, as in MySQL (SET character_set_results = NULL
// is how clients ask for results without conversion).
func (s *Session) GetSessionVariable(ctx *sql.Context, name string) (interface{}, error) {
	if s.noResultsCharset.Load() && strings.EqualFold(name, "character_set_results") {
		return nil, nil
	}
	return s.BaseSession.GetSessionVariable(ctx, name)
}

// autocommit reports the session's autocommit (on unless set off).
func (s *Session) autocommit() bool {
	if v, err := s.GetSessionVariable(nil, "autocommit"); err == nil {
		if b, err := sql.ConvertToBool(nil, v); err == nil {
			return b
		}
	}
	return true
}

// StartTransaction implements sql.TransactionSession. A transaction is
// read-only with START TRANSACTION READ ONLY, or when the session's
// transaction_read_only is on (SET SESSION TRANSACTION READ ONLY), which
// covers the implicit transaction of every autocommit statement too; a
// write in it fails with 1792, as in MySQL.
func (s *Session) StartTransaction(ctx *sql.Context, tc sql.TransactionCharacteristic) (sql.Transaction, error) {
	return provider.NewTransaction(tc == sql.ReadOnly || sessionReadOnly(ctx)), nil
}

// sessionReadOnly reports whether the session variable
// transaction_read_only is on.
func sessionReadOnly(ctx *sql.Context) bool {
	v, err := ctx.GetSessionVariable(ctx, "transaction_read_only")
	if err != nil {
		return false
	}
	switch x := v.(type) {
	case int8:
		return x != 0
	case int64:
		return x != 0
	case bool:
		return x
	}
	return fmt.Sprint(v) == "1"
}

// CommitTransaction implements sql.TransactionSession. A conflict with a
// concurrent commit is reported as MySQL error 1213, which clients retry.
func (s *Session) CommitTransaction(ctx *sql.Context, tx sql.Transaction) error {
	t, ok := tx.(*provider.Transaction)
	if !ok {
		return fmt.Errorf("lakesql: unexpected transaction %T", tx)
	}
	return provider.SQLError(t.Commit(ctx)) // a conflict is 1213, which clients retry

}

// Rollback implements sql.TransactionSession: buffered writes are dropped.
func (s *Session) Rollback(ctx *sql.Context, tx sql.Transaction) error {
	if t, ok := tx.(*provider.Transaction); ok {
		t.Rollback()
	}
	return nil
}

var errSavepoint = errors.New("lakesql: SAVEPOINT is not supported (a transaction commits or rolls back as a whole)")

// CreateSavepoint implements sql.TransactionSession.
func (s *Session) CreateSavepoint(*sql.Context, sql.Transaction, string) error { return errSavepoint }

// RollbackToSavepoint implements sql.TransactionSession.
func (s *Session) RollbackToSavepoint(*sql.Context, sql.Transaction, string) error {
	return errSavepoint
}

// ReleaseSavepoint implements sql.TransactionSession.
func (s *Session) ReleaseSavepoint(*sql.Context, sql.Transaction, string) error { return errSavepoint }

// CommandBegin implements sql.LifecycleAwareSession.
func (s *Session) CommandBegin() error { return nil }

// CommandEnd implements sql.LifecycleAwareSession.
func (s *Session) CommandEnd() {}

// SessionEnd implements sql.LifecycleAwareSession: a dropped connection
// discards its open transaction.
func (s *Session) SessionEnd() {
	if t, ok := s.GetTransaction().(*provider.Transaction); ok && t != nil {
		t.Rollback()
	}
}

// Warnings lists the warnings of the last statement in the order they
// were raised, as MySQL's SHOW WARNINGS does (row 1's before row 2's);
// GMS v0.20.0's BaseSession lists them newest first. BaseSession returns
// a fresh slice, so it is reversed in place.
func (s *Session) Warnings() []*sql.Warning {
	w := s.BaseSession.Warnings()
	slices.Reverse(w)
	return w
}
