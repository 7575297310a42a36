package manifest

import (
	"encoding/binary"
	"fmt"
	"iter"
)

// FileIdentifier mirrors FileEntry.Identifier: the fields that identify one
// data file across manifest entries. It is comparable, so it can key a map.
type FileIdentifier struct {
	Partition string // partition row bytes
	Bucket    Bucket
	Level     Level
	FileName  string
	// rest encodes extra files, embedded index and external path
	// (length-prefixed, with null markers), so that null and empty differ as
	// they do in Java's equals.
	rest string
}

// Identifier returns the identifier of the file an entry adds or deletes.
func (e *ManifestEntry) Identifier() FileIdentifier {
	id := FileIdentifier{
		Partition: string(e.Partition), Bucket: e.Bucket, Level: e.File.Level, FileName: e.File.FileName,
	}
	f := &e.File
	if len(f.ExtraFiles) == 0 && f.EmbeddedIndex == nil && f.ExternalPath == nil {
		return id
	}
	var b []byte
	b = binary.AppendUvarint(b, uint64(len(f.ExtraFiles)))
	for _, x := range f.ExtraFiles {
		b = binary.AppendUvarint(b, uint64(len(x)))
		b = append(b, x...)
	}
	if f.EmbeddedIndex == nil {
		b = append(b, 0)
	} else {
		b = append(b, 1)
		b = binary.AppendUvarint(b, uint64(len(f.EmbeddedIndex)))
		b = append(b, f.EmbeddedIndex...)
	}
	if f.ExternalPath != nil {
		b = append(b, 1)
		b = append(b, *f.ExternalPath...)
	}
	id.rest = string(b)
	return id
}

func (id FileIdentifier) String() string {
	return fmt.Sprintf("{partition=%x, bucket=%v, level=%v, file=%s}", id.Partition, id.Bucket, id.Level, id.FileName)
}

// EntryMerger applies manifest entries in order with the semantics of Java's
// FileEntry.mergeEntries: an ADD inserts its file (adding a file that is
// already present is an error); a DELETE removes the matching earlier ADD,
// or, if there is none (its ADD lives in manifests not merged here), is kept.
// Feed it the entries of the base manifest list, then of the delta list.
type EntryMerger struct {
	index   map[FileIdentifier]int
	entries []ManifestEntry
	live    []bool
	n       int
}

// NewEntryMerger returns an empty merger.
func NewEntryMerger() *EntryMerger {
	return &EntryMerger{index: map[FileIdentifier]int{}}
}

// Add applies one entry. A duplicate ADD returns an error wrapping
// ErrCorrupt that names the file; the merger is unchanged then.
func (m *EntryMerger) Add(e ManifestEntry) error {
	id := e.Identifier()
	i, found := m.index[id]
	switch e.Kind {
	case FileKindAdd:
		if found {
			return fmt.Errorf("%w: trying to add file %s which is already added: %v", ErrCorrupt, e.File.FileName, id)
		}
	case FileKindDelete:
		if found {
			delete(m.index, id)
			m.live[i] = false
			m.entries[i] = ManifestEntry{} // release memory
			m.n--
			return nil
		}
	default:
		return fmt.Errorf("%w: entry for %s has %v", ErrCorrupt, e.File.FileName, e.Kind)
	}
	m.index[id] = len(m.entries)
	m.entries = append(m.entries, e)
	m.live = append(m.live, true)
	m.n++
	return nil
}

// AddAll applies every entry of seq, stopping at the first error.
func (m *EntryMerger) AddAll(seq iter.Seq2[ManifestEntry, error]) error {
	for e, err := range seq {
		if err != nil {
			return err
		}
		if err := m.Add(e); err != nil {
			return err
		}
	}
	return nil
}

// Len is the number of entries that remain (ADD and unmatched DELETE).
func (m *EntryMerger) Len() int { return m.n }

// Entries returns the remaining entries in first-insertion order, as Java's
// LinkedHashMap: ADD entries and DELETE entries whose ADD was not seen.
func (m *EntryMerger) Entries() []ManifestEntry {
	out := make([]ManifestEntry, 0, m.n)
	for i, ok := range m.live {
		if ok {
			out = append(out, m.entries[i])
		}
	}
	return out
}

// LiveFiles returns the remaining ADD entries: the live data files when the
// merger was fed a whole snapshot (base then delta manifests).
func (m *EntryMerger) LiveFiles() []ManifestEntry {
	out := make([]ManifestEntry, 0, m.n)
	for i, ok := range m.live {
		if ok && m.entries[i].Kind == FileKindAdd {
			out = append(out, m.entries[i])
		}
	}
	return out
}

// MergeEntries is FileEntry.mergeEntries over a slice: the remaining ADD and
// unmatched DELETE entries in order.
func MergeEntries(entries []ManifestEntry) ([]ManifestEntry, error) {
	m := NewEntryMerger()
	for _, e := range entries {
		if err := m.Add(e); err != nil {
			return nil, err
		}
	}
	return m.Entries(), nil
}
