package sqlengine

import "github.com/dolthub/go-mysql-server/sql"

// Session is one client connection's state.
type Session struct {
	*sql.BaseSession
}

func newSession(base *sql.BaseSession) *Session {
	s := &Session{BaseSession: base}
	s.SetCurrentDatabase("default")
	return s
}
