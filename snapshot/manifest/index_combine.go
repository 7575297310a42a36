package manifest

import "fmt"

// CombineIndexEntries computes the entries of the new index manifest from
// the previous one's entries (all ADD) and this commit's index changes, as
// Java's IndexManifestFileHandler.write does (§4.4). The index manifest is a
// full listing, not a delta.
//
// Per index type:
//   - HASH, and DELETION_VECTORS of bucketed tables (bucketUnaware false):
//     key = (partition, bucket, index type); DELETE entries remove the key,
//     then ADD entries replace it.
//   - DELETION_VECTORS of bucket-unaware tables (bucketUnaware true):
//     key = index file name; adding a present file, deleting an absent one,
//     or giving a data file a second DV is an error.
//   - other (global) index types: key = file name; DELETEs first, then ADDs.
//
// The result keeps previous entries in their order, then new ones, with
// entries of different index types in first-seen order of types. Errors wrap
// ErrCorrupt.
func CombineIndexEntries(previous, changes []IndexManifestEntry, bucketUnaware bool) ([]IndexManifestEntry, error) {
	for _, e := range previous {
		if e.Kind != FileKindAdd {
			return nil, fmt.Errorf("%w: previous index manifest holds a %v entry for %s", ErrCorrupt, e.Kind, e.IndexFile.FileName)
		}
	}
	var types []string
	seen := map[string]bool{}
	for _, list := range [][]IndexManifestEntry{previous, changes} {
		for _, e := range list {
			if t := e.IndexFile.IndexType; !seen[t] {
				seen[t] = true
				types = append(types, t)
			}
		}
	}
	var out []IndexManifestEntry
	for _, t := range types {
		prev, cur := ofType(previous, t), ofType(changes, t)
		var res []IndexManifestEntry
		var err error
		switch {
		case t == IndexTypeDeletionVectors && bucketUnaware:
			res, err = combineByFileNameStrict(prev, cur)
		case t == IndexTypeDeletionVectors || t == IndexTypeHash:
			res = combineKeyed(prev, cur, func(e *IndexManifestEntry) string {
				return fmt.Sprintf("%d/%x/%s", e.Bucket, []byte(e.Partition), e.IndexFile.IndexType)
			})
		default:
			res = combineKeyed(prev, cur, func(e *IndexManifestEntry) string { return e.IndexFile.FileName })
		}
		if err != nil {
			return nil, err
		}
		out = append(out, res...)
	}
	if out == nil {
		out = []IndexManifestEntry{}
	}
	return out, nil
}

func ofType(list []IndexManifestEntry, t string) []IndexManifestEntry {
	var out []IndexManifestEntry
	for _, e := range list {
		if e.IndexFile.IndexType == t {
			out = append(out, e)
		}
	}
	return out
}

// orderedIndex is an insertion-ordered map of index entries.
type orderedIndex struct {
	pos  map[string]int
	list []IndexManifestEntry
	gone []bool
}

func newOrderedIndex() *orderedIndex { return &orderedIndex{pos: map[string]int{}} }

func (o *orderedIndex) put(k string, e IndexManifestEntry) {
	if i, ok := o.pos[k]; ok {
		o.list[i], o.gone[i] = e, false
		return
	}
	o.pos[k] = len(o.list)
	o.list = append(o.list, e)
	o.gone = append(o.gone, false)
}

func (o *orderedIndex) remove(k string) bool {
	i, ok := o.pos[k]
	if ok {
		delete(o.pos, k)
		o.gone[i] = true
	}
	return ok
}

func (o *orderedIndex) values() []IndexManifestEntry {
	var out []IndexManifestEntry
	for i, e := range o.list {
		if !o.gone[i] {
			out = append(out, e)
		}
	}
	return out
}

// combineKeyed is BucketedCombiner / GlobalIndexCombiner: deletes first,
// then adds replace.
func combineKeyed(prev, cur []IndexManifestEntry, key func(*IndexManifestEntry) string) []IndexManifestEntry {
	o := newOrderedIndex()
	for i := range prev {
		o.put(key(&prev[i]), prev[i])
	}
	for i := range cur {
		if cur[i].Kind == FileKindDelete {
			o.remove(key(&cur[i]))
		}
	}
	for i := range cur {
		if cur[i].Kind == FileKindAdd {
			o.put(key(&cur[i]), cur[i])
		}
	}
	return o.values()
}

// combineByFileNameStrict is GlobalCombiner (DVs of bucket-unaware tables).
func combineByFileNameStrict(prev, cur []IndexManifestEntry) ([]IndexManifestEntry, error) {
	o := newOrderedIndex()
	dvFiles := map[string]bool{}
	for _, e := range prev {
		o.put(e.IndexFile.FileName, e)
		for _, dv := range e.IndexFile.DVRanges {
			dvFiles[dv.DataFileName] = true
		}
	}
	for _, e := range cur {
		name := e.IndexFile.FileName
		if e.Kind == FileKindAdd {
			if _, ok := o.pos[name]; ok {
				return nil, fmt.Errorf("%w: trying to add index file %s which is already added", ErrCorrupt, name)
			}
			for _, dv := range e.IndexFile.DVRanges {
				if dvFiles[dv.DataFileName] {
					return nil, fmt.Errorf("%w: trying to add a DV for data file %s which already has one", ErrCorrupt, dv.DataFileName)
				}
				dvFiles[dv.DataFileName] = true
			}
			o.put(name, e)
			continue
		}
		if !o.remove(name) {
			return nil, fmt.Errorf("%w: trying to delete index file %s which does not exist", ErrCorrupt, name)
		}
		for _, dv := range e.IndexFile.DVRanges {
			if !dvFiles[dv.DataFileName] {
				return nil, fmt.Errorf("%w: trying to delete the DV of data file %s which does not exist", ErrCorrupt, dv.DataFileName)
			}
			delete(dvFiles, dv.DataFileName)
		}
	}
	return o.values(), nil
}
