package schema

import (
	"errors"
	"time"
)

// CoreOptions is every fixed-key option of Options parsed once, with
// Paimon's defaults applied (a typed snapshot of CoreOptions). Per-field
// options (fields.<col>.*) stay on Options.
type CoreOptions struct {
	Bucket                                int
	BucketKey                             []string
	MergeEngine                           MergeEngine
	IgnoreDelete                          bool
	SequenceField                         []string
	SequenceFieldSortOrder                SortOrder
	ChangelogProducer                     ChangelogProducer
	DeletionVectorsEnabled                bool
	DeletionVectorsBitmap64               bool
	NumSortedRunCompactionTrigger         int
	NumSortedRunStopTrigger               int
	NumLevels                             int
	CompactionMaxSizeAmplificationPercent int
	CompactionSizeRatio                   int
	TargetFileSizePrimaryKey              int64 // target-file-size for PK tables
	TargetFileSizeAppend                  int64 // target-file-size for append tables
	WriteBufferSize                       int64
	FileFormat                            string
	FileCompression                       string
	FileCompressionZstdLevel              int
	ManifestFormat                        string
	ManifestCompression                   string
	ManifestTargetFileSize                int64
	ManifestFullCompactionThresholdSize   int64
	ManifestMergeMinCount                 int
	SnapshotNumRetainedMin                int
	SnapshotNumRetainedMax                int
	SnapshotTimeRetained                  time.Duration
	SnapshotExpireLimit                   int
	PartitionDefaultName                  string
	PartitionLegacyName                   bool
	MetadataStatsMode                     string
	MetadataStatsDenseStore               bool
	PartialUpdateRemoveRecordOnDelete     bool
	PartialUpdateRemoveRecordOnSeqGroup   []string
	AggregationRemoveRecordOnDelete       bool
	FullCompactionDeltaCommits            int // 0 when unset
	HasFullCompactionDeltaCommits         bool
	CommitMaxRetries                      int
	CommitForceCompact                    bool
	DynamicBucketTargetRowNum             int64
	IndexFileInDataFileDir                bool
	DataFilePrefix                        string
	ChangelogFilePrefix                   string
	DataFileThinMode                      bool
	FileIndexInManifestThreshold          int64
	DeletionVectorIndexFileTargetSize     int64
	ScanFallbackBranch                    string // "" when unset
	SourceSplitTargetSize                 int64
	SourceSplitOpenFileCost               int64
}

// TargetFileSize returns the target file size for a PK or append table.
func (c *CoreOptions) TargetFileSize(hasPrimaryKey bool) int64 {
	if hasPrimaryKey {
		return c.TargetFileSizePrimaryKey
	}
	return c.TargetFileSizeAppend
}

