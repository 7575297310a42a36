package sqlengine

import (
	"context"
	"fmt"
	"sync"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
)

// Graceful shutdown. Every statement a connection runs (COM_QUERY, COM_STMT_EXECUTE)
// is counted while it runs; Shutdown closes the listener, refuses statements
// that arrive afterwards with MySQL's 1053 (ER_SERVER_SHUTDOWN), and waits
// for the running ones — and so for the commits they make — to finish,
// before the warehouse is released. Idle connections are dropped, as MySQL
// drops them on shutdown.

type drain struct {
	mu      sync.Mutex
	running int
	closing bool
	idle    chan struct{} // closed when closing and running reaches 0
}

var errShuttingDown = mysql.NewSQLError(mysql.ERServerShutdown, "08S01", "Server shutdown in progress")

// enter registers a running statement; the returned func ends it.
func (d *drain) enter() (func(), error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closing {
		return nil, errShuttingDown
	}
	d.running++
	return func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		d.running--
		if d.closing && d.running == 0 && d.idle != nil {
			close(d.idle)
			d.idle = nil
		}
	}, nil
}

// stop refuses new statements and returns a channel closed when none runs
// and the number running now.
func (d *drain) stop() (<-chan struct{}, int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closing = true
	ch := make(chan struct{})
	if d.running == 0 {
		close(ch)
	} else {
		d.idle = ch
	}
	return ch, d.running
}

// Shutdown stops accepting connections, lets running statements finish
// (until ctx is done) and releases the warehouse. It returns ctx's error
// when statements were still running at the deadline (they are abandoned;
// a commit that had not published its snapshot leaves only unreferenced
// files, which Paimon's orphan-file cleanup removes).
func (s *Server) Shutdown(ctx context.Context) (running int, err error) {
	s.srv.Close()
	idle, running := s.drain.stop()
	select {
	case <-idle:
	case <-ctx.Done():
		err = fmt.Errorf("sqlengine: statements still running at the shutdown deadline: %w", ctx.Err())
	}
	// Background compactions are cancelled, not waited for: they delete
	// their own files, and the next commit schedules them again.
	s.compact.Close()
	if cerr := s.store.Close(); err == nil {
		err = cerr
	}
	return running, err
}

// ComStmtExecute counts a prepared statement's execution for Shutdown.
func (h *ddlHandler) ComStmtExecute(ctx context.Context, c *mysql.Conn, prepare *mysql.PrepareData, callback func(*sqltypes.Result) error) error {
	done, err := h.s.drain.enter()
	if err != nil {
		return err
	}
	defer done()
	return h.Handler.ComStmtExecute(ctx, c, prepare, callback)
}
