// Package sqlengine builds the go-mysql-server engine and MySQL-protocol
// server over the provider: sessions, transactions, system variables, and the
// parser front for Flink/Spark DDL, MERGE INTO and time-travel spellings that
// GMS's parser lacks. Accounts, authentication, TLS and the server-file
// policy are wired in security.go over package sqlengine/access.
//
// The outermost protocol handler (ddl_handler.go) also answers the
// statements MySQL treats specially before GMS sees them (statements.go:
// empty queries, KILL, time_zone, read_only, max_allowed_packet), commits an
// open transaction before front DDL as MySQL does, gives errors leaving the
// server MySQL's codes and bounded messages, and counts running statements
// so Server.Shutdown can let them finish (shutdown.go).
package sqlengine
