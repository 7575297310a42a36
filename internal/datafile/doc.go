// Package datafile reads Paimon data files (Parquet) into the Go value model
// of internal/schema.
//
// It is the only package that imports a Parquet library. A data file is
// opened with [OpenParquet] (or [OpenFile], which dispatches on the file
// format and rejects ORC and Avro with [ErrUnsupported]) for a list of
// [Column]s located by Parquet field_id, falling back to the field name when
// the file carries no field ids. Columns the file does not have read as NULL
// (schema evolution adds columns).
//
// Layout (mirrors org.apache.paimon.format.parquet.ParquetSchemaConverter and
// ParquetReaderFactory): primary-key files carry _KEY_<k>, _SEQUENCE_NUMBER
// and _VALUE_KIND before the value columns; they are ordinary columns here,
// requested like any other by their field ids (see SequenceNumberFieldID,
// ValueKindFieldID, KeyFieldID).
//
// Decoding: flat columns are decoded page by page with the typed page
// buffers of parquet-go (no per-value reflection); dictionary-encoded pages
// box each dictionary entry once and share it between rows. Nested columns
// (ARRAY, MAP, MULTISET, ROW) are assembled from the repetition and
// definition levels of their leaves.
//
// Statistics: [ParquetReader.RowGroups] decodes each row group's column chunk
// statistics into the value model the way Java Paimon's
// ParquetSimpleStatsExtractor does: TIMESTAMP stored as INT96 and
// BINARY/VARBINARY columns have unknown min/max (null count kept), nested
// columns have no statistics at all.
//
// Values returned by Next are owned by the caller but must be treated as
// immutable: values decoded from one dictionary entry (strings, []byte,
// decimals) are shared between rows.
//
// Concurrency: a ParquetReader is not safe for concurrent use. Distinct
// readers over the same storage.File are independent.
//
// Robustness: no input makes this package panic. The Parquet library may
// panic on garbage; every exported entry point recovers and returns an error
// wrapping [ErrCorrupt]. I/O errors of the underlying storage.File are
// returned as they are (not as ErrCorrupt).
package datafile
