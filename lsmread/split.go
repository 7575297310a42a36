package lsmread

import (
	"fmt"
	"strings"

	"github.com/lakesql/lakesql/internal/sortedrun"

	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// ReadMode says how a split's files are read.
type ReadMode uint8

const (
	// ReadMerge sort-merges the sorted runs of a primary-key bucket through
	// the table's merge function (merge-on-read).
	ReadMerge ReadMode = iota
	// ReadRaw reads each file as it is: append tables, primary-key tables
	// with deletion vectors or the first-row engine (levels ≥ 1 only, where
	// every key occurs once after deletion vectors are applied), and buckets
	// of other primary-key tables whose files are all on one level above 0
	// without retract records (rawConvertible).
	ReadRaw
	// ReadRecords reads every record of the files as written, retractions
	// included, with its row kind: the delta or changelog files of an
	// incremental read (Java reads such "streaming" splits without merging).
	ReadRecords
	// ReadDiff compares the merged rows of BeforeFiles with those of Files
	// (an incremental diff).
	ReadDiff
)

var readModeNames = [...]string{"merge", "raw", "records", "diff"}

func (m ReadMode) String() string {
	if int(m) < len(readModeNames) {
		return readModeNames[m]
	}
	return fmt.Sprintf("ReadMode(%d)", uint8(m))
}

// DeletionFile locates one data file's deletion vector inside an index file
// (Java DeletionFile).
type DeletionFile = sortedrun.DeletionFile

// DataSplit mirrors org.apache.paimon.table.source.DataSplit: the live files
// of one (partition, bucket) to read together.
type DataSplit struct {
	SnapshotID      int64
	Partition       manifest.SerializedRow
	PartitionValues []any
	// PartitionPath is the partition folder relative to the table root
	// (with a trailing '/'; "" when unpartitioned).
	PartitionPath string
	Bucket        manifest.Bucket
	TotalBuckets  int32
	Files         []manifest.DataFileMeta
	// DeletionFiles is parallel to Files; nil entries have no deletion vector.
	DeletionFiles []*DeletionFile
	Mode          ReadMode
	// BeforeFiles and BeforeDeletionFiles are the files of the earlier
	// snapshot of a diff (ReadDiff).
	BeforeFiles         []manifest.DataFileMeta
	BeforeDeletionFiles []*DeletionFile
}

// RowCount is the sum of the files' row counts (retract rows included) minus
// the rows their deletion vectors remove, when known.
func (s *DataSplit) RowCount() int64 {
	var n int64
	for i, f := range s.Files {
		n += f.RowCount
		if i < len(s.DeletionFiles) && s.DeletionFiles[i] != nil && s.DeletionFiles[i].Cardinality > 0 {
			n -= s.DeletionFiles[i].Cardinality
		}
	}
	return n
}

// BucketPath is the folder of the split's files, relative to the table root.
func (s *DataSplit) BucketPath() string {
	return s.PartitionPath + BucketDir(s.Bucket)
}

// BucketDir is the bucket folder name with a trailing '/': bucket-N/, or
// bucket-postpone/ (snapshot.BucketDir).
func BucketDir(b manifest.Bucket) string { return snapshot.BucketDir(b) + "/" }

func (s *DataSplit) String() string {
	var names []string
	for _, f := range s.Files {
		names = append(names, fmt.Sprintf("%s(L%d,%d rows)", f.FileName, f.Level, f.RowCount))
	}
	return fmt.Sprintf("split{%sbucket=%d mode=%s files=[%s]}", s.PartitionPath, s.Bucket, s.Mode, strings.Join(names, " "))
}
