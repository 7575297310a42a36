package manifest

import (
	"errors"
	"fmt"
)

var (
	// ErrCorrupt is wrapped by every error caused by the contents of a file
	// (bad Avro, missing required fields, unknown enum values) and by
	// inconsistent entry streams (a data file added twice).
	ErrCorrupt = errors.New("manifest: corrupt file")
	// ErrUnsupported is wrapped by errors for well-formed files this package
	// cannot read, such as ORC manifests or unknown record versions.
	ErrUnsupported = errors.New("manifest: unsupported")
	// ErrORCManifest is returned (wrapped, naming the file) for manifests
	// written with manifest.format=orc. It wraps ErrUnsupported.
	ErrORCManifest = fmt.Errorf("%w: ORC manifest", ErrUnsupported)
)

// corruptf returns an error wrapping ErrCorrupt that names the file.
func corruptf(name, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrCorrupt, name, fmt.Sprintf(format, args...))
}

// unsupportedf returns an error wrapping ErrUnsupported that names the file.
func unsupportedf(name, format string, args ...any) error {
	return fmt.Errorf("%w: %s (file %s)", ErrUnsupported, fmt.Sprintf(format, args...), name)
}

func isUnsupported(err error) bool { return errors.Is(err, ErrUnsupported) }
