package sqlengine

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/lakesql/lakesql/internal/metrics"
	"github.com/lakesql/lakesql/provider"
)

// Statement limits, applied by opsHandler to every statement a client
// runs:
//
//   - max_execution_time (session/global, milliseconds; the global default
//     is Config.MaxExecutionTime) and the optimizer hint
//     SELECT /*+ MAX_EXECUTION_TIME(N) */, which overrides it: as in
//     MySQL, only for SELECT statements. A statement past its time is
//     canceled (scans stop at their next batch) and fails with MySQL's
//     3024 ER_QUERY_TIMEOUT.
//   - KILL QUERY n (GMS cancels the statement's context) and a client that
//     disconnects: the statement fails with 1317 ER_QUERY_INTERRUPTED.
//   - lakesql_query_memory_limit (session/global, bytes; the global default
//     is Config.QueryMemoryLimit; 0: none): the memory the statement holds
//     (metrics.Statement: rows buffered for its commit, rows kept by GMS's
//     sorting, grouping, DISTINCT and join operators). Past it the
//     statement fails with MySQL's 3170 ER_CAPACITY_EXCEEDED and nothing
//     it buffered is committed.

// MemoryLimitVariable is the per-statement memory limit's system variable.
const MemoryLimitVariable = "lakesql_query_memory_limit"

// registerLimitVariables declares lakesql_query_memory_limit and sets the
// global defaults of both limits.
func registerLimitVariables(cfg Config) error {
	sql.SystemVariables.AddSystemVariables([]sql.SystemVariable{&sql.MysqlSystemVariable{
		Name:    MemoryLimitVariable,
		Scope:   sql.GetMysqlScope(sql.SystemVariableScope_Both),
		Dynamic: true,
		Type:    types.NewSystemIntType(MemoryLimitVariable, 0, math.MaxInt64, false),
		Default: max(cfg.QueryMemoryLimit, 0),
	}})
	return sql.SystemVariables.AssignValues(map[string]any{
		"max_execution_time": cfg.MaxExecutionTime.Milliseconds(),
		MemoryLimitVariable:  max(cfg.QueryMemoryLimit, 0),
	})
}

// maxExecutionTimeHint returns N of the optimizer hint MAX_EXECUTION_TIME(N)
// of a SELECT: as in MySQL, only in the hint comment /*+ … */ right after
// the statement's first SELECT keyword (after any opening parentheses).
// Hints the hint comment holds besides it, and a MAX_EXECUTION_TIME in a
// string, an ordinary comment or a subquery, do not count.
func maxExecutionTimeHint(q string) (ms int64, ok bool) {
	const parens = 16 // SELECT and its hint after this many '(' at most
	if !strings.Contains(q, "/*+") {
		return 0, false // no hint comment: the lexer makes a lexHint token only of "/*+"
	}
	toks, err := lexLimit(q, hintDialect, parens+2)
	if err != nil {
		return 0, false
	}
	i := 0
	for i < parens && i < len(toks) && toks[i].IsSymbol("(") {
		i++
	}
	if i+1 >= len(toks) || !toks[i].IsWord("SELECT") || toks[i+1].Kind != lexHint {
		return 0, false
	}
	hint, err := Lex(toks[i+1].Value())
	if err != nil {
		return 0, false
	}
	for j := 0; j+3 < len(hint); j++ {
		if hint[j].IsWord("MAX_EXECUTION_TIME") && hint[j+1].IsSymbol("(") && hint[j+2].Kind == lexNumber && hint[j+3].IsSymbol(")") {
			if ms, err := strconv.ParseInt(hint[j+2].Text(), 10, 64); err == nil {
				return ms, true
			}
			return 0, false
		}
	}
	return 0, false
}

// limits are one statement's time and memory limits.
type limits struct {
	timeout time.Duration
	memory  int64
}

// statementLimits reads the limits of a statement on connection c.
func (s *Server) statementLimits(c *mysql.Conn, query string) limits {
	var l limits
	sess := s.sessions.get(c.ConnectionID)
	if sess == nil {
		return l
	}
	if v, err := sess.GetSessionVariable(nil, MemoryLimitVariable); err == nil {
		l.memory, _ = toInt64(v)
	}
	if StatementKind(query) != KindSelect {
		return l
	}
	ms := int64(0)
	if hint, ok := maxExecutionTimeHint(query); ok {
		ms = hint
	} else if v, err := sess.GetSessionVariable(nil, "max_execution_time"); err == nil {
		ms, _ = toInt64(v)
	}
	if ms > 0 {
		l.timeout = time.Duration(ms) * time.Millisecond
	}
	return l
}

// apply returns ctx with the statement's deadline.
func (l limits) apply(ctx context.Context) (context.Context, context.CancelFunc) {
	if l.timeout > 0 {
		return context.WithTimeout(ctx, l.timeout)
	}
	return ctx, func() {}
}

// interrupted gives the errors of a statement that was stopped MySQL's
// codes: the one error table (provider/errors.go) maps a cancelled
// statement to 1317 and a memory limit to 3170; here a cancellation past
// max_execution_time becomes 3024, and 3170 gets the limit's figures.
func interrupted(ctx context.Context, l limits, st *metrics.Statement, err error) error {
	if err == nil {
		return nil
	}
	var se *mysql.SQLError
	if !errors.As(provider.SQLError(err), &se) {
		return err
	}
	switch {
	case se.Num == 1317 && l.timeout > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return mysql.NewSQLError(3024, mysql.SSUnknownSQLState, "Query execution was interrupted, maximum statement execution time exceeded")
	case se.Num == 1317:
		return se
	case se.Num == 3170 && l.memory > 0:
		return mysql.NewSQLError(3170, mysql.SSUnknownSQLState,
			"Memory capacity of %d bytes for '%s' exceeded (the statement held about %d bytes); nothing was changed", l.memory, MemoryLimitVariable, st.MemoryUsed())
	}
	return err
}

// newContext is the server's sql.ContextFactory: a statement with a memory
// limit gets its own memory manager, whose reporter counts the rows GMS's
// operators keep against the statement's limit.
func newContext(ctx context.Context, opts ...sql.ContextOption) *sql.Context {
	if st := metrics.StatementFrom(ctx); st != nil && st.Limit > 0 {
		opts = append(opts, sql.WithMemoryManager(sql.NewMemoryManager(statementReporter{st})))
	}
	return sql.NewContext(ctx, opts...)
}

// statementReporter reports a statement's memory to GMS's caches, which
// ask before keeping each row.
type statementReporter struct{ st *metrics.Statement }

func (r statementReporter) MaxMemory() uint64  { return uint64(r.st.Limit) }
func (r statementReporter) UsedMemory() uint64 { return uint64(r.st.Cached()) }
