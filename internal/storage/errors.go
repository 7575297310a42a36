package storage

import "errors"

// More sentinels (ErrNotExist and ErrExist are declared with the interface in
// storage.go).
var (
	// ErrInvalidPath is returned for a path that is empty, absolute, ends in
	// '/', or has empty, "." or ".." elements.
	ErrInvalidPath = errors.New("storage: invalid path")
	// ErrUnsupportedScheme is returned by Open for a URL scheme that has no
	// registered Opener.
	ErrUnsupportedScheme = errors.New("storage: unsupported URL scheme")
)
