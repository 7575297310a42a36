package sqlengine

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"time"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"

	"github.com/lakesql/lakesql/internal/metrics"
)

// opsHandler is the outermost protocol handler: it counts connections and
// statements (by kind), times them, counts errors by the MySQL code the
// client finally receives, and writes the slow-query log line. Each
// statement runs with a metrics.Statement in its context, where the scans
// it plans add their pruning figures.
type opsHandler struct {
	mysql.Handler
	s *Server
}

// wrapOps puts opsHandler around the handler that wrap builds.
func (s *Server) wrapOps(wrap func(mysql.Handler) (mysql.Handler, error)) func(mysql.Handler) (mysql.Handler, error) {
	return func(h mysql.Handler) (mysql.Handler, error) {
		inner, err := wrap(h)
		if err != nil {
			return nil, err
		}
		return &opsHandler{Handler: inner, s: s}, nil
	}
}

func (h *opsHandler) NewConnection(c *mysql.Conn) {
	metrics.ConnectionsOpen.Add(1)
	h.Handler.NewConnection(c)
}

func (h *opsHandler) ConnectionClosed(c *mysql.Conn) {
	metrics.ConnectionsOpen.Add(-1)
	closeWatch(c) // disconnect.go
	h.Handler.ConnectionClosed(c)
}

// statementRun is one statement's figures while it runs.
type statementRun struct {
	limits   limits
	start    time.Time
	scan     *metrics.Statement
	rows     int64
	affected uint64
}

func (r *statementRun) count(res *sqltypes.Result) {
	if res != nil {
		r.rows += int64(len(res.Rows))
		r.affected += res.RowsAffected
	}
}

func (h *opsHandler) ComQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) error {
	run, ctx, done := h.begin(ctx, c, query)
	defer done()
	sent := false
	spool := func(res *sqltypes.Result, more bool) error {
		sent = true
		run.count(res)
		return callback(res, more)
	}
	err := h.run(ctx, c, run, query, &sent, func() error { return h.Handler.ComQuery(ctx, c, query, spool) })
	h.s.observeStatement(c, query, run, err)
	return err
}

// run runs a statement (exec) and answers its error: 1146 for a table
// dropped under it (vanished.go); planned again once when a file it read
// was deleted by another writer and it may run again (replan.go), else
// 1412 when its snapshot was expired; the statement's limits (limits.go).
// sent says that something of the statement reached the client.
func (h *opsHandler) run(ctx context.Context, c *mysql.Conn, run *statementRun, query string, sent *bool, exec func() error) error {
	err := h.s.vanishedTable(ctx, run.start, exec())
	if h.s.replannable(c, query, *sent, err) {
		h.s.provider.ForgetTables()
		slog.Info("statement planned again: a file it read was deleted by another writer", "connectionID", c.ConnectionID, "error", err)
		err = h.s.vanishedTable(ctx, run.start, exec())
	}
	return interrupted(ctx, run.limits, run.scan, h.s.errSnapshotExpired(ctx, run.start, err))
}

// begin starts a statement: its figures and memory limit in the context,
// and its deadline (limits.go).
func (h *opsHandler) begin(ctx context.Context, c *mysql.Conn, query string) (*statementRun, context.Context, context.CancelFunc) {
	run := &statementRun{start: time.Now(), scan: new(metrics.Statement), limits: h.s.statementLimits(c, query)}
	run.scan.Limit = run.limits.memory
	ctx, cancelGone := context.WithCancelCause(ctx)
	stopWatch := watchDisconnect(c, cancelGone) // disconnect.go
	ctx, cancel := run.limits.apply(metrics.WithStatement(ctx, run.scan))
	return run, ctx, func() {
		stopWatch()
		cancel()
		cancelGone(nil)
	}
}

func (h *opsHandler) ComMultiQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) (string, error) {
	run, ctx, done := h.begin(ctx, c, query)
	defer done()
	sent := false
	spool := func(res *sqltypes.Result, more bool) error {
		sent = true
		run.count(res)
		return callback(res, more)
	}
	// Each call runs the first statement of query and returns the rest;
	// planned again, the first statement runs again.
	var rest string
	err := h.run(ctx, c, run, query, &sent, func() (err error) {
		rest, err = h.Handler.ComMultiQuery(ctx, c, query, spool)
		return err
	})
	stmt := query
	if err == nil && len(rest) < len(query) {
		stmt = query[:len(query)-len(rest)]
	}
	h.s.observeStatement(c, stmt, run, err)
	return rest, err
}

func (h *opsHandler) ComStmtExecute(ctx context.Context, c *mysql.Conn, prepare *mysql.PrepareData, callback func(*sqltypes.Result) error) error {
	run, ctx, done := h.begin(ctx, c, prepare.PrepareStmt)
	defer done()
	sent := false
	spool := func(res *sqltypes.Result) error {
		sent = true
		run.count(res)
		return callback(res)
	}
	err := h.run(ctx, c, run, prepare.PrepareStmt, &sent, func() error { return h.Handler.ComStmtExecute(ctx, c, prepare, spool) })
	h.s.observeStatement(c, prepare.PrepareStmt, run, err)
	return err
}

// ObserveStatement records a statement that ran outside the MySQL protocol
// (the Flight SQL endpoint's plain scans), as observeStatement does for the
// protocol's: scan is what its scans planned (metrics.WithStatement), rows
// the rows it returned.
func (s *Server) ObserveStatement(query string, start time.Time, scan *metrics.Statement, rows int64, err error) {
	if scan == nil {
		scan = new(metrics.Statement)
	}
	s.observeStatement(nil, query, &statementRun{start: start, scan: scan, rows: rows}, err)
}

