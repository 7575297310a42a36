package manifest

import (
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/google/uuid"
)

// File names of the manifest folder (<table>/manifest/), as Java's
// FileStorePathFactory builds them: <prefix><uuid>-<n>, no extension.

// FileType is the kind of a metadata file in the manifest folder.
type FileType int

const (
	// FileTypeManifest is a manifest file: manifest-<uuid>-<n>.
	FileTypeManifest FileType = iota
	// FileTypeManifestList is a manifest list: manifest-list-<uuid>-<n>.
	FileTypeManifestList
	// FileTypeIndexManifest is an index manifest: index-manifest-<uuid>-<n>.
	FileTypeIndexManifest
	numFileTypes
)

// Name prefixes per file type.
const (
	ManifestPrefix      = "manifest-"
	ManifestListPrefix  = "manifest-list-"
	IndexManifestPrefix = "index-manifest-"
)

// ManifestDir is the folder of all three file types, relative to the table
// root.
const ManifestDir = "manifest"

func (t FileType) prefix() string {
	switch t {
	case FileTypeManifestList:
		return ManifestListPrefix
	case FileTypeIndexManifest:
		return IndexManifestPrefix
	}
	return ManifestPrefix
}

func (t FileType) String() string {
	switch t {
	case FileTypeManifest:
		return "manifest"
	case FileTypeManifestList:
		return "manifest-list"
	case FileTypeIndexManifest:
		return "index-manifest"
	}
	return fmt.Sprintf("FileType(%d)", int(t))
}

// FileName returns <prefix of t><uuid>-<n>.
func FileName(t FileType, uuid string, n int64) string {
	return t.prefix() + uuid + "-" + strconv.FormatInt(n, 10)
}

// ParseFileName splits a manifest-folder file name into its type, uuid and
// counter. ok is false for names that are not of the three types.
func ParseFileName(name string) (t FileType, uuid string, n int64, ok bool) {
	var rest string
	switch {
	case strings.HasPrefix(name, ManifestListPrefix):
		t, rest = FileTypeManifestList, name[len(ManifestListPrefix):]
	case strings.HasPrefix(name, IndexManifestPrefix):
		t, rest = FileTypeIndexManifest, name[len(IndexManifestPrefix):]
	case strings.HasPrefix(name, ManifestPrefix):
		t, rest = FileTypeManifest, name[len(ManifestPrefix):]
	default:
		return 0, "", 0, false
	}
	i := strings.LastIndexByte(rest, '-')
	if i <= 0 {
		return 0, "", 0, false
	}
	n, err := strconv.ParseInt(rest[i+1:], 10, 64)
	if err != nil || n < 0 || strconv.FormatInt(n, 10) != rest[i+1:] {
		return 0, "", 0, false
	}
	return t, rest[:i], n, true
}

// PathFactory names the metadata files of one writer: one random UUID per
// factory and one counter per file type starting at 0, as Java's
// FileStorePathFactory. Safe for concurrent use.
type PathFactory struct {
	uuid     string
	counters [numFileTypes]atomic.Int64
}

// NewPathFactory returns a factory with a fresh random UUID.
func NewPathFactory() *PathFactory { return NewPathFactoryWithUUID(uuid.NewString()) }

// NewPathFactoryWithUUID returns a factory using the given UUID (tests).
func NewPathFactoryWithUUID(u string) *PathFactory { return &PathFactory{uuid: u} }

// UUID returns the factory's UUID.
func (f *PathFactory) UUID() string { return f.uuid }

// NewName returns the next unused name of type t.
func (f *PathFactory) NewName(t FileType) string {
	if t < 0 || t >= numFileTypes {
		t = FileTypeManifest
	}
	return FileName(t, f.uuid, f.counters[t].Add(1)-1)
}

// NewManifestName returns the next manifest-<uuid>-<n>.
func (f *PathFactory) NewManifestName() string { return f.NewName(FileTypeManifest) }

// NewManifestListName returns the next manifest-list-<uuid>-<n>.
func (f *PathFactory) NewManifestListName() string { return f.NewName(FileTypeManifestList) }

// NewIndexManifestName returns the next index-manifest-<uuid>-<n>.
func (f *PathFactory) NewIndexManifestName() string { return f.NewName(FileTypeIndexManifest) }

// Path returns the path of a metadata file relative to the table root:
// manifest/<name>.
func Path(name string) string { return ManifestDir + "/" + name }
