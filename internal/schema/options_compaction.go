package schema

import "time"

// Compaction-picker options beyond those in options.go (CoreOptions, 1.3.1).
const (
	OptCompactionForceUpLevel0            = "compaction.force-up-level-0"
	OptCompactionOptimizationInterval     = "compaction.optimization-interval"
	OptCompactionTotalSizeThreshold       = "compaction.total-size-threshold"
	OptCompactionIncrementalSizeThreshold = "compaction.incremental-size-threshold"
	OptForceLookup                        = "force-lookup"
	OptLookupCompact                      = "lookup-compact"
	OptLookupCompactMaxInterval           = "lookup-compact.max-interval"
	OptCompactionOffPeakStartHour         = "compaction.offpeak.start.hour"
	OptCompactionOffPeakEndHour           = "compaction.offpeak.end.hour"
	OptCompactionOffPeakRatio             = "compaction.offpeak-ratio"
)

// CompactionOffPeak reads "compaction.offpeak.start.hour" (inclusive),
// "compaction.offpeak.end.hour" (exclusive), both default -1, and
// "compaction.offpeak-ratio" (default 0): during off-peak hours the
// compaction size ratio grows by ratio percent. ok is false when off-peak
// is disabled (both hours -1, or equal), as Java's OffPeakHours.create.
func (o Options) CompactionOffPeak() (start, end, ratio int, ok bool, err error) {
	if start, err = o.int(OptCompactionOffPeakStartHour, -1); err != nil {
		return 0, 0, 0, false, err
	}
	if end, err = o.int(OptCompactionOffPeakEndHour, -1); err != nil {
		return 0, 0, 0, false, err
	}
	if ratio, err = o.int(OptCompactionOffPeakRatio, 0); err != nil {
		return 0, 0, 0, false, err
	}
	if start == end {
		return start, end, ratio, false, nil
	}
	return start, end, ratio, true, nil
}

// LookupCompactGentle is true for "lookup-compact" = gentle (default
// radical).
func (o Options) LookupCompactGentle() (bool, error) {
	m, err := enumOption(o, OptLookupCompact, "radical", "radical", "gentle")
	return m == "gentle", err
}

// LookupCompactMaxInterval is "lookup-compact.max-interval", default twice
// num-sorted-run.compaction-trigger.
func (o Options) LookupCompactMaxInterval() (int, error) {
	n, ok, err := o.optInt(OptLookupCompactMaxInterval)
	if err != nil || ok {
		return n, err
	}
	trigger, err := o.NumSortedRunCompactionTrigger()
	if err != nil {
		return 0, err
	}
	return addSafely(trigger, trigger), nil
}

// CompactionForceUpLevel0 is "compaction.force-up-level-0" (default false):
// when the universal picker picks nothing, compact all level-0 files anyway.
func (o Options) CompactionForceUpLevel0() (bool, error) {
	return o.bool(OptCompactionForceUpLevel0, false)
}

// CompactionOptimizationInterval is "compaction.optimization-interval"; ok
// is false when unset (no default: no periodic full compaction).
func (o Options) CompactionOptimizationInterval() (d time.Duration, ok bool, err error) {
	if _, set := o[OptCompactionOptimizationInterval]; !set {
		return 0, false, nil
	}
	d, err = o.duration(OptCompactionOptimizationInterval, 0)
	return d, err == nil, err
}

// CompactionTotalSizeThreshold is "compaction.total-size-threshold" in
// bytes: below it every compaction is a full one. ok is false when unset.
func (o Options) CompactionTotalSizeThreshold() (n int64, ok bool, err error) {
	return o.optMemory(OptCompactionTotalSizeThreshold)
}

// CompactionIncrementalSizeThreshold is
// "compaction.incremental-size-threshold" in bytes: above it (the size of
// the runs not on the max level) a full compaction runs. ok is false when
// unset.
func (o Options) CompactionIncrementalSizeThreshold() (n int64, ok bool, err error) {
	return o.optMemory(OptCompactionIncrementalSizeThreshold)
}

