package schema

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Options are table options (the "options" object of a schema), keyed and
// defaulted exactly like Paimon's CoreOptions (1.3.1). Unknown keys are kept
// as they are. Accessors that parse a value return an error naming the key
// and the bad value (wrapping ErrInvalidOption); Core parses every fixed key
// at once.
type Options map[string]string

// Option keys (CoreOptions).
const (
	OptBucket                                      = "bucket"
	OptBucketKey                                   = "bucket-key"
	OptMergeEngine                                 = "merge-engine"
	OptIgnoreDelete                                = "ignore-delete"
	OptSequenceField                               = "sequence.field"
	OptSequenceFieldSortOrder                      = "sequence.field.sort-order"
	OptChangelogProducer                           = "changelog-producer"
	OptDeletionVectorsEnabled                      = "deletion-vectors.enabled"
	OptDeletionVectorsBitmap64                     = "deletion-vectors.bitmap64"
	OptNumSortedRunCompactionTrigger               = "num-sorted-run.compaction-trigger"
	OptNumSortedRunStopTrigger                     = "num-sorted-run.stop-trigger"
	OptNumLevels                                   = "num-levels"
	OptCompactionMaxSizeAmplificationPercent       = "compaction.max-size-amplification-percent"
	OptCompactionSizeRatio                         = "compaction.size-ratio"
	OptTargetFileSize                              = "target-file-size"
	OptWriteBufferSize                             = "write-buffer-size"
	OptFileFormat                                  = "file.format"
	OptFileCompression                             = "file.compression"
	OptFileCompressionZstdLevel                    = "file.compression.zstd-level"
	OptManifestFormat                              = "manifest.format"
	OptManifestCompression                         = "manifest.compression"
	OptManifestTargetFileSize                      = "manifest.target-file-size"
	OptManifestMergeMinCount                       = "manifest.merge-min-count"
	OptSnapshotNumRetainedMin                      = "snapshot.num-retained.min"
	OptSnapshotNumRetainedMax                      = "snapshot.num-retained.max"
	OptSnapshotTimeRetained                        = "snapshot.time-retained"
	OptSnapshotExpireLimit                         = "snapshot.expire.limit"
	OptPartitionDefaultName                        = "partition.default-name"
	OptPartitionLegacyName                         = "partition.legacy-name"
	OptMetadataStatsMode                           = "metadata.stats-mode"
	OptMetadataStatsDenseStore                     = "metadata.stats-dense-store"
	OptFieldsDefaultAggregateFunction              = "fields.default-aggregate-function"
	OptPartialUpdateRemoveRecordOnDelete           = "partial-update.remove-record-on-delete"
	OptPartialUpdateRemoveRecordOnSeqGroup         = "partial-update.remove-record-on-sequence-group"
	OptAggregationRemoveRecordOnDelete             = "aggregation.remove-record-on-delete"
	OptFullCompactionDeltaCommits                  = "full-compaction.delta-commits"
	OptCommitMaxRetries                            = "commit.max-retries"
	OptCommitForceCompact                          = "commit.force-compact"
	OptDynamicBucketTargetRowNum                   = "dynamic-bucket.target-row-num"
	OptIndexFileInDataFileDir                      = "index-file-in-data-file-dir"
	OptDataFilePrefix                              = "data-file.prefix"
	OptChangelogFilePrefix                         = "changelog-file.prefix"
	OptDataFileThinMode                            = "data-file.thin-mode"
	OptFileIndexInManifestThreshold                = "file-index.in-manifest-threshold"
	OptScanFallbackBranch                          = "scan.fallback-branch"
	OptDeletionVectorIndexFileTargetSize           = "deletion-vector.index-file.target-size"
	OptManifestFullCompactionThresholdSize         = "manifest.full-compaction-threshold-size"
	OptBucketFunctionType                          = "bucket-function.type"
	optFieldsPrefix                                = "fields."
	optSuffixStatsMode                             = "stats-mode"
	OptSuffixAggregateFunction                     = "aggregate-function"
	OptSuffixIgnoreRetract                         = "ignore-retract"
	OptSuffixListAggDelimiter                      = "list-agg-delimiter"
	OptSuffixDistinct                              = "distinct"
	OptSuffixSequenceGroup                         = "sequence-group"
	ignoreDeleteFallbackFirstRow                   = "first-row.ignore-delete"
	ignoreDeleteFallbackDeduplicate                = "deduplicate.ignore-delete"
	ignoreDeleteFallbackPartialUpdate              = "partial-update.ignore-delete"
	defaultPartitionName                           = "__DEFAULT_PARTITION__"
	defaultStatsMode                               = "truncate(16)"
	DefaultListAggDelimiter                        = ","
	mib                                      int64 = 1 << 20
)

