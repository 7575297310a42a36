package storage

import (
	"fmt"
	"io/fs"
	"strings"
)

// checkPath validates an object path: relative, '/'-separated, no empty, "."
// or ".." elements, no trailing '/'.
func checkPath(p string) error {
	if p == "" || p == "." || !fs.ValidPath(p) {
		return fmt.Errorf("%w: %q", ErrInvalidPath, p)
	}
	return nil
}

// checkPrefix validates a List prefix: empty, or a path that may end in '/'
// and whose last element may be partial ("snapshot/snapshot-").
func checkPrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	if err := checkPath(strings.TrimSuffix(prefix, "/")); err != nil {
		return fmt.Errorf("%w: list prefix %q", ErrInvalidPath, prefix)
	}
	return nil
}

// joinPath joins a '/'-separated prefix (possibly empty) and a path.
func joinPath(prefix, p string) string {
	if prefix == "" {
		return p
	}
	return prefix + "/" + p
}

// CheckPath reports whether p is a valid object path (relative,
// '/'-separated, no empty, "." or ".." elements, no trailing '/'); the
// error wraps ErrInvalidPath.
func CheckPath(p string) error { return checkPath(p) }
