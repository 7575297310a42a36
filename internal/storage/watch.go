package storage

import (
	"context"
	"time"
)

// DirWatcher is the optional capability of telling, without touching the
// folder, that none of its objects changed: the local store on a local
// file system implements it with inotify (watch_linux.go). The snapshot
// and schema managers use it to confirm their latest snapshot and schema
// with one system call per statement instead of four existence checks.
type DirWatcher interface {
	// DirVersion returns the version of folder dir (relative to the
	// store). ok is false when the store cannot watch dir (a missing
	// folder, a file system it does not trust, a watch limit reached):
	// the caller checks the objects themselves. While later calls return
	// the same version, no object of dir was created, written, renamed or
	// deleted, and dir itself was not moved, since the first call that
	// returned it. Every change completed before StatementStart(ctx) is
	// counted.
	DirVersion(ctx context.Context, dir string) (version uint64, ok bool)
}

type statementStartKey struct{}

// WithStatementStart records in ctx when the statement reading through it
// started: a DirWatcher may then answer from the changes it collected
// since that time instead of collecting them again (every commit
// acknowledged before the statement started is still seen).
func WithStatementStart(ctx context.Context, t time.Time) context.Context {
	return context.WithValue(ctx, statementStartKey{}, t)
}

// StatementStart is the start recorded by WithStatementStart, or now.
func StatementStart(ctx context.Context) time.Time {
	if t, ok := ctx.Value(statementStartKey{}).(time.Time); ok {
		return t
	}
	return time.Now()
}

var _ DirWatcher = (*locked)(nil)

func (s *locked) DirVersion(ctx context.Context, dir string) (uint64, bool) {
	if w, ok := s.st.(DirWatcher); ok {
		return w.DirVersion(ctx, dir)
	}
	return 0, false
}
