package dv

import "errors"

var (
	// ErrCorrupt is wrapped by every decoding error: the bytes (or the
	// offset/length that point at them) are not a valid deletion vector or
	// DV index file.
	ErrCorrupt = errors.New("dv: corrupt deletion vector")
	// ErrPositionOutOfRange is returned when a row position cannot be stored
	// in a deletion vector of the given format (negative, above 2^31-1 for the
	// 32-bit format, above MaxBitmap64Position for the 64-bit one).
	ErrPositionOutOfRange = errors.New("dv: row position out of range")
	// ErrTooLarge is returned when a serialized deletion vector or index file
	// would not fit the int32 offsets and lengths of the index manifest.
	ErrTooLarge = errors.New("dv: deletion vector too large")
	// ErrDuplicateFile is returned when the same data file name is given twice
	// for one index file.
	ErrDuplicateFile = errors.New("dv: duplicate data file name")
	// ErrInvalidFileName is returned by ParseIndexFileName for a name that is
	// not index-<uuid>-<n>.
	ErrInvalidFileName = errors.New("dv: invalid index file name")
)
