package lsmread

import (
	"sync/atomic"

	"github.com/lakesql/lakesql/snapshot/manifest"
)

// rawSectionsRead counts the sections of merged splits read as they are
// (tests).
var rawSectionsRead atomic.Int64

// readRawSplits, when false, merges every bucket of a table that merges on
// read, raw-convertible or not (tests compare both reads).
var readRawSplits = true

// rawConvertible reports whether the files of one bucket of a table that
// merges on read can be read as they are, every key occurring once (Java's
// MergeTreeSplitGenerator.splitForBatch): none is on level 0, none holds a
// retract record, and all are on one level, whose files never overlap
// (a fully compacted bucket).
func rawConvertible(files []manifest.DataFileMeta) bool {
	if len(files) == 0 || !readRawSplits {
		return false
	}
	for i := range files {
		if files[i].Level == 0 || files[i].Level != files[0].Level || !withoutDeleteRows(&files[i]) {
			return false
		}
	}
	return true
}

// withoutDeleteRows reports whether a file is known to hold no retract
// record (-U/-D): its _DELETE_ROW_COUNT is present and 0. Java's
// PrimaryKeyTableRawFileSplitReadProvider merges files written before the
// count existed, and so does lakesql.
func withoutDeleteRows(f *manifest.DataFileMeta) bool {
	return f.DeleteRowCount != nil && *f.DeleteRowCount == 0
}

// rawSection reports whether a section of a merged split (its sorted runs
// of overlapping files) is one file without retract records: a key occurs
// once in a data file (the writer merged its buffer), so merging changes
// nothing and the file is read as it is (Java reads such a split raw).
func rawSection(sec [][]manifest.DataFileMeta) bool {
	return readRawSplits && len(sec) == 1 && len(sec[0]) == 1 && withoutDeleteRows(&sec[0][0])
}

// section is the split of one section's files (of a split without deletion
// vectors: a table that merges on read has none).
func (s *DataSplit) section(sec [][]manifest.DataFileMeta) *DataSplit {
	one := *s
	one.Files = sec[0][:1:1]
	one.DeletionFiles = nil
	one.Mode = ReadRaw
	return &one
}
