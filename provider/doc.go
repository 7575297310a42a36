// Package provider is the go-mysql-server adapter over Paimon tables: it
// implements GMS's sql.* interfaces (databases, tables, the PRIMARY index,
// pushdown, system tables, editors and transactions) on top of the layers
// below, and maps errors to MySQL's codes in one table (errors.go). It holds
// no catalog layout, planning, file reading or commit logic of its own (the
// layering test enforces it): the warehouse layout and DDL are
// snapshot.Catalog's, schema rules internal/schema's, planning, the
// parallel split executor, the columnar aggregate (Plan.Aggregate: the
// AggregateRule only rewrites GMS's GroupBy and converts the groups to
// rows), point lookups, read-your-writes and the stats evolution lsmread's,
// a transaction's commit lsmwrite.CommitTransaction.
//
// Written values are exact or an error, as in MySQL's strict mode: an
// analyzer rule (strict.go) checks every value INSERT, REPLACE and UPDATE
// assign before GMS converts (and would clamp or wrap) it, and UNSIGNED
// columns, stored in the next wider signed Paimon type, keep their range
// through a table option (unsigned.go). The same rule marks INSERT IGNORE
// and ON DUPLICATE KEY UPDATE destinations, whose editors look keys up.
//
// # Concurrency
//
//   - Provider is shared by every session for the life of the server and
//     safe for concurrent use. It keeps one long-lived lsmread.Table per
//     table (handles.go, a mutex-guarded map): resolving a table lists
//     nothing (snapshot.Catalog's name cache) and reuses the handle's
//     managers; the handles hold no snapshot state, so new snapshots need
//     no invalidation; DDL through this server and procedures that change a
//     table (TableChanged) drop them, and a handle is reopened after a
//     minute.
//   - Database and Table values are cheap views made per statement; a
//     Table and its copies (projections, pushed filters, index lookups)
//     share nothing mutable except the plan cache guarded by Table.mu.
//   - A Transaction belongs to one session (GMS runs a connection's
//     statements on its goroutine); its mutex guards the buffered records
//     (kv.PendingWrites) against the scan iterators of the same statement.
//     Readers take a snapshot of the records when they start
//     (lsmread.Table.ReadPending).
//   - A scan's row iterator owns its worker goroutines
//     (lsmread.ParallelRows): Close or the statement's context ending stops
//     and waits for them.
//
// # Invariants
//
//   - Index and pushdown paths (index.go, lookup.go, lookup_bounds.go,
//     pushdown.go): an index lookup returns exactly the rows whose key
//     satisfies its ranges (GMS drops the join condition of a lookup join),
//     and a pushed scan filter returns a superset of the rows its filter
//     keeps (GMS evaluates the filter again). A NULL key matches nothing; a
//     bound that does not convert to the key column is an error, never a
//     wider scan.
//   - A statement that writes commits one snapshot per table at the end of
//     its transaction (autocommit: the statement); nothing is visible to
//     other sessions before. A transaction whose UPDATE, DELETE or key
//     lookup read a key that a later commit changed fails with 1213.
//   - Errors reach clients with MySQL's codes: lakesql's by identity, GMS's
//     kinds by GMS; only errors GMS converts before lakesql sees them are
//     known by their text (errors.go says which).
package provider
