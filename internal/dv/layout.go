package dv

import (
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/google/uuid"
)

// Index file names ([J] FileStorePathFactory / IndexPathFactory): index
// files are named index-<uuid>-<n>, where uuid is one random UUID per path
// factory (per writer) and n counts the index files it created, from 0. They
// live in the table's index/ directory, or in the bucket directory when
// index-file-in-data-file-dir is set, or under an external path.
const (
	// IndexFilePrefix starts every index file name.
	IndexFilePrefix = "index-"
	// IndexDir is the index directory below the table root.
	IndexDir = "index"
)

// IndexFileName returns index-<id>-<n>, the id in its lowercase canonical
// form as Java's UUID.toString gives it.
func IndexFileName(id uuid.UUID, n int) string {
	return IndexFilePrefix + id.String() + "-" + strconv.Itoa(n)
}

// IndexFilePath returns the path of an index file in the table's index
// directory, relative to the table root.
func IndexFilePath(name string) string { return IndexDir + "/" + name }

// ParseIndexFileName splits an index file name into its UUID and counter.
// It accepts exactly what IndexFileName produces (so index-manifest-...
// names are rejected); errors wrap ErrInvalidFileName.
func ParseIndexFileName(name string) (uuid.UUID, int, error) {
	const uuidLen = 36
	rest, ok := strings.CutPrefix(name, IndexFilePrefix)
	if !ok || len(rest) < uuidLen+2 || rest[uuidLen] != '-' {
		return uuid.UUID{}, 0, fmt.Errorf("%w: %q is not index-<uuid>-<n>", ErrInvalidFileName, name)
	}
	id, err := uuid.Parse(rest[:uuidLen])
	if err != nil || id.String() != rest[:uuidLen] {
		return uuid.UUID{}, 0, fmt.Errorf("%w: %q has no lowercase canonical UUID", ErrInvalidFileName, name)
	}
	digits := rest[uuidLen+1:]
	n, err := strconv.Atoi(digits)
	if err != nil || n < 0 || strconv.Itoa(n) != digits {
		return uuid.UUID{}, 0, fmt.Errorf("%w: %q has no decimal file counter", ErrInvalidFileName, name)
	}
	return id, n, nil
}

// IndexFileNamer hands out index file names for one writer: one random UUID,
// a counter from 0. It is safe for concurrent use.
type IndexFileNamer struct {
	id   uuid.UUID
	next atomic.Int64
}

// NewIndexFileNamer returns a namer with a fresh random UUID.
func NewIndexFileNamer() *IndexFileNamer { return NewIndexFileNamerWithUUID(uuid.New()) }

// NewIndexFileNamerWithUUID returns a namer using id (for tests and for
// writers that share one UUID with their data file names).
func NewIndexFileNamerWithUUID(id uuid.UUID) *IndexFileNamer { return &IndexFileNamer{id: id} }

// Next returns the next index file name.
func (n *IndexFileNamer) Next() string {
	return IndexFileName(n.id, int(n.next.Add(1)-1))
}
