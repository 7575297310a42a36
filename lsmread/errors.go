package lsmread

import "errors"

// Sentinel errors of package lsmread.
var (
	// ErrUnsupported is returned for table features lakesql cannot read yet
	// (ORC/Avro data files, BLOB columns, data-evolution row ranges, ...).
	// The message names the feature.
	ErrUnsupported = errors.New("lsmread: unsupported")
	// ErrNotFound is returned for an unknown snapshot, tag or branch.
	ErrNotFound = errors.New("lsmread: not found")
	// ErrInvalidScan is returned for an invalid scan request (unknown column,
	// conflicting time-travel options).
	ErrInvalidScan = errors.New("lsmread: invalid scan")
	// ErrInvalidRange is returned for an invalid incremental read (an end
	// before the start, snapshots outside the table's, mixed kinds of
	// bounds).
	ErrInvalidRange = errors.New("lsmread: invalid snapshot range")
)
