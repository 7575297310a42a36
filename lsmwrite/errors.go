package lsmwrite

import "errors"

// Sentinel errors of package lsmwrite. Returned errors wrap one of them (or an
// error of the package that failed: storage, datafile, kv, snapshot).
var (
	// ErrUnsupported marks a table feature lakesql cannot write yet; the
	// message names the option.
	ErrUnsupported = errors.New("lsmwrite: unsupported")
	// ErrInvalidRow marks a row that does not fit the table: wrong arity,
	// NULL in a NOT NULL column, a retract row for an append table.
	ErrInvalidRow = errors.New("lsmwrite: invalid row")
	// ErrClosed is returned by calls on a TableWrite after Prepare, Commit or
	// Abort.
	ErrClosed = errors.New("lsmwrite: table write is closed")
	// ErrCorrupt is wrapped by every error decoding an index file read from
	// the table (a HASH index whose size is not a multiple of 4).
	ErrCorrupt = errors.New("lsmwrite: corrupt index file")
	// ErrBucketCount is returned when a bucket was written before with
	// another bucket count than the table's "bucket" option.
	ErrBucketCount = errors.New("lsmwrite: bucket count changed")
	// ErrInvalidRequest marks a compaction request that does not fit the
	// table (a partition spec naming a column that is not a partition key,
	// a value that does not parse).
	ErrInvalidRequest = errors.New("lsmwrite: invalid compaction request")
)
