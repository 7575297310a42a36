// Package sqlengine builds the go-mysql-server engine and MySQL-protocol
// server over the provider: sessions, transactions, system variables, and the
// parser front for Flink/Spark DDL, MERGE INTO and time-travel spellings that
// GMS's parser lacks. Accounts, authentication, TLS and the server-file
// policy are wired in security.go over package sqlengine/access.
package sqlengine