// OptUnsignedPrefix starts lakesql's own option 'lakesql.unsigned.<column>'
// = '<mysql integer type>', which marks a column created UNSIGNED (stored in
// the next wider signed type; Paimon keeps the option, other engines ignore
// it). Schema changes keep it in step with RENAME and DROP COLUMN.
const OptUnsignedPrefix = "lakesql.unsigned."

// Option defaults (CoreOptions, 1.3.1).
const (
	DefaultBucket                                = -1
	DefaultNumSortedRunCompactionTrigger         = 5
	DefaultCompactionMaxSizeAmplificationPercent = 200
	DefaultCompactionSizeRatio                   = 1
	DefaultTargetFileSizePrimaryKey              = 128 * mib
	DefaultTargetFileSizeAppend                  = 256 * mib
	DefaultWriteBufferSize                       = 256 * mib
	DefaultFileFormat                            = "parquet"
	DefaultFileCompression                       = "zstd"
	DefaultFileCompressionZstdLevel              = 1
	DefaultManifestFormat                        = "avro"
	DefaultManifestCompression                   = "zstd"
	DefaultManifestTargetFileSize                = 8 * mib
	DefaultManifestMergeMinCount                 = 30
	DefaultSnapshotNumRetainedMin                = 10
	DefaultSnapshotNumRetainedMax                = math.MaxInt32
	DefaultSnapshotTimeRetained                  = time.Hour
	DefaultSnapshotExpireLimit                   = 50
	DefaultPartitionName                         = defaultPartitionName
	DefaultMetadataStatsMode                     = defaultStatsMode
	DefaultCommitMaxRetries                      = 10
	DefaultDynamicBucketTargetRowNum             = 2_000_000
	DefaultDataFilePrefix                        = "data-"
	DefaultChangelogFilePrefix                   = "changelog-"
	DefaultFileIndexInManifestThreshold          = 500
	DefaultDeletionVectorIndexFileTargetSize     = 2 * mib
	DefaultManifestFullCompactionThresholdSize   = 16 * mib
)

// Bucket modes carried by the "bucket" option.
const (
	BucketDynamic  = -1 // PK tables: dynamic bucket; append tables: bucket-unaware
	BucketPostpone = -2
)

// MergeEngine is the "merge-engine" option (CoreOptions.MergeEngine).
type MergeEngine string

const (
	MergeEngineDeduplicate   MergeEngine = "deduplicate"
	MergeEnginePartialUpdate MergeEngine = "partial-update"
	MergeEngineAggregation   MergeEngine = "aggregation"
	MergeEngineFirstRow      MergeEngine = "first-row"
)

// IgnoreDeleteFallbackKeys are the older spellings of ignore-delete, read in
// this order when ignore-delete itself is absent (CoreOptions.IGNORE_DELETE).
var IgnoreDeleteFallbackKeys = []string{ignoreDeleteFallbackFirstRow, ignoreDeleteFallbackDeduplicate, ignoreDeleteFallbackPartialUpdate}

// MergeEngines lists the merge engines in Java's order.
var MergeEngines = []MergeEngine{MergeEngineDeduplicate, MergeEnginePartialUpdate, MergeEngineAggregation, MergeEngineFirstRow}

// ChangelogProducer is the "changelog-producer" option.
type ChangelogProducer string

const (
	ChangelogProducerNone           ChangelogProducer = "none"
	ChangelogProducerInput          ChangelogProducer = "input"
	ChangelogProducerFullCompaction ChangelogProducer = "full-compaction"
	ChangelogProducerLookup         ChangelogProducer = "lookup"
)

// SortOrder is the "sequence.field.sort-order" option.
type SortOrder string

const (
	SortOrderAscending  SortOrder = "ascending"
	SortOrderDescending SortOrder = "descending"
)

func badOption(key, value string, why string) error {
	return fmt.Errorf("%w: %q = %q: %s", ErrInvalidOption, key, value, why)
}

// Get returns the raw value of key.
func (o Options) Get(key string) (string, bool) {
	v, ok := o[key]
	return v, ok
}

