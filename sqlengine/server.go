package sqlengine

import (
	"context"
	"fmt"
	"net"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/sirupsen/logrus"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/provider"
)

// Version is what @@version_comment reports.
const Version = "lakesql"

// Config configures a server.
type Config struct {
	// Warehouse is the warehouse URL or local path (default ./warehouse).
	Warehouse string
	// Host and Port to listen on (default 127.0.0.1:3307). Port 0 picks a free port.
	Host string
	Port int
	// ReadOnly rejects every statement that would write.
	ReadOnly bool
	// LogLevel for GMS's logrus output (default warn).
	LogLevel logrus.Level
}

// Server is a running lakesql MySQL-protocol server.
type Server struct {
	cfg      Config
	store    storage.Storage
	provider *provider.Provider
	engine   *sqle.Engine
	srv      *server.Server
	drain    drain // running statements, for Shutdown (shutdown.go)
}

// New opens the warehouse (creating it with a `default` database on first
// start), builds the engine and binds the listener. Call Start to serve.
func New(ctx context.Context, cfg Config) (*Server, error) {
	if cfg.Warehouse == "" {
		cfg.Warehouse = "./warehouse"
	}
	if cfg.Host == "" {
		cfg.Host = "127.0.0.1"
	}
	if cfg.LogLevel == 0 {
		cfg.LogLevel = logrus.WarnLevel
	}
	logrus.SetLevel(cfg.LogLevel)
	if err := sql.SystemVariables.AssignValues(map[string]any{"version_comment": Version, "max_allowed_packet": defaultMaxAllowedPacket}); err != nil {
		return nil, fmt.Errorf("sqlengine: set version_comment: %w", err)
	}
	st, err := storage.Open(ctx, cfg.Warehouse)
	if err != nil {
		return nil, fmt.Errorf("sqlengine: open warehouse %s: %w", cfg.Warehouse, err)
	}
	pro, err := provider.New(ctx, st, provider.Options{ReadOnly: cfg.ReadOnly})
	if err != nil {
		st.Close()
		return nil, err
	}
	engine := NewEngine(pro, cfg.ReadOnly)
	s := &Server{cfg: cfg, store: st, provider: pro, engine: engine}
	scfg := server.Config{
		Protocol: "tcp",
		Address:  net.JoinHostPort(cfg.Host, fmt.Sprint(cfg.Port)),
		Version:  "8.0.33-" + Version,
	}
	srv, err := server.NewServerWithHandler(scfg, engine, sql.NewContext, s.sessionBuilder, nil, s.wrapDDL)
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("sqlengine: listen on %s: %w", scfg.Address, err)
	}
	s.srv = srv
	return s, nil
}

// NewEngine builds the GMS engine over a provider, with lakesql's analyzer
// rules (filter pushdown into Paimon scans).
func NewEngine(pro *provider.Provider, readOnly bool) *sqle.Engine {
	provider.InstallStrictRule() // strict-mode checks of written values (provider/strict.go)
	a := analyzer.NewBuilder(pro).AddPostAnalyzeRule(provider.PushdownRuleID, provider.PushdownRule).Build()
	a.ExecBuilder = newExecBuilder() // LOAD DATA reads CSV as MySQL does (loaddata.go)
	return sqle.New(a, &sqle.Config{IsReadOnly: readOnly})
}

// Addr is the address the server listens on.
func (s *Server) Addr() string { return s.srv.Listener.Addr().String() }

// Start serves connections until Close. It blocks.
func (s *Server) Start() error { return s.srv.Start() }

// Close stops the server and releases the warehouse.
func (s *Server) Close() error {
	err := s.srv.Close()
	if cerr := s.store.Close(); err == nil {
		err = cerr
	}
	return err
}

func (s *Server) sessionBuilder(ctx context.Context, conn *mysql.Conn, addr string) (sql.Session, error) {
	host, user := "", ""
	if u, ok := conn.UserData.(sql.MysqlConnectionUser); ok {
		host, user = u.Host, u.User
	}
	client := sql.Client{Address: host, User: user, Capabilities: conn.Capabilities}
	return newSession(sql.NewBaseSessionWithClientServer(addr, client, conn.ConnectionID)), nil
}
