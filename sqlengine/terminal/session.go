package terminal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/lakesql/lakesql/sqlengine"
)

// Options configure a Session.
type Options struct {
	// Engine configures the embedded server (Embedded is forced on, and
	// LOAD DATA LOCAL is allowed: the file is the user's own).
	Engine sqlengine.Config
	// User logs in from localhost (default root), as a MySQL client on the
	// server's socket would; the account must exist.
	User string
	// Database is the current database at start ("" for the server's
	// default).
	Database string
}

// Session is an embedded server and one connection to it: session state
// (USE, SET, transactions) carries from one statement to the next.
type Session struct {
	srv  *sqlengine.Server
	db   *sql.DB
	conn *sql.Conn
	done chan error
}

// Open starts an embedded server over the warehouse and connects to it.
func Open(ctx context.Context, opts Options) (*Session, error) {
	cfg := opts.Engine
	cfg.Embedded = true
	cfg.Security.LocalInfile = true
	srv, err := sqlengine.New(ctx, cfg)
	if err != nil {
		return nil, err
	}
	s := &Session{srv: srv, done: make(chan error, 1)}
	go func() { s.done <- srv.Start() }()
	user := opts.User
	if user == "" {
		user = "root"
	}
	if s.db, err = srv.OpenDB(user, "localhost", opts.Database, nil); err != nil {
		s.Close()
		return nil, err
	}
	s.db.SetMaxOpenConns(1)
	if s.conn, err = s.db.Conn(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("terminal: connect as %s@localhost: %w", user, err)
	}
	return s, nil
}

// Close ends the connection and stops the server.
func (s *Session) Close() error {
	var errs []error
	if s.conn != nil {
		errs = append(errs, s.conn.Close())
	}
	if s.db != nil {
		errs = append(errs, s.db.Close())
	}
	errs = append(errs, s.srv.Close())
	<-s.done
	return errors.Join(errs...)
}
