// Package sqlengine builds the go-mysql-server engine and MySQL-protocol
// server over the provider: sessions, transactions, system variables, and the
// parser front for Flink/Spark DDL, MERGE INTO and time-travel spellings that
// GMS's parser lacks.
//
// The protocol handlers nest, outermost first: protoHandler (protocol.go:
// status flags, MySQL column definitions, SQLSTATEs), frontHandler
// (statement_front.go, grants_front.go: statements GMS rejects or crashes
// on), the DDL front, the write front (MERGE, INSERT OVERWRITE), and the
// time-travel rewrite (handler.go) around GMS's handler. lex.go is the SQL
// lexer the fronts share: rewrites splice source text between tokens, so
// literals, comments and quoted identifiers are never edited.
package sqlengine
