// Package schema holds Paimon's table schema model: DataType and DataField,
// TableSchema (schema/schema-N JSON, read and written byte-compatibly with
// Java), the table options with Paimon's exact keys and defaults, and the Go
// value model that every other package uses for values of each type
// (value.go).
//
// Concurrency: types are immutable after construction and safe to share.
package schema