// Clone returns a copy that may be modified independently.
func (o Options) Clone() Options {
	c := make(Options, len(o))
	for k, v := range o {
		c[k] = v
	}
	return c
}

func (o Options) str(key, def string) string {
	if v, ok := o[key]; ok {
		return v
	}
	return def
}

func (o Options) int(key string, def int) (int, error) {
	v, ok := o[key]
	if !ok {
		return def, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
	if err != nil {
		return def, badOption(key, v, "not a 32-bit integer")
	}
	return int(n), nil
}

func (o Options) optInt(key string) (int, bool, error) {
	if _, ok := o[key]; !ok {
		return 0, false, nil
	}
	n, err := o.int(key, 0)
	return n, err == nil, err
}

func (o Options) long(key string, def int64) (int64, error) {
	v, ok := o[key]
	if !ok {
		return def, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return def, badOption(key, v, "not a 64-bit integer")
	}
	return n, nil
}

func (o Options) bool(key string, def bool, fallbacks ...string) (bool, error) {
	v, ok := o[key]
	if !ok {
		for _, fb := range fallbacks {
			if v, ok = o[fb]; ok {
				key = fb
				break
			}
		}
	}
	if !ok {
		return def, nil
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return def, badOption(key, v, "not a boolean (true or false)")
}

func (o Options) memory(key string, def int64) (int64, error) {
	v, ok := o[key]
	if !ok {
		return def, nil
	}
	n, err := ParseMemorySize(v)
	if err != nil {
		return def, badOption(key, v, err.Error())
	}
	return n, nil
}

func (o Options) duration(key string, def time.Duration) (time.Duration, error) {
	v, ok := o[key]
	if !ok {
		return def, nil
	}
	d, err := ParseDuration(v)
	if err != nil {
		return def, badOption(key, v, err.Error())
	}
	return d, nil
}

func enumOption[T ~string](o Options, key string, def T, values ...T) (T, error) {
	v, ok := o[key]
	if !ok {
		return def, nil
	}
	for _, e := range values {
		if strings.EqualFold(strings.TrimSpace(v), string(e)) {
			return e, nil
		}
	}
	names := make([]string, len(values))
	for i, e := range values {
		names[i] = string(e)
	}
	return def, badOption(key, v, "must be one of "+strings.Join(names, ", "))
}

func splitList(v string) []string {
	if strings.TrimSpace(v) == "" {
		return nil
	}
	return strings.Split(v, ",")
}

// Bucket is "bucket" (default -1: dynamic for PK tables, unaware for
// append tables; -2 postpone; N > 0 fixed).
func (o Options) Bucket() (int, error) { return o.int(OptBucket, DefaultBucket) }

// BucketKey is "bucket-key" split on commas; nil when unset or blank.
func (o Options) BucketKey() []string { return splitList(o[OptBucketKey]) }

// MergeEngine is "merge-engine" (default deduplicate).
func (o Options) MergeEngine() (MergeEngine, error) {
	return enumOption(o, OptMergeEngine, MergeEngineDeduplicate, MergeEngines...)
}

// IgnoreDelete is "ignore-delete" (default false), falling back to
// first-row.ignore-delete, deduplicate.ignore-delete and
// partial-update.ignore-delete.
func (o Options) IgnoreDelete() (bool, error) {
	return o.bool(OptIgnoreDelete, false, IgnoreDeleteFallbackKeys...)
}

// SequenceField is "sequence.field" split on commas; nil when unset.
func (o Options) SequenceField() []string {
	v, ok := o[OptSequenceField]
	if !ok {
		return nil
	}
	return strings.Split(v, ",")
}

// SequenceFieldSortOrder is "sequence.field.sort-order" (default ascending).
func (o Options) SequenceFieldSortOrder() (SortOrder, error) {
	return enumOption(o, OptSequenceFieldSortOrder, SortOrderAscending, SortOrderAscending, SortOrderDescending)
}

// ChangelogProducer is "changelog-producer" (default none).
func (o Options) ChangelogProducer() (ChangelogProducer, error) {
	return enumOption(o, OptChangelogProducer, ChangelogProducerNone, ChangelogProducerNone,
		ChangelogProducerInput, ChangelogProducerFullCompaction, ChangelogProducerLookup)
}

// DeletionVectorsEnabled is "deletion-vectors.enabled" (default false).
func (o Options) DeletionVectorsEnabled() (bool, error) {
	return o.bool(OptDeletionVectorsEnabled, false)
}

// DeletionVectorsBitmap64 is "deletion-vectors.bitmap64" (default false).
func (o Options) DeletionVectorsBitmap64() (bool, error) {
	return o.bool(OptDeletionVectorsBitmap64, false)
}

// NumSortedRunCompactionTrigger is "num-sorted-run.compaction-trigger" (default 5).
func (o Options) NumSortedRunCompactionTrigger() (int, error) {
	return o.int(OptNumSortedRunCompactionTrigger, DefaultNumSortedRunCompactionTrigger)
}

// NumSortedRunStopTrigger is "num-sorted-run.stop-trigger", default
// compaction trigger + 3, and never below the compaction trigger.
func (o Options) NumSortedRunStopTrigger() (int, error) {
	trigger, err := o.NumSortedRunCompactionTrigger()
	if err != nil {
		return 0, err
	}
	stop, ok, err := o.optInt(OptNumSortedRunStopTrigger)
	if err != nil {
		return 0, err
	}
	if !ok {
		stop = addSafely(trigger, 3)
	}
	return max(trigger, stop), nil
}

// NumLevels is "num-levels", default compaction trigger + 1.
func (o Options) NumLevels() (int, error) {
	n, ok, err := o.optInt(OptNumLevels)
	if err != nil || ok {
		return n, err
	}
	trigger, err := o.NumSortedRunCompactionTrigger()
	if err != nil {
		return 0, err
	}
	return addSafely(trigger, 1), nil
}

func addSafely(a, b int) int {
	if s := int64(a) + int64(b); s <= math.MaxInt32 {
		return int(s)
	}
	return math.MaxInt32
}

// CompactionMaxSizeAmplificationPercent is
// "compaction.max-size-amplification-percent" (default 200).
func (o Options) CompactionMaxSizeAmplificationPercent() (int, error) {
	return o.int(OptCompactionMaxSizeAmplificationPercent, DefaultCompactionMaxSizeAmplificationPercent)
}

// CompactionSizeRatio is "compaction.size-ratio" (default 1).
func (o Options) CompactionSizeRatio() (int, error) {
	return o.int(OptCompactionSizeRatio, DefaultCompactionSizeRatio)
}

// TargetFileSize is "target-file-size" in bytes; default 128 MB for
// primary-key tables and 256 MB for append tables.
func (o Options) TargetFileSize(hasPrimaryKey bool) (int64, error) {
	def := DefaultTargetFileSizeAppend
	if hasPrimaryKey {
		def = DefaultTargetFileSizePrimaryKey
	}
	return o.memory(OptTargetFileSize, def)
}

// WriteBufferSize is "write-buffer-size" in bytes (default 256 MB).
func (o Options) WriteBufferSize() (int64, error) {
	return o.memory(OptWriteBufferSize, DefaultWriteBufferSize)
}

// FileFormat is "file.format" (default parquet), lower-cased.
func (o Options) FileFormat() string {
	return strings.ToLower(o.str(OptFileFormat, DefaultFileFormat))
}

// FileCompression is "file.compression" (default zstd).
func (o Options) FileCompression() string { return o.str(OptFileCompression, DefaultFileCompression) }

// FileCompressionZstdLevel is "file.compression.zstd-level" (default 1).
func (o Options) FileCompressionZstdLevel() (int, error) {
	return o.int(OptFileCompressionZstdLevel, DefaultFileCompressionZstdLevel)
}

// ManifestFormat is "manifest.format" (default avro), lower-cased.
func (o Options) ManifestFormat() string {
	return strings.ToLower(o.str(OptManifestFormat, DefaultManifestFormat))
}

// ManifestCompression is "manifest.compression" (default zstd).
func (o Options) ManifestCompression() string {
	return o.str(OptManifestCompression, DefaultManifestCompression)
}

// ManifestTargetFileSize is "manifest.target-file-size" in bytes (default 8 MB).
func (o Options) ManifestTargetFileSize() (int64, error) {
	return o.memory(OptManifestTargetFileSize, DefaultManifestTargetFileSize)
}

// ManifestFullCompactionThresholdSize is
// "manifest.full-compaction-threshold-size" in bytes (default 16 MB).
func (o Options) ManifestFullCompactionThresholdSize() (int64, error) {
	return o.memory(OptManifestFullCompactionThresholdSize, DefaultManifestFullCompactionThresholdSize)
}

// ManifestMergeMinCount is "manifest.merge-min-count" (default 30).
func (o Options) ManifestMergeMinCount() (int, error) {
	return o.int(OptManifestMergeMinCount, DefaultManifestMergeMinCount)
}

// SnapshotNumRetainedMin is "snapshot.num-retained.min" (default 10).
func (o Options) SnapshotNumRetainedMin() (int, error) {
	return o.int(OptSnapshotNumRetainedMin, DefaultSnapshotNumRetainedMin)
}

// SnapshotNumRetainedMax is "snapshot.num-retained.max" (default Integer.MAX_VALUE).
func (o Options) SnapshotNumRetainedMax() (int, error) {
	return o.int(OptSnapshotNumRetainedMax, DefaultSnapshotNumRetainedMax)
}

// SnapshotTimeRetained is "snapshot.time-retained" (default 1 h).
func (o Options) SnapshotTimeRetained() (time.Duration, error) {
	return o.duration(OptSnapshotTimeRetained, DefaultSnapshotTimeRetained)
}

// SnapshotExpireLimit is "snapshot.expire.limit" (default 50).
func (o Options) SnapshotExpireLimit() (int, error) {
	return o.int(OptSnapshotExpireLimit, DefaultSnapshotExpireLimit)
}

// PartitionDefaultName is "partition.default-name" (default __DEFAULT_PARTITION__).
func (o Options) PartitionDefaultName() string {
	return o.str(OptPartitionDefaultName, DefaultPartitionName)
}

// PartitionLegacyName is "partition.legacy-name" (default true).
func (o Options) PartitionLegacyName() (bool, error) { return o.bool(OptPartitionLegacyName, true) }

// MetadataStatsMode is "metadata.stats-mode" (default truncate(16)).
func (o Options) MetadataStatsMode() string {
	return o.str(OptMetadataStatsMode, DefaultMetadataStatsMode)
}

// MetadataStatsDenseStore is "metadata.stats-dense-store" (default true).
func (o Options) MetadataStatsDenseStore() (bool, error) {
	return o.bool(OptMetadataStatsDenseStore, true)
}

// FieldKey builds the per-field key "fields.<field>.<suffix>".
func FieldKey(field, suffix string) string { return optFieldsPrefix + field + "." + suffix }

// FieldStatsMode is "fields.<col>.stats-mode", falling back to
// metadata.stats-mode.
func (o Options) FieldStatsMode(col string) string {
	if v, ok := o[FieldKey(col, optSuffixStatsMode)]; ok {
		return v
	}
	return o.MetadataStatsMode()
}

// DefaultAggregateFunction is "fields.default-aggregate-function".
func (o Options) DefaultAggregateFunction() (string, bool) {
	v, ok := o[OptFieldsDefaultAggregateFunction]
	return v, ok
}

// FieldAggregateFunction is "fields.<col>.aggregate-function", falling back
// to fields.default-aggregate-function; ok is false when neither is set.
func (o Options) FieldAggregateFunction(col string) (string, bool) {
	if v, ok := o[FieldKey(col, OptSuffixAggregateFunction)]; ok {
		return v, true
	}
	return o.DefaultAggregateFunction()
}

// FieldIgnoreRetract is "fields.<col>.ignore-retract" (default false).
func (o Options) FieldIgnoreRetract(col string) (bool, error) {
	return o.bool(FieldKey(col, OptSuffixIgnoreRetract), false)
}

// FieldListAggDelimiter is "fields.<col>.list-agg-delimiter" (default ",").
func (o Options) FieldListAggDelimiter(col string) string {
	return o.str(FieldKey(col, OptSuffixListAggDelimiter), DefaultListAggDelimiter)
}

// FieldDistinct is "fields.<col>.distinct" (collect aggregation, default false).
func (o Options) FieldDistinct(col string) (bool, error) {
	return o.bool(FieldKey(col, OptSuffixDistinct), false)
}

// SequenceGroup is one "fields.<seq1,seq2>.sequence-group" = "<f1,f2>" entry
// of a partial-update table: the sequence fields and the fields they guard.
type SequenceGroup struct {
	SequenceFields []string
	Fields         []string
}

// SequenceGroups returns every fields.<seq>.sequence-group option, sorted by
// key for determinism.
func (o Options) SequenceGroups() []SequenceGroup {
	var keys []string
	for k := range o {
		if strings.HasPrefix(k, optFieldsPrefix) && strings.HasSuffix(k, "."+OptSuffixSequenceGroup) &&
			len(k) > len(optFieldsPrefix)+len(OptSuffixSequenceGroup)+1 {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	out := make([]SequenceGroup, 0, len(keys))
	for _, k := range keys {
		seq := k[len(optFieldsPrefix) : len(k)-len(OptSuffixSequenceGroup)-1]
		out = append(out, SequenceGroup{SequenceFields: strings.Split(seq, ","), Fields: splitList(o[k])})
	}
	return out
}

// FieldSequenceGroup is "fields.<seq>.sequence-group" for one sequence
// field spelling (as written in the key).
func (o Options) FieldSequenceGroup(seq string) ([]string, bool) {
	v, ok := o[FieldKey(seq, OptSuffixSequenceGroup)]
	if !ok {
		return nil, false
	}
	return splitList(v), true
}

// PartialUpdateRemoveRecordOnDelete is
// "partial-update.remove-record-on-delete" (default false).
func (o Options) PartialUpdateRemoveRecordOnDelete() (bool, error) {
	return o.bool(OptPartialUpdateRemoveRecordOnDelete, false)
}

// PartialUpdateRemoveRecordOnSequenceGroup is
// "partial-update.remove-record-on-sequence-group" split on commas.
func (o Options) PartialUpdateRemoveRecordOnSequenceGroup() []string {
	return splitList(o[OptPartialUpdateRemoveRecordOnSeqGroup])
}

// AggregationRemoveRecordOnDelete is "aggregation.remove-record-on-delete"
// (default false).
func (o Options) AggregationRemoveRecordOnDelete() (bool, error) {
	return o.bool(OptAggregationRemoveRecordOnDelete, false)
}

// FullCompactionDeltaCommits is "full-compaction.delta-commits"; ok is
// false when unset.
func (o Options) FullCompactionDeltaCommits() (n int, ok bool, err error) {
	return o.optInt(OptFullCompactionDeltaCommits)
}

// CommitMaxRetries is "commit.max-retries" (default 10).
func (o Options) CommitMaxRetries() (int, error) {
	return o.int(OptCommitMaxRetries, DefaultCommitMaxRetries)
}

// CommitForceCompact is "commit.force-compact" (default false).
func (o Options) CommitForceCompact() (bool, error) { return o.bool(OptCommitForceCompact, false) }

// DynamicBucketTargetRowNum is "dynamic-bucket.target-row-num" (default 2,000,000).
func (o Options) DynamicBucketTargetRowNum() (int64, error) {
	return o.long(OptDynamicBucketTargetRowNum, DefaultDynamicBucketTargetRowNum)
}

// IndexFileInDataFileDir is "index-file-in-data-file-dir" (default false).
func (o Options) IndexFileInDataFileDir() (bool, error) {
	return o.bool(OptIndexFileInDataFileDir, false)
}

// DataFilePrefix is "data-file.prefix" (default "data-").
func (o Options) DataFilePrefix() string { return o.str(OptDataFilePrefix, DefaultDataFilePrefix) }

// ChangelogFilePrefix is "changelog-file.prefix" (default "changelog-").
func (o Options) ChangelogFilePrefix() string {
	return o.str(OptChangelogFilePrefix, DefaultChangelogFilePrefix)
}

// DataFileThinMode is "data-file.thin-mode" (default false).
func (o Options) DataFileThinMode() (bool, error) { return o.bool(OptDataFileThinMode, false) }

// FileIndexInManifestThreshold is "file-index.in-manifest-threshold" in
// bytes (default 500 B).
func (o Options) FileIndexInManifestThreshold() (int64, error) {
	return o.memory(OptFileIndexInManifestThreshold, DefaultFileIndexInManifestThreshold)
}

// DeletionVectorIndexFileTargetSize is
// "deletion-vector.index-file.target-size" in bytes (default 2 MB).
func (o Options) DeletionVectorIndexFileTargetSize() (int64, error) {
	return o.memory(OptDeletionVectorIndexFileTargetSize, DefaultDeletionVectorIndexFileTargetSize)
}

// ScanFallbackBranch is "scan.fallback-branch"; ok is false when unset.
func (o Options) ScanFallbackBranch() (string, bool) {
	v, ok := o[OptScanFallbackBranch]
	return v, ok
}
