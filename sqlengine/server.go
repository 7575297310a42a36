package sqlengine

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"runtime/debug"
	"sync/atomic"
	"time"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/provider"
	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/sqlengine/access"
	"github.com/lakesql/lakesql/sqlengine/builtins"
)

// Version is what @@version_comment reports.
const Version = "lakesql"

// Config configures a server.
type Config struct {
	// Warehouse is the warehouse URL or local path (default ./warehouse).
	Warehouse string
	// Storage, when set, is the warehouse, opened by the caller (tests
	// serve through storage.NewFaulty); the server closes it. Warehouse
	// then only names it in messages.
	Storage storage.Storage
	// Host and Port to listen on (default 127.0.0.1:3307). Port 0 picks a free port.
	Host string
	Port int
	// Embedded listens on no port: only in-process connections (OpenDB)
	// reach the server (lakesql sql / shell / load).
	Embedded bool
	// ReadOnly rejects every statement that would write.
	ReadOnly bool
	// CommitLock is the commit lock every writer of the warehouse takes
	// around its conditional creates (snapshot commits, tags, schemas,
	// transaction records, accounts): "" or "none", or "file:DIR"
	// (storage.ParseLock). A store without conditional create is writable
	// only with one (conditional.go).
	CommitLock string
	// CommitLockTimeout is the longest wait for the commit lock (0:
	// storage.DefaultLockTimeout); past it a statement fails with 1205.
	CommitLockTimeout time.Duration
	// Security: accounts, TLS and server files (security.go).
	Security SecurityConfig
	// SlowQuery, when positive, logs every statement that takes at least
	// this long (one slog warning with the statement, duration, rows and
	// pruning figures: ops_handler.go).
	SlowQuery time.Duration
	// TableDefaults are table options every new table gets when its
	// CREATE TABLE does not set the key.
	TableDefaults map[string]string
	// ManifestCacheEntries bounds the process-wide decoded-manifest cache
	// (records); 0 keeps the default, negative disables the cache.
	ManifestCacheEntries int
	// QueryMemoryLimit is the default per-statement memory limit in bytes
	// (the global lakesql_query_memory_limit; 0: none).
	QueryMemoryLimit int64
	// MemoryLimit, when positive, is the process's soft memory limit
	// (runtime/debug.SetMemoryLimit): the garbage collector keeps the Go
	// heap under it by running more often, instead of letting it grow to
	// twice the live heap (GOGC=100). Process-wide, like the manifest
	// cache; 0 leaves the runtime's (the GOMEMLIMIT environment variable).
	MemoryLimit int64
	// MaxExecutionTime is the default of the global max_execution_time (0:
	// none).
	MaxExecutionTime time.Duration
	// CompactionWorkers is the number of background workers of automatic
	// compaction (default 1; negative: none, every compaction runs in the
	// committing statement, which is also what an Embedded server does).
	CompactionWorkers int
	// GCHeadroom is the least the heap may grow between two garbage
	// collections, in bytes (gcpacing.go; 0: DefaultGCHeadroom; negative:
	// Go's own pacing, GOGC alone). An Embedded server does not pace.
	GCHeadroom int64
}

// DefaultCompactionWorkers is the default of Config.CompactionWorkers.
const DefaultCompactionWorkers = 1

