// Package provider implements go-mysql-server's sql.* interfaces (databases,
// tables, indexes, system tables) over Paimon tables. Errors are mapped to
// MySQL error codes here and nowhere below.
//
// Written values are exact or an error, as in MySQL's strict mode: an
// analyzer rule (strict.go) checks every value INSERT, REPLACE and UPDATE
// assign before GMS converts (and would clamp or wrap) it, and UNSIGNED
// columns, stored in the next wider signed Paimon type, keep their range
// through a table option (unsigned.go).
package provider
