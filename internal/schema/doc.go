// Package schema holds Paimon's table schema model: DataType and DataField
// (org.apache.paimon.types), their SQL spelling and JSON codec
// (DataType.asSQLString / serializeJson, DataTypeJsonParser), TableSchema
// (schema/schema-N JSON, read and written byte-compatibly with Java's
// SchemaSerializer and Jackson's default pretty printer), the table options
// with Paimon's exact keys and defaults (CoreOptions, options.go), and the Go
// value model that every other package uses for values of each type
// (value.go) with its helpers: decimals, timestamps, dates, a total order
// (Compare) and schema-evolution casts (CastValue).
//
// Concurrency: types are immutable after construction and safe to share;
// Options is a plain map and must not be written while shared.
//
// Invariants: every decoder error wraps ErrCorrupt; no input makes the
// package panic (MustParseDataType excepted, for constant strings);
// EncodeTableSchema(DecodeTableSchema(b)) == b for every Java-written schema
// file in the fixtures.
package schema
