package snapshot

import (
	"fmt"
	"slices"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// checkConflicts is Java's ConflictDetection.checkConflicts for the
// features lakesql writes: base holds the live entries of the changed
// partitions in the snapshot the commit is planned on, delta the commit's
// entries. It reports, wrapping ErrConflict:
//
//   - a partition whose _TOTAL_BUCKETS changes without an overwrite;
//   - a delta that adds or deletes one file twice;
//   - a file added that is already live, or deleted that is not live (it
//     was compacted or deleted by another writer);
//   - with keyTypes (primary-key tables), overlapping [minKey, maxKey] of
//     two files of one (partition, bucket, level >= 1).
func checkConflicts(base, delta []manifest.ManifestEntry, kind CommitKind, keyTypes []schema.DataType, latest SnapshotID) error {
	if kind != CommitKindOverwrite {
		total := map[string]int32{}
		for _, list := range [][]manifest.ManifestEntry{base, delta} {
			for i := range list {
				e := &list[i]
				if e.TotalBuckets <= 0 {
					continue
				}
				old, ok := total[string(e.Partition)]
				if !ok {
					total[string(e.Partition)] = e.TotalBuckets
					continue
				}
				if old != e.TotalBuckets {
					return fmt.Errorf("%w: total buckets of partition %x changed from %d to %d without overwrite (base snapshot %d)",
						ErrConflict, []byte(e.Partition), old, e.TotalBuckets, latest)
				}
			}
		}
	}
	// Adding and deleting the same file in one commit would lose it.
	if _, err := manifest.MergeEntries(delta); err != nil {
		return fmt.Errorf("%w: the commit's own entries conflict: %w", ErrConflict, err)
	}
	m := manifest.NewEntryMerger()
	for _, list := range [][]manifest.ManifestEntry{base, delta} {
		for _, e := range list {
			if err := m.Add(e); err != nil {
				return fmt.Errorf("%w: file deletion conflicts detected on snapshot %d: %w", ErrConflict, latest, err)
			}
		}
	}
	merged := m.Entries()
	for i := range merged {
		if merged[i].Kind == manifest.FileKindDelete {
			return fmt.Errorf("%w: trying to delete file %s (partition %x, bucket %d, level %d) which is not live in snapshot %d: another writer compacted or deleted it",
				ErrConflict, merged[i].File.FileName, []byte(merged[i].Partition), merged[i].Bucket, merged[i].File.Level, latest)
		}
	}
	if keyTypes == nil {
		return nil
	}
	return checkKeyRanges(merged, keyTypes, latest)
}

type levelID struct {
	partition string
	bucket    manifest.Bucket
	level     manifest.Level
}

type keyRange struct {
	min, max []any
	file     string
}

// checkKeyRanges checks that the files of every (partition, bucket,
// level >= 1) have disjoint key ranges (the LSM invariant of sorted runs).
func checkKeyRanges(entries []manifest.ManifestEntry, keyTypes []schema.DataType, latest SnapshotID) error {
	levels := map[levelID][]keyRange{}
	for i := range entries {
		e := &entries[i]
		if e.File.Level < 1 {
			continue
		}
		lo, err := binaryrow.DecodeSerialized(keyTypes, e.File.MinKey)
		if err != nil {
			return fmt.Errorf("snapshot: commit: min key of %s: %w", e.File.FileName, err)
		}
		hi, err := binaryrow.DecodeSerialized(keyTypes, e.File.MaxKey)
		if err != nil {
			return fmt.Errorf("snapshot: commit: max key of %s: %w", e.File.FileName, err)
		}
		id := levelID{string(e.Partition), e.Bucket, e.File.Level}
		levels[id] = append(levels[id], keyRange{lo, hi, e.File.FileName})
	}
	for id, runs := range levels {
		slices.SortFunc(runs, func(a, b keyRange) int { return compareKeys(keyTypes, a.min, b.min) })
		for i := 0; i+1 < len(runs); i++ {
			if compareKeys(keyTypes, runs[i].max, runs[i+1].min) >= 0 {
				return fmt.Errorf("%w: LSM conflict on snapshot %d: files %s and %s of partition %x, bucket %d, level %d have overlapping key ranges",
					ErrConflict, latest, runs[i].file, runs[i+1].file, []byte(id.partition), id.bucket, id.level)
			}
		}
	}
	return nil
}

func compareKeys(types []schema.DataType, a, b []any) int {
	for i := range types {
		var x, y any
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if c := schema.Compare(&types[i], x, y); c != 0 {
			return c
		}
	}
	return 0
}

// checkIndexDeletes reports, wrapping ErrConflict, an index change that
// deletes an index file the snapshot the commit is planned on does not list:
// another writer replaced it (a bucket's deletion vectors rewritten by a
// concurrent compaction or DELETE), and committing would lose its changes.
func checkIndexDeletes(prevIndex, index []manifest.IndexManifestEntry, latest *Snapshot) error {
	var live map[string]bool
	for i := range index {
		e := &index[i]
		if e.Kind != manifest.FileKindDelete {
			continue
		}
		if live == nil {
			live = make(map[string]bool, len(prevIndex))
			for j := range prevIndex {
				live[prevIndex[j].IndexFile.FileName] = true
			}
		}
		if !live[e.IndexFile.FileName] {
			var id SnapshotID
			if latest != nil {
				id = latest.ID
			}
			return fmt.Errorf("%w: trying to delete %s index file %s (partition %x, bucket %d) which is not live in snapshot %d: another writer replaced it",
				ErrConflict, e.IndexFile.IndexType, e.IndexFile.FileName, []byte(e.Partition), e.Bucket, id)
		}
	}
	return nil
}