// maxLoggedStatement bounds the statement text of a log line.
const maxLoggedStatement = 4096

// observeStatement updates the statement metrics and logs a slow statement.
func (s *Server) observeStatement(c *mysql.Conn, query string, run *statementRun, err error) {
	d := time.Since(run.start)
	kind := StatementKind(query)
	metrics.Queries.With(kind).Inc()
	metrics.QueryDuration.With(kind).Observe(d.Seconds())
	code := 0
	if err != nil {
		code = mysql.ERUnknownError
		var se *mysql.SQLError
		if errors.As(err, &se) {
			code = se.Num
		}
		metrics.QueryErrors.With(strconv.Itoa(code)).Inc()
	}
	if s.cfg.SlowQuery <= 0 || d < s.cfg.SlowQuery {
		return
	}
	user, db := "", ""
	if c != nil {
		if sess := s.sessions.get(c.ConnectionID); sess != nil {
			user, db = sess.Client().User, sess.GetCurrentDatabase()
		}
	}
	stmt := query
	if len(stmt) > maxLoggedStatement {
		stmt = truncateRunes(stmt, maxLoggedStatement) + "..."
	}
	sc := run.scan
	attrs := []slog.Attr{
		slog.String("statement", stmt),
		slog.Float64("duration_ms", float64(d.Microseconds())/1000),
		slog.Int64("rows_sent", run.rows),
		slog.Uint64("rows_affected", run.affected),
		slog.String("kind", kind),
		slog.String("user", user),
		slog.String("db", db),
		slog.Int64("scans", sc.Scans.Load()),
		slog.Int64("partitions", sc.Partitions.Load()),
		slog.Int64("files", sc.FilesTotal.Load()),
		slog.Int64("files_pruned", sc.FilesPruned.Load()),
		slog.Int64("manifests", sc.ManifestsTotal.Load()),
		slog.Int64("manifests_pruned", sc.ManifestsPruned.Load()),
		slog.Int64("buckets_pruned", sc.BucketsPruned.Load()),
		slog.Int64("splits", sc.Splits.Load()),
	}
	if c != nil {
		attrs = append(attrs, slog.Uint64("conn", uint64(c.ConnectionID)))
	}
	if err != nil {
		attrs = append(attrs, slog.Int("error", code))
	}
	slog.LogAttrs(context.Background(), slog.LevelWarn, "slow query", attrs...)
}

// Statement kinds, the label of lakesql_queries_total.
const (
	KindSelect      = "select"
	KindInsert      = "insert"
	KindReplace     = "replace"
	KindUpdate      = "update"
	KindDelete      = "delete"
	KindMerge       = "merge"
	KindLoad        = "load"
	KindCall        = "call"
	KindDDL         = "ddl"
	KindShow        = "show"
	KindSet         = "set"
	KindTransaction = "transaction"
	KindAccount     = "account"
	KindOther       = "other"
)

var kindOfWord = map[string]string{
	"SELECT": KindSelect, "WITH": KindSelect, "TABLE": KindSelect, "VALUES": KindSelect,
	"INSERT": KindInsert, "REPLACE": KindReplace, "UPDATE": KindUpdate, "DELETE": KindDelete,
	"MERGE": KindMerge, "LOAD": KindLoad, "CALL": KindCall,
	"CREATE": KindDDL, "ALTER": KindDDL, "DROP": KindDDL, "TRUNCATE": KindDDL, "RENAME": KindDDL,
	"SHOW": KindShow, "DESCRIBE": KindShow, "DESC": KindShow, "EXPLAIN": KindShow,
	"SET": KindSet, "USE": KindSet,
	"BEGIN": KindTransaction, "START": KindTransaction, "COMMIT": KindTransaction, "ROLLBACK": KindTransaction,
	"SAVEPOINT": KindTransaction, "RELEASE": KindTransaction,
	"GRANT": KindAccount, "REVOKE": KindAccount,
}

// StatementKind classifies a statement by its first word (after white
// space, comments and opening parentheses).
func StatementKind(q string) string {
	i := 0
	for i < len(q) {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '(' || c == ';':
			i++
			continue
		case c == '#' || c == '-' && i+1 < len(q) && q[i+1] == '-':
			j := i
			for j < len(q) && q[j] != '\n' {
				j++
			}
			i = j
			continue
		case c == '/' && i+1 < len(q) && q[i+1] == '*':
			if i+2 < len(q) && q[i+2] == '!' { // executable comment: its text runs
				i += 3
				for i < len(q) && q[i] >= '0' && q[i] <= '9' {
					i++
				}
				continue
			}
			j := i + 2
			for j+1 < len(q) && !(q[j] == '*' && q[j+1] == '/') {
				j++
			}
			i = j + 2
			continue
		}
		break
	}
	j := i
	for j < len(q) && (q[j] >= 'a' && q[j] <= 'z' || q[j] >= 'A' && q[j] <= 'Z') {
		j++
	}
	if j == i || j-i > 9 {
		return KindOther
	}
	var up [9]byte
	for k := i; k < j; k++ {
		up[k-i] = q[k] &^ 0x20
	}
	if kind, ok := kindOfWord[string(up[:j-i])]; ok {
		return kind
	}
	return KindOther
}
