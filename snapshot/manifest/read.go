package manifest

import (
	"fmt"
	"iter"
)

// ManifestEntries streams the entries of a manifest file (manifest-*).
// name is used in errors only. Every error wraps ErrCorrupt or
// ErrUnsupported (ErrORCManifest for ORC files); iteration stops after the
// first error.
func ManifestEntries(data []byte, name string) iter.Seq2[ManifestEntry, error] {
	return records(manifestEntrySpec, ManifestEntryVersion, data, name)
}

// ReadManifest returns all entries of a manifest file.
func ReadManifest(data []byte, name string) ([]ManifestEntry, error) {
	return collect(ManifestEntries(data, name))
}

// ManifestFileMetas streams the records of a manifest list
// (manifest-list-*).
func ManifestFileMetas(data []byte, name string) iter.Seq2[ManifestFileMeta, error] {
	return records(manifestFileMetaSpec, ManifestFileMetaVersion, data, name)
}

// ReadManifestList returns all records of a manifest list.
func ReadManifestList(data []byte, name string) ([]ManifestFileMeta, error) {
	return collect(ManifestFileMetas(data, name))
}

// IndexManifestEntries streams the entries of an index manifest
// (index-manifest-*).
func IndexManifestEntries(data []byte, name string) iter.Seq2[IndexManifestEntry, error] {
	return records(indexManifestEntrySpec, IndexManifestEntryVersion, data, name)
}

// ReadIndexManifest returns all entries of an index manifest.
func ReadIndexManifest(data []byte, name string) ([]IndexManifestEntry, error) {
	return collect(IndexManifestEntries(data, name))
}

func collect[T any](seq iter.Seq2[T, error]) ([]T, error) {
	var out []T
	for v, err := range seq {
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if out == nil {
		out = []T{}
	}
	return out, nil
}

// records decodes the container in data with spec, checking each record's
// _VERSION against version.
func records[T any](spec *recordSpec[versioned[T]], version int32, data []byte, name string) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		c, err := parseContainer(data, name)
		if err != nil {
			yield(zero, err)
			return
		}
		read, err := compile(spec, c.schema)
		if err != nil {
			yield(zero, wrapSchemaErr(name, err))
			return
		}
		stopped := errStop{}
		var d dec
		err = c.blocks(func(count int64, block []byte) error {
			d = dec{b: block, s: string(block)}
			for i := range count {
				rec, ok := read(&d)
				if d.err != nil {
					return corruptf(name, "record %d of block: %v", i, d.err)
				}
				if !ok {
					return corruptf(name, "null record")
				}
				if rec.version != version {
					return unsupportedf(name, "record version %d (want %d)", rec.version, version)
				}
				if !yield(rec.v, nil) {
					return stopped
				}
			}
			if d.remaining() != 0 {
				return corruptf(name, "%d bytes left over after the records of a block", d.remaining())
			}
			return nil
		})
		if err != nil && err != error(stopped) {
			yield(zero, err)
		}
	}
}

type errStop struct{}

func (errStop) Error() string { return "stopped" }

func wrapSchemaErr(name string, err error) error {
	if isUnsupported(err) {
		return fmt.Errorf("%s: %w", name, err)
	}
	return corruptf(name, "%v", err)
}