// Server is a running lakesql MySQL-protocol server.
type Server struct {
	cfg       Config
	store     storage.Storage
	provider  *provider.Provider
	engine    *sqle.Engine
	srv       *server.Server
	sec       security
	listener  *connListener   // TCP and in-process connections (internal_conn.go)
	sessions  sessionRegistry // connection id → session (protocol.go)
	drain     drain           // running statements, for Shutdown (shutdown.go)
	started   atomic.Bool     // Start has begun accepting (health.go)
	tlsConfig *tls.Config     // nil without TLS (security.go)
	compact   *lsmwrite.AutoCompactor
	recovery  *recovery // interrupted multi-table transactions (recovery.go)
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
	routeLogrus()                                       // GMS's logrus into slog (logging.go)
	if err := registerLimitVariables(cfg); err != nil { // limits.go
		return nil, fmt.Errorf("sqlengine: limits: %w", err)
	}
	if cfg.ManifestCacheEntries != 0 {
		snapshot.SetManifestCacheEntries(max(cfg.ManifestCacheEntries, 0))
	}
	if cfg.MemoryLimit > 0 {
		debug.SetMemoryLimit(cfg.MemoryLimit)
	}
	if err := sql.SystemVariables.AssignValues(map[string]any{"version_comment": Version, "max_allowed_packet": defaultMaxAllowedPacket}); err != nil {
		return nil, fmt.Errorf("sqlengine: set version_comment: %w", err)
	}
	st := cfg.Storage
	if st == nil {
		var err error
		if st, err = storage.Open(ctx, cfg.Warehouse); err != nil {
			return nil, fmt.Errorf("sqlengine: open warehouse %s: %w", cfg.Warehouse, err)
		}
	}
	if !cfg.ReadOnly {
		locked, err := commitStore(ctx, st, cfg) // conditional.go
		if err != nil {
			if cfg.Storage == nil {
				st.Close()
			}
			return nil, err
		}
		st = locked
	}
	workers := cfg.CompactionWorkers
	switch {
	case cfg.Embedded || workers < 0:
		workers = 0 // lakesql sql/shell/load exit right after their statements
	case workers == 0:
		workers = DefaultCompactionWorkers
	}
	compactor := lsmwrite.NewAutoCompactor(lsmwrite.AutoOptions{Workers: workers})
	pro, err := provider.New(ctx, st, provider.Options{ReadOnly: cfg.ReadOnly, TableDefaults: cfg.TableDefaults, Compactor: compactor,
		Maintainer: lsmwrite.NewMaintainer()})
	if err != nil {
		compactor.Close()
		st.Close()
		return nil, err
	}
	s := &Server{cfg: cfg, store: st, provider: pro, compact: compactor}
	policy := &access.Policy{ReadOnly: cfg.ReadOnly}
	engine := NewEngine(pro, cfg.ReadOnly, analyzer.Rule{Id: access.RuleID, Apply: policy.Rule})
	s.engine = engine
	scfg := server.Config{
		Protocol: "tcp",
		Address:  net.JoinHostPort(cfg.Host, fmt.Sprint(cfg.Port)),
		Version:  serverVersion,
	}
	if err := s.setupSecurity(ctx, policy, &scfg); err != nil { // security.go
		compactor.Close()
		st.Close()
		return nil, err
	}
	var tcp net.Listener
	if !cfg.Embedded {
		if tcp, err = net.Listen("tcp", scfg.Address); err != nil {
			compactor.Close()
			st.Close()
			return nil, fmt.Errorf("sqlengine: listen on %s: %w", scfg.Address, err)
		}
	}
	s.listener = newConnListener(tcp)
	scfg.Listener = s.listener
	// Handlers, outermost first: metrics and the slow-query log
	// (ops_handler.go), panic guard (builtins_handler.go), protocol
	// status and query front (protocol.go), access (security.go), DDL/MERGE
	// fronts (ddl_handler.go), GMS.
	srv, err := server.NewServerWithHandler(scfg, engine, newContext, s.sessionBuilder, nil, s.wrapOps(wrapBuiltins(s.wrapProtocol)))
	if err != nil {
		s.listener.Close()
		compactor.Close()
		st.Close()
		return nil, fmt.Errorf("sqlengine: server on %s: %w", scfg.Address, err)
	}
	s.srv = srv
	if !cfg.Embedded {
		headroom := cfg.GCHeadroom
		if headroom == 0 {
			headroom = DefaultGCHeadroom
		}
		gcPacer.start(s, headroom) // gcpacing.go
	}
	// Multi-table transactions a crash interrupted are completed before
	// the server serves (recovery.go).
	if !cfg.ReadOnly {
		if cfg.Embedded {
			rollForward(ctx, st, time.Time{})
		} else {
			s.recovery = startRecovery(ctx, st, pro.Catalog().Clock())
		}
	}
	return s, nil
}

