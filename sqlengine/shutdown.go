package sqlengine

import (
	"context"
	"fmt"
	"net"
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

// enterConn is enter for a statement of connection c: the statement counts
// as running until its answer has been handed to the operating system, not
// merely until the handler returns. vitess writes a statement's final OK or
// EOF packet and flushes it after the handler returns, so a drain released
// by the handler could let Shutdown return (and the process exit) with a
// committed statement's answer unsent; the client would then see its
// connection drop and not know the statement committed. The release waits
// for the connection's next write (flushConn), or its close.
func (d *drain) enterConn(c *mysql.Conn) (func(), error) {
	done, err := d.enter()
	if err != nil {
		return nil, err
	}
	fc := findFlushConn(c.Conn)
	if fc == nil {
		return done, nil
	}
	return func() { fc.releaseOnWrite(done) }, nil
}

// flushConn is an accepted connection that runs a pending release after
// its next write returns (the flush of a finished statement's answer) or
// when it closes.
type flushConn struct {
	net.Conn
	mu      sync.Mutex
	release func()
}

func (c *flushConn) releaseOnWrite(f func()) {
	c.mu.Lock()
	prev := c.release
	c.release = f
	c.mu.Unlock()
	if prev != nil { // not expected: every statement is answered
		prev()
	}
}

func (c *flushConn) takeRelease() {
	c.mu.Lock()
	f := c.release
	c.release = nil
	c.mu.Unlock()
	if f != nil {
		f()
	}
}

func (c *flushConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.takeRelease()
	return n, err
}

func (c *flushConn) Close() error {
	err := c.Conn.Close()
	c.takeRelease()
	return err
}

// findFlushConn finds the flushConn under c (TLS wraps it).
func findFlushConn(c net.Conn) *flushConn {
	for c != nil {
		switch x := c.(type) {
		case *flushConn:
			return x
		case interface{ NetConn() net.Conn }:
			c = x.NetConn()
		default:
			return nil
		}
	}
	return nil
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
	done, err := h.s.drain.enterConn(c)
	if err != nil {
		return err
	}
	defer done()
	return h.Handler.ComStmtExecute(ctx, c, prepare, callback)
}
