package binaryrow

import "errors"

var (
	// ErrCorrupt is wrapped by every decoding error: the bytes are not a valid
	// BinaryRow (or BinaryArray/BinaryMap) of the given types.
	ErrCorrupt = errors.New("binaryrow: corrupt row")
	// ErrUnsupported is wrapped when a type cannot be stored in a BinaryRow by
	// this package (VARIANT, BLOB) or a bucket function does not apply.
	ErrUnsupported = errors.New("binaryrow: unsupported")
	// ErrValue is wrapped when a value does not fit its declared type (wrong Go
	// type, decimal out of precision, bad nano-of-millisecond, wrong arity).
	ErrValue = errors.New("binaryrow: invalid value")
)
