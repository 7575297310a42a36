// Package provider implements go-mysql-server's sql.* interfaces (databases,
// tables, indexes, system tables) over Paimon tables. Errors are mapped to
// MySQL error codes here and nowhere below.
package provider