// Core parses every fixed-key option. The error joins one error per bad
// option, each naming the key and value (errors.Is ErrInvalidOption).
func (o Options) Core() (*CoreOptions, error) {
	var errs []error
	chk := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	var err error
	c := &CoreOptions{}
	c.Bucket, err = o.Bucket()
	chk(err)
	c.BucketKey = o.BucketKey()
	c.MergeEngine, err = o.MergeEngine()
	chk(err)
	c.IgnoreDelete, err = o.IgnoreDelete()
	chk(err)
	c.SequenceField = o.SequenceField()
	c.SequenceFieldSortOrder, err = o.SequenceFieldSortOrder()
	chk(err)
	c.ChangelogProducer, err = o.ChangelogProducer()
	chk(err)
	c.DeletionVectorsEnabled, err = o.DeletionVectorsEnabled()
	chk(err)
	c.DeletionVectorsBitmap64, err = o.DeletionVectorsBitmap64()
	chk(err)
	c.NumSortedRunCompactionTrigger, err = o.NumSortedRunCompactionTrigger()
	chk(err)
	// A bad compaction trigger is reported above; report only the own key here.
	c.NumSortedRunStopTrigger, _ = o.NumSortedRunStopTrigger()
	_, _, err = o.optInt(OptNumSortedRunStopTrigger)
	chk(err)
	c.NumLevels, _ = o.NumLevels()
	_, _, err = o.optInt(OptNumLevels)
	chk(err)
	c.CompactionMaxSizeAmplificationPercent, err = o.CompactionMaxSizeAmplificationPercent()
	chk(err)
	c.CompactionSizeRatio, err = o.CompactionSizeRatio()
	chk(err)
	c.TargetFileSizePrimaryKey, err = o.TargetFileSize(true)
	chk(err)
	c.TargetFileSizeAppend, _ = o.TargetFileSize(false) // same key: reported once
	c.WriteBufferSize, err = o.WriteBufferSize()
	chk(err)
	c.FileFormat = o.FileFormat()
	c.FileCompression = o.FileCompression()
	c.FileCompressionZstdLevel, err = o.FileCompressionZstdLevel()
	chk(err)
	c.ManifestFormat = o.ManifestFormat()
	c.ManifestCompression = o.ManifestCompression()
	c.ManifestTargetFileSize, err = o.ManifestTargetFileSize()
	chk(err)
	c.ManifestFullCompactionThresholdSize, err = o.ManifestFullCompactionThresholdSize()
	chk(err)
	c.ManifestMergeMinCount, err = o.ManifestMergeMinCount()
	chk(err)
	c.SnapshotNumRetainedMin, err = o.SnapshotNumRetainedMin()
	chk(err)
	c.SnapshotNumRetainedMax, err = o.SnapshotNumRetainedMax()
	chk(err)
	c.SnapshotTimeRetained, err = o.SnapshotTimeRetained()
	chk(err)
	c.SnapshotExpireLimit, err = o.SnapshotExpireLimit()
	chk(err)
	c.PartitionDefaultName = o.PartitionDefaultName()
	c.PartitionLegacyName, err = o.PartitionLegacyName()
	chk(err)
	c.MetadataStatsMode = o.MetadataStatsMode()
	c.MetadataStatsDenseStore, err = o.MetadataStatsDenseStore()
	chk(err)
	c.PartialUpdateRemoveRecordOnDelete, err = o.PartialUpdateRemoveRecordOnDelete()
	chk(err)
	c.PartialUpdateRemoveRecordOnSeqGroup = o.PartialUpdateRemoveRecordOnSequenceGroup()
	c.AggregationRemoveRecordOnDelete, err = o.AggregationRemoveRecordOnDelete()
	chk(err)
	c.FullCompactionDeltaCommits, c.HasFullCompactionDeltaCommits, err = o.FullCompactionDeltaCommits()
	chk(err)
	c.CommitMaxRetries, err = o.CommitMaxRetries()
	chk(err)
	c.CommitForceCompact, err = o.CommitForceCompact()
	chk(err)
	c.DynamicBucketTargetRowNum, err = o.DynamicBucketTargetRowNum()
	chk(err)
	c.IndexFileInDataFileDir, err = o.IndexFileInDataFileDir()
	chk(err)
	c.DataFilePrefix = o.DataFilePrefix()
	c.ChangelogFilePrefix = o.ChangelogFilePrefix()
	c.DataFileThinMode, err = o.DataFileThinMode()
	chk(err)
	c.FileIndexInManifestThreshold, err = o.FileIndexInManifestThreshold()
	chk(err)
	c.DeletionVectorIndexFileTargetSize, err = o.DeletionVectorIndexFileTargetSize()
	chk(err)
	c.ScanFallbackBranch, _ = o.ScanFallbackBranch()
	c.SourceSplitTargetSize, err = o.SourceSplitTargetSize()
	chk(err)
	c.SourceSplitOpenFileCost, err = o.SourceSplitOpenFileCost()
	chk(err)
	if len(errs) > 0 {
		return c, errors.Join(errs...)
	}
	return c, nil
}