// NewEngine builds the GMS engine over a provider, with lakesql's analyzer
// rules (filter pushdown into Paimon scans).
// Extra rules run before GMS's own (lakesql's access policy).
func NewEngine(pro *provider.Provider, readOnly bool, pre ...analyzer.Rule) *sqle.Engine {
	provider.InstallStrictRule()      // strict-mode checks of written values (provider/strict.go)
	provider.InstallPushdownDMLRule() // single-table UPDATE and DELETE skip the post-analysis rules
	provider.InstallLoadDirectVariable()
	installLoadIntoRule() // LOAD DATA into Paimon tables without GMS's per-row INSERT path (loadinto.go)
	provider.InstallInsertDirectVariable()
	installInsertValuesRule() // INSERT … VALUES of literals likewise (insertvalues.go)
	b := analyzer.NewBuilder(pro)
	b = builtins.Install(b)                                                      // MySQL's answers where GMS's built-ins differ (builtins/)
	b = b.AddPostAnalyzeRule(builtins.SetOpTypesRuleID, builtins.SetOpTypesRule) // columns of a UNION in a derived table keep the UNION's types
	b = b.AddPostAnalyzeRule(provider.PushdownRuleID, provider.PushdownRule)
	provider.InstallAggregateVariables()
	provider.InstallBatchScanVariable()
	provider.InstallEagerAggregationVariable()
	b = b.AddPostAnalyzeRule(provider.EagerAggregationRuleID, provider.EagerAggregationRule) // a join's fact side aggregated before the join (provider/eagerjoin.go)
	b = b.AddPostAnalyzeRule(provider.AggregateRuleID, provider.AggregateRule)               // after pushdown: the scan prunes by the filter
	b = b.AddPostAnalyzeRule(provider.LookupKeyRuleID, provider.LookupKeyRule)
	b = b.AddPostAnalyzeRule(builtins.FixedDecimalsRuleID, builtins.FixedDecimalsRule) // ROUND(x, 2) of a DOUBLE prints 2 decimals
	b = b.AddPostAnalyzeRule(ResultSchemaRuleID, ResultSchemaRule)
	b = b.AddPostAnalyzeRule(TopNRuleID, topNThroughProject)                           // ORDER BY an alias … LIMIT n keeps n rows, not all
	b = b.AddPostAnalyzeRule(provider.AggregateTopNRuleID, provider.AggregateTopNRule) // … of a GROUP BY: only n groups become rows
	b = withoutIndexSortElision(b)
	for _, r := range pre {
		b = b.AddPreAnalyzeRule(r.Id, r.Apply)
	}
	b = b.AddPreAnalyzeRule(provider.BigInRuleID, provider.BigInRule) // long IN lists are not index ranges (provider/bigin.go)
	a := b.Build()
	a.Catalog.StatsProvider = provider.NewStatsProvider(a.Catalog.StatsProvider) // PRIMARY-index histograms from the manifests (provider/stats_histogram.go)
	a.Coster = provider.NewCoster()                                              // lookup-join probes priced as lakesql pays them (provider/coster.go)
	a.Catalog.InfoSchema = infoSchema{a.Catalog.InfoSchema}                      // MySQL's information_schema collation (info_schema.go)
	a.ExecBuilder = newExecBuilder()                                             // LOAD DATA reads CSV as MySQL does (loaddata.go)
	e := sqle.New(a, &sqle.Config{IsReadOnly: readOnly})
	// DECIMAL literals in comparisons and CAST … AS DECIMAL kept exact,
	// INSERT … SELECT … ON DUPLICATE KEY UPDATE c = VALUES(c) (builtins/parser.go).
	e.Parser = builtins.Parser(e.Parser, func(ctx *sql.Context, db, table string) ([]string, bool) {
		if db == "" {
			db = ctx.GetCurrentDatabase()
		}
		t, _, err := a.Catalog.Table(ctx, db, table)
		if err != nil {
			return nil, false
		}
		names := make([]string, 0, len(t.Schema()))
		for _, c := range t.Schema() {
			names = append(names, c.Name)
		}
		return names, true
	})
	return e
}

// Addr is the address the server listens on.
func (s *Server) Addr() string { return s.srv.Listener.Addr().String() }

// Start serves connections until Close. It blocks.
func (s *Server) Start() error {
	s.started.Store(true)
	return s.srv.Start()
}

// WaitCompactions returns when no automatic compaction is queued or
// running (tests; ctx bounds the wait).
func (s *Server) WaitCompactions(ctx context.Context) error { return s.compact.Wait(ctx) }

// Close stops the server and releases the warehouse.
func (s *Server) Close() error {
	gcPacer.stop(s)
	err := s.srv.Close()
	s.recovery.stopRecovery()
	s.compact.Close() // cancels running compactions (their files are deleted)
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
	sess := newSession(sql.NewBaseSessionWithClientServer(addr, client, conn.ConnectionID))
	s.sessions.put(conn.ConnectionID, sess)
	return sess, nil
}
