package sqlengine

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"syscall"

	"github.com/go-sql-driver/mysql"

	"github.com/lakesql/lakesql/sqlengine/access"
)

// In-process connections. The Flight SQL endpoint and the terminal
// (lakesql sql / shell / load) run statements through the same handler
// chain as MySQL clients — the fronts, access checks, process list, KILL,
// metrics and the slow-query log — over connections that never touch the
// network: each is a connected pair of Unix-domain sockets (socketpair(2))
// whose server end the listener accepts beside its TCP connections. The
// server end names the account it logs in as (access.InternalAddr), which
// the authentication trusts: only code in this process can make one, after
// it has authenticated the user itself (Flight SQL's basic auth) or when
// the user owns the process (the terminal runs as root@localhost, like a
// MySQL client on the server's socket).

// connListener is the server's net.Listener: connections accepted on TCP
// (when the server listens) and in-process ones.
type connListener struct {
	tcp    net.Listener // nil when the server is embedded
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
	errc   chan error
}

func newConnListener(tcp net.Listener) *connListener {
	l := &connListener{tcp: tcp, conns: make(chan net.Conn), closed: make(chan struct{}), errc: make(chan error, 1)}
	if tcp != nil {
		go l.acceptTCP()
	}
	return l
}

func (l *connListener) acceptTCP() {
	for {
		c, err := l.tcp.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			select {
			case l.errc <- err:
			default:
			}
			return
		}
		select {
		case l.conns <- c:
		case <-l.closed:
			c.Close()
			return
		}
	}
}

// Accept implements net.Listener.
func (l *connListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	case err := <-l.errc:
		return nil, err
	}
}

// Close implements net.Listener.
func (l *connListener) Close() error {
	var err error
	l.once.Do(func() {
		close(l.closed)
		if l.tcp != nil {
			err = l.tcp.Close()
		}
	})
	return err
}

// Addr implements net.Listener.
func (l *connListener) Addr() net.Addr {
	if l.tcp != nil {
		return l.tcp.Addr()
	}
	return access.InternalAddr{}
}

// dial makes an in-process connection logged in as user@host (host is the
// client's host: "localhost" for the terminal, the Flight client's address
// for Flight SQL) and hands its server end to the listener.
func (l *connListener) dial(ctx context.Context, as access.InternalAddr) (net.Conn, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sqlengine: in-process connection: %w", err)
	}
	client, err := fileConn(fds[0], "client")
	if err != nil {
		syscall.Close(fds[1])
		return nil, err
	}
	server, err := fileConn(fds[1], "server")
	if err != nil {
		client.Close()
		return nil, err
	}
	select {
	case l.conns <- internalConn{Conn: server, addr: as}:
		return client, nil
	case <-l.closed:
	case <-ctx.Done():
	}
	client.Close()
	server.Close()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return nil, errShuttingDown
}

func fileConn(fd int, name string) (net.Conn, error) {
	f := os.NewFile(uintptr(fd), "lakesql-internal-"+name)
	c, err := net.FileConn(f)
	f.Close() // FileConn dups the descriptor
	if err != nil {
		return nil, fmt.Errorf("sqlengine: in-process connection: %w", err)
	}
	return c, nil
}

// internalConn is the server end of an in-process connection: its remote
// address names the account it logs in as.
type internalConn struct {
	net.Conn
	addr access.InternalAddr
}

func (c internalConn) RemoteAddr() net.Addr { return c.addr }

// OpenDB returns a connection pool of in-process connections logged in as
// user@host, with database as the current database (none when "") and
// go-sql-driver's params. Values come as MySQL's text (no parseTime);
// statements' arguments are interpolated client-side. The server must
// have been started (Start).
func (s *Server) OpenDB(user, host, database string, params map[string]string) (*sql.DB, error) {
	cfg := mysql.NewConfig()
	cfg.User = user
	cfg.Net = "lakesql"
	cfg.Addr = "internal"
	cfg.DBName = database
	cfg.Params = params
	cfg.AllowNativePasswords = true
	cfg.InterpolateParams = true
	as := access.InternalAddr{User: user, Host: host}
	cfg.DialFunc = func(ctx context.Context, _, _ string) (net.Conn, error) { return s.listener.dial(ctx, as) }
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("sqlengine: in-process connector: %w", err)
	}
	return sql.OpenDB(conn), nil
}
