// Package sqlengine builds the go-mysql-server engine and MySQL-protocol
// server over the provider: sessions, transactions, system variables, and the
// parser front for Flink/Spark DDL, MERGE INTO and time-travel spellings that
// GMS's parser lacks. Accounts, authentication, TLS and the server-file
// policy are wired in security.go over package sqlengine/access.
//
// The protocol handlers nest, outermost first:
//   - opsHandler (ops_handler.go, limits.go): counts connections and
//     statements for internal/metrics, writes the slow-query log line,
//     applies max_execution_time and lakesql_query_memory_limit and gives
//     interrupted statements MySQL's codes (1317, 3024, 3170);
//   - builtinsHandler (builtins_handler.go): turns a panic into an error with
//     the connection kept, holds back the start of a result so that an error
//     after rows is an error packet, fixes `\_`/`--1` in the query text;
//   - protoHandler (protocol.go): status flags, MySQL column definitions,
//     SQLSTATEs;
//   - frontHandler (statement_front.go, grants_front.go): statements GMS
//     rejects or crashes on;
//   - accessHandler (security.go): accounts kept fresh, privilege errors with
//     MySQL's codes, privilege checks for lakesql's own fronts;
//   - the DDL front (ddl_handler.go), which also answers the statements
//     MySQL treats specially (statements.go: empty queries, KILL, time_zone,
//     read_only, max_allowed_packet), commits an open transaction before DDL
//     as MySQL does, bounds error messages, and counts running statements so
//     Server.Shutdown can let them finish (shutdown.go);
//   - the CALL front (call_handler.go, call_parse.go): CALL [catalog.]sys.*
//     procedures of package procedures, with their privileges and errors;
//   - the write front (MERGE, INSERT OVERWRITE) and the time-travel rewrite
//     (handler.go) around GMS's handler.
//
// lex.go is the one SQL lexer the fronts share (DDL in its Flink dialect;
// time travel, the statement front, MERGE/OVERWRITE, CALL, KILL and the SET
// checks, the vitess lexing fixes and statement splitting in MySQL's);
// parse.go is the recursive-descent parser over its tokens. Rewrites
// splice source text between tokens, so literals, comments and quoted
// identifiers are never edited. Still recognised by anchored regular
// expressions on the whole text: the account statements of security.go,
// SHOW COLLATION, SHOW TABLE STATUS and the MAX_EXECUTION_TIME hint (a
// comment, which the lexer skips).
//
// Connections reach the handlers over TCP or in process (internal_conn.go:
// socket pairs whose server end names the account, for the Flight SQL
// endpoint and the terminal); PlanPlainScan (plain_scan.go) lets the Flight
// SQL endpoint stream a plain scan's column batches instead.
//
// Errors leave the server through provider.SQLError (the one table of
// MySQL codes, by error identity); the fronts build MySQL errors only for
// their own syntax errors and for statements whose code is the statement's
// (KILL, SET time_zone, privileges).
//
// # Concurrency
//
//   - GMS runs each connection's statements on that connection's
//     goroutine; a Session and its Transaction belong to their connection
//     and are not shared. A statement may run goroutines of its own (the
//     parallel scan) that it stops before it returns.
//   - The Server, its provider, engine, account store and analyzer rules
//     are shared by every connection and safe for concurrent use; the
//     handler chain holds no per-statement state.
//   - Shutdown (shutdown.go) refuses new statements and waits for the
//     running ones, whose commits complete.
//
// # Invariants
//
//   - A statement of a front either runs completely (its own transaction,
//     or the session's) or fails with nothing changed; a front hands a
//     statement it does not recognise to GMS unchanged.
//   - DDL of the fronts commits the session's open transaction first, as
//     MySQL does.
package sqlengine