// ForceLookup is "force-lookup" (default false).
func (o Options) ForceLookup() (bool, error) { return o.bool(OptForceLookup, false) }

// NeedLookup mirrors CoreOptions.needLookup: compaction looks up older
// levels for changelog-producer=lookup, the first-row merge engine,
// deletion vectors or force-lookup. Such tables compact with
// ForceUpLevel0Compaction.
func (o Options) NeedLookup() (bool, error) {
	cp, err := o.ChangelogProducer()
	if err != nil {
		return false, err
	}
	me, err := o.MergeEngine()
	if err != nil {
		return false, err
	}
	dv, err := o.DeletionVectorsEnabled()
	if err != nil {
		return false, err
	}
	fl, err := o.ForceLookup()
	if err != nil {
		return false, err
	}
	return cp == ChangelogProducerLookup || me == MergeEngineFirstRow || dv || fl, nil
}

func (o Options) optMemory(key string) (int64, bool, error) {
	if _, set := o[key]; !set {
		return 0, false, nil
	}
	n, err := o.memory(key, 0)
	return n, err == nil, err
}

// Compaction options of the rewrite and of append tables (CoreOptions,
// 1.3.1).
const (
	OptWriteOnly                      = "write-only"
	optWriteOnlyFallback              = "write.compaction-skip"
	OptCompactionMinFileNum           = "compaction.min.file-num"
	OptCompactionForceRewriteAllFiles = "compaction.force-rewrite-all-files"
	OptSourceSplitOpenFileCost        = "source.split.open-file-cost"
	OptSourceSplitTargetSize          = "source.split.target-size"
	DefaultCompactionMinFileNum       = 5
	DefaultSourceSplitOpenFileCost    = 4 * mib
	DefaultSourceSplitTargetSize      = 128 * mib
	defaultCompactionFileSizeTenths   = 7 // compactionFileSize = target-file-size / 10 * 7
)

// WriteOnly is "write-only" (fallback key "write.compaction-skip", default
// false): writers neither compact nor expire snapshots; a dedicated job
// compacts the table.
func (o Options) WriteOnly() (bool, error) {
	return o.bool(OptWriteOnly, false, optWriteOnlyFallback)
}

// CompactionMinFileNum is "compaction.min.file-num" (default 5): the fewest
// files an append-table compaction takes.
func (o Options) CompactionMinFileNum() (int, error) {
	return o.int(OptCompactionMinFileNum, DefaultCompactionMinFileNum)
}

// CompactionForceRewriteAllFiles is "compaction.force-rewrite-all-files"
// (default false): a full compaction rewrites every file, even those it
// could keep or upgrade.
func (o Options) CompactionForceRewriteAllFiles() (bool, error) {
	return o.bool(OptCompactionForceRewriteAllFiles, false)
}

// SourceSplitOpenFileCost is "source.split.open-file-cost" in bytes
// (default 4 MB): a scan packing files into splits weighs each file at
// least this much, append-table compaction each file by its size plus this
// cost.
func (o Options) SourceSplitOpenFileCost() (int64, error) {
	return o.memory(OptSourceSplitOpenFileCost, DefaultSourceSplitOpenFileCost)
}

// SourceSplitTargetSize is "source.split.target-size" in bytes (default
// 128 MB): a scan packs the files of a bucket that need no merge into
// splits of about this size (Java's split generators).
func (o Options) SourceSplitTargetSize() (int64, error) {
	return o.memory(OptSourceSplitTargetSize, DefaultSourceSplitTargetSize)
}

// CompactionFileSize is CoreOptions.compactionFileSize: files smaller than
// target-file-size / 10 * 7 take part in compaction; larger ones are kept
// (append tables) or only moved to the output level (primary-key tables).
func (c *CoreOptions) CompactionFileSize(hasPrimaryKey bool) int64 {
	return c.TargetFileSize(hasPrimaryKey) / 10 * defaultCompactionFileSizeTenths
}
