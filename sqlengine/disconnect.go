package sqlengine

import (
	"context"
	"errors"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/netutil"
)

// A client that disconnects while its statement runs stops the statement:
// the statement's context is canceled (scans, joins, sorts and aggregates
// stop at their next check of it; the statement fails with 1317, which
// nobody reads). MySQL notices the same way, when the statement next
// checks its connection. GMS's own checker (Handler.pollForClosedConnection)
// only runs for statements that stream rows and only on a bare
// *net.TCPConn, which the server's connections are not (flushConn).
//
// A statement that runs longer than disconnectGrace gets a watcher that
// peeks at its socket every disconnectPoll without consuming anything: end
// of stream, a reset, or a pending COM_QUIT means the client is gone.

const (
	disconnectGrace = 100 * time.Millisecond
	disconnectPoll  = 100 * time.Millisecond
)

// errClientGone is the cause of a statement canceled by its client's
// disconnect.
var errClientGone = errors.New("sqlengine: the client closed the connection")

// connWatch is a connection's disconnect watcher, made on its first
// statement and kept in its connData (conn_data.go): one timer per
// connection, re-armed by each statement (a timer and a channel per
// statement cost a point query ~2.5% of its CPU).
type connWatch struct {
	rc syscall.RawConn
	t  *time.Timer

	mu sync.Mutex
	// cancel is the running statement's, nil between statements.
	cancel context.CancelCauseFunc // guarded by mu
	// polling says that a poll loop runs: it watches whichever statement
	// runs, until none does.
	polling bool // guarded by mu
}

// watchDisconnect cancels the statement (cancel) when c's client
// disconnects before stop is called.
func watchDisconnect(c *mysql.Conn, cancel context.CancelCauseFunc) (stop func()) {
	d := dataOf(c) // conn_data.go
	w := d.watch
	if w == nil {
		sc := rawConn(c.Conn)
		if sc == nil {
			return func() {}
		}
		rc, err := sc.SyscallConn()
		if err != nil {
			return func() {}
		}
		w = &connWatch{rc: rc}
		w.t = time.AfterFunc(time.Hour, w.fire)
		w.t.Stop()
		d.watch = w
	}
	w.mu.Lock()
	w.cancel = cancel
	w.mu.Unlock()
	w.t.Reset(disconnectGrace)
	return w.stop
}

// stop ends the watch of the running statement.
func (w *connWatch) stop() {
	w.t.Stop()
	w.mu.Lock()
	w.cancel = nil
	w.mu.Unlock()
}

// closeWatch stops c's watcher when its connection closes.
func closeWatch(c *mysql.Conn) {
	if d, _ := c.ClientData.(*connData); d != nil && d.watch != nil {
		d.watch.stop()
	}
}

// fire runs when a statement has run for disconnectGrace: it peeks at the
// socket every disconnectPoll while a statement runs. A statement that
// ended between the timer's firing and this check is not watched; the one
// after it is, by the same loop (or by its own timer).
func (w *connWatch) fire() {
	w.mu.Lock()
	if w.cancel == nil || w.polling {
		w.mu.Unlock()
		return
	}
	w.polling = true
	w.mu.Unlock()
	tick := time.NewTicker(disconnectPoll)
	defer tick.Stop()
	for {
		w.mu.Lock()
		cancel := w.cancel
		if cancel == nil {
			w.polling = false
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()
		if clientGone(w.rc) {
			cancel(errClientGone)
			w.mu.Lock()
			w.polling = false
			w.mu.Unlock()
			return
		}
		<-tick.C
	}
}

// rawConn finds the socket below the server's connection wrappers.
func rawConn(c net.Conn) syscall.Conn {
	for range 8 {
		switch x := c.(type) {
		case *flushConn:
			c = x.Conn
		case netutil.ConnWithTimeouts:
			c = x.Conn
		case *netutil.ConnWithTimeouts:
			c = x.Conn
		case interface{ NetConn() net.Conn }: // TLS
			c = x.NetConn()
		case syscall.Conn:
			return x
		default:
			return nil
		}
	}
	return nil
}

// comQuit is a client's COM_QUIT packet (length 1, sequence 0, 0x01).
var comQuit = [5]byte{1, 0, 0, 0, 1}

// clientGone peeks at the socket without blocking or consuming.
func clientGone(rc syscall.RawConn) bool {
	var gone bool
	_ = rc.Control(func(fd uintptr) {
		var buf [8]byte
		n, _, err := syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		switch {
		case err == nil && n == 0: // end of stream
			gone = true
		case err == nil:
			gone = n == len(comQuit) && [5]byte(buf[:5]) == comQuit
		case errors.Is(err, syscall.EAGAIN), errors.Is(err, syscall.EINTR):
		default: // reset, or not a socket any more
			gone = !errors.Is(err, syscall.ENOTSOCK)
		}
	})
	return gone
}
