// Package provider implements go-mysql-server's sql.* interfaces (databases,
// tables, indexes, system tables) over Paimon tables. Errors are mapped to
// MySQL error codes here and nowhere below.
//
// Written values are exact or an error, as in MySQL's strict mode: an
// analyzer rule (strict.go) checks every value INSERT, REPLACE and UPDATE
// assign before GMS converts (and would clamp or wrap) it, and UNSIGNED
// columns, stored in the next wider signed Paimon type, keep their range
// through a table option (unsigned.go).
//
// Invariant of the index and pushdown paths (index.go, lookup.go,
// lookup_bounds.go, pushdown.go): an index lookup returns exactly the rows
// whose key satisfies its ranges (GMS drops the join condition of a lookup
// join), and a pushed scan filter returns a superset of the rows its filter
// keeps (GMS evaluates the filter again). A NULL key matches nothing; a bound
// that does not convert to the key column is an error, never a wider scan.
package provider
