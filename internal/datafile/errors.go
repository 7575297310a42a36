package datafile

import "errors"

// Sentinel errors. Every decoder in this package wraps one of them so that
// errors.Is works for callers.
var (
	// ErrCorrupt is wrapped by every error caused by the contents of a data
	// file: a bad footer, bad pages, levels that do not add up, and any panic
	// raised by the Parquet library while decoding (converted at the package
	// boundary).
	ErrCorrupt = errors.New("datafile: corrupt data file")
	// ErrUnsupported is returned for file formats or Parquet features this
	// package does not read (ORC and Avro data files, encrypted Parquet).
	ErrUnsupported = errors.New("datafile: unsupported")
	// ErrTypeMismatch is returned when a requested column's Paimon type
	// cannot be read from the Parquet type found in the file.
	ErrTypeMismatch = errors.New("datafile: column type mismatch")
)
