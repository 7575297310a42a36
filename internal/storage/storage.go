package storage

import (
	"context"
	"errors"
	"io"
	"iter"
	"time"
)

// Sentinel errors. Backends wrap them so errors.Is works across backends.
var (
	// ErrNotExist is returned when a path does not exist.
	ErrNotExist = errors.New("storage: file does not exist")
	// ErrExist is returned by CreateIfNotExists when the path already exists:
	// another writer won the race.
	ErrExist = errors.New("storage: file already exists")
)

// ObjectInfo describes one listed object.
type ObjectInfo struct {
	// Path is relative to the Storage root, with '/' separators.
	Path    string
	Size    int64
	ModTime time.Time
}

// File is an open object for random-access reads.
type File interface {
	io.ReaderAt
	io.Closer
	Size() int64
}

// Storage is a bucket-like store rooted at one URL (a warehouse, a table). All
// paths are relative to that root and use '/' separators; they never begin with
// '/'. Implementations are safe for concurrent use.
type Storage interface {
	// Open opens path for range reads. A missing path gives ErrNotExist.
	Open(ctx context.Context, path string) (File, error)
	// ReadAll reads a whole object. A missing path gives ErrNotExist.
	ReadAll(ctx context.Context, path string) ([]byte, error)
	// Create starts writing path, replacing any existing object when the
	// returned writer is closed without error. Nothing is visible before Close.
	Create(ctx context.Context, path string) (io.WriteCloser, error)
	// WriteAll writes a whole object, replacing any existing one.
	WriteAll(ctx context.Context, path string, data []byte) error
	// CreateIfNotExists atomically writes path only if it does not exist yet.
	// Of N concurrent callers (also across OS processes on the local backend)
	// exactly one succeeds; the others get an error wrapping ErrExist.
	CreateIfNotExists(ctx context.Context, path string, data []byte) error
	// Delete removes path. Deleting a missing path gives ErrNotExist.
	Delete(ctx context.Context, path string) error
	// Exists reports whether path exists.
	Exists(ctx context.Context, path string) (bool, error)
	// List yields every object whose path starts with prefix, recursively,
	// in lexical order of Path.
	List(ctx context.Context, prefix string) iter.Seq2[ObjectInfo, error]
	// Sub returns a Storage rooted at dir below this one (sharing the same
	// underlying connection). Closing a Sub does not close its parent.
	Sub(dir string) Storage
	// URL is the root as a URL (file:///abs/dir, mem://..., s3://bucket/prefix).
	URL() string
	Close() error
}
