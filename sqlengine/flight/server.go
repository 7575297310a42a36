package flight

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	vitess "github.com/dolthub/vitess/go/mysql"
	"github.com/go-sql-driver/mysql"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"

	"github.com/lakesql/lakesql/internal/metrics"
	"github.com/lakesql/lakesql/sqlengine"
	"github.com/lakesql/lakesql/sqlengine/config"
)

// Server is the Arrow Flight SQL endpoint of a lakesql server.
type Server struct {
	flightsql.BaseServer
	eng      *sqlengine.Server
	mem      memory.Allocator
	grpc     flight.Server
	sessions sessions
	pending  pending
	done     chan struct{}
	wg       sync.WaitGroup
}

// Listen serves Flight SQL for eng on addr (host:port; port 0 picks one),
// with eng's TLS configuration when it has one. Close stops it.
func Listen(addr string, eng *sqlengine.Server) (*Server, error) {
	s := &Server{eng: eng, mem: memory.DefaultAllocator, done: make(chan struct{})}
	s.Alloc = s.mem
	v := config.ReadVersion()
	for id, val := range map[flightsql.SqlInfo]any{
		flightsql.SqlInfoFlightSqlServerName:         "lakesql",
		flightsql.SqlInfoFlightSqlServerVersion:      v.Version,
		flightsql.SqlInfoFlightSqlServerArrowVersion: "18",
		flightsql.SqlInfoFlightSqlServerReadOnly:     false,
		flightsql.SqlInfoFlightSqlServerSql:          true,
		flightsql.SqlInfoFlightSqlServerSubstrait:    false,
		flightsql.SqlInfoFlightSqlServerTransaction:  int32(flightsql.SqlTransactionNone),
		flightsql.SqlInfoFlightSqlServerCancel:       false,
		flightsql.SqlInfoIdentifierQuoteChar:         "`",
	} {
		if err := s.RegisterSqlInfo(id, val); err != nil {
			return nil, fmt.Errorf("flight: sql info: %w", err)
		}
	}
	var opts []grpc.ServerOption
	if tc := eng.TLSConfig(); tc != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(tc.Clone())))
	}
	mw := []flight.ServerMiddleware{{Stream: s.streamInterceptor, Unary: s.unaryInterceptor}}
	s.grpc = flight.NewServerWithMiddleware(mw, opts...)
	s.grpc.RegisterFlightService(flightsql.NewFlightServerWithAllocator(s, s.mem))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("flight: listen on %s: %w", addr, err)
	}
	s.grpc.InitListener(ln)
	s.wg.Add(2)
	go func() {
		defer s.wg.Done()
		_ = s.grpc.Serve()
	}()
	go func() {
		defer s.wg.Done()
		s.sweep()
	}()
	return s, nil
}

// Addr is the bound address.
func (s *Server) Addr() string { return s.grpc.Addr().String() }

// Close stops serving, ends every session and waits for the server's
// goroutines.
func (s *Server) Close() error {
	select {
	case <-s.done:
		return nil
	default:
	}
	close(s.done)
	s.grpc.Shutdown()
	s.pending.closeAll()
	s.sessions.closeAll()
	s.wg.Wait()
	return nil
}

// sweep drops results nobody fetched.
func (s *Server) sweep() {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-t.C:
			s.pending.expire(pendingTTL)
		}
	}
}

// session is one authenticated client: in-process connections logged in
// as its account, its current database and prepared statements.
type session struct {
	acct     sqlengine.Account
	db       *sql.DB
	lastUsed time.Time
	mu       sync.Mutex
	database string
	prepared map[string]*prepared
}

func (s *Server) newSession(acct sqlengine.Account) (*session, error) {
	db, err := s.eng.OpenDB(acct.User, acct.ClientHost, "", nil)
	if err != nil {
		return nil, err
	}
	db.SetMaxIdleConns(4)
	return &session{acct: acct, db: db, lastUsed: time.Now(), prepared: map[string]*prepared{}}, nil
}

func (ses *session) close() { ses.db.Close() }

func (ses *session) currentDB() string {
	ses.mu.Lock()
	defer ses.mu.Unlock()
	return ses.database
}

// conn takes a connection with the session's current database.
func (ses *session) conn(ctx context.Context) (*sql.Conn, error) {
	c, err := ses.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	if db := ses.currentDB(); db != "" {
		if _, err := c.ExecContext(ctx, "USE `"+strings.ReplaceAll(db, "`", "``")+"`"); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}

// useDatabase reports whether q is USE db, and switches the session's
// current database when it is.
func (ses *session) useDatabase(ctx context.Context, q string) (bool, error) {
	toks := strings.Fields(strings.TrimRight(strings.TrimSpace(q), ";"))
	if len(toks) != 2 || !strings.EqualFold(toks[0], "USE") {
		return false, nil
	}
	c, err := ses.db.Conn(ctx)
	if err != nil {
		return true, err
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, q); err != nil {
		return true, err
	}
	var db sql.NullString
	if err := c.QueryRowContext(ctx, "SELECT DATABASE()").Scan(&db); err != nil {
		return true, err
	}
	ses.mu.Lock()
	ses.database = db.String
	ses.mu.Unlock()
	return true, nil
}

// grpcError gives an error a gRPC status: MySQL errors keep their code and
// SQLSTATE in the message ("Error 1146 (42S02): …").
func grpcError(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	if errors.Is(err, context.Canceled) {
		return status.Error(codes.Canceled, err.Error())
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return status.Error(codes.DeadlineExceeded, err.Error())
	}
	var se *vitess.SQLError
	if errors.As(err, &se) {
		err = &mysql.MySQLError{Number: uint16(se.Num), Message: se.Message}
		copy(err.(*mysql.MySQLError).SQLState[:], se.State)
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		code := codes.InvalidArgument
		switch me.Number {
		case 1044, 1045, 1142, 1143, 1227, 1370, 3159:
			code = codes.PermissionDenied
		case 1049, 1146:
			code = codes.NotFound
		case 1317, 3024:
			code = codes.Canceled
		case 1105:
			code = codes.Internal
		}
		return status.Error(code, me.Error())
	}
	return status.Error(codes.Internal, err.Error())
}

// pending holds results between GetFlightInfo and DoGet.
type pending struct {
	mu sync.Mutex
	m  map[string]*result
}

// pendingTTL is how long a result waits for its DoGet.
const pendingTTL = 10 * time.Minute

// result is a query's result waiting to be fetched: a plain scan, or rows
// of an in-process connection.
type result struct {
	query   string
	schema  *arrow.Schema
	created time.Time
	start   time.Time
	scan    *sqlengine.PlainScan
	stats   *metrics.Statement
	rows    *sql.Rows
	conn    *sql.Conn
	cancel  context.CancelFunc
}

func (r *result) close() {
	if r.rows != nil {
		r.rows.Close()
	}
	if r.conn != nil {
		r.conn.Close()
	}
	if r.cancel != nil {
		r.cancel()
	}
}

func (p *pending) put(r *result) []byte {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	h := hex.EncodeToString(b)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[string]*result{}
	}
	p.m[h] = r
	return []byte(h)
}

func (p *pending) take(h []byte) *result {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.m[string(h)]
	delete(p.m, string(h))
	return r
}

func (p *pending) expire(ttl time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for h, r := range p.m {
		if time.Since(r.created) > ttl {
			delete(p.m, h)
			r.close()
		}
	}
}

func (p *pending) closeAll() { p.expire(-1) }
