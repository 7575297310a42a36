package lsmwrite

import (
	"time"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// CompactionOptions configure the universal compaction picker (Java:
// UniversalCompaction, ForceUpLevel0Compaction, EarlyFullCompaction, built
// by MergeTreeCompactManagerFactory.createCompactStrategy).
type CompactionOptions struct {
	// NumSortedRunCompactionTrigger is num-sorted-run.compaction-trigger.
	NumSortedRunCompactionTrigger int
	// NumSortedRunStopTrigger is num-sorted-run.stop-trigger: more sorted
	// runs than this stall writes until a compaction finishes.
	NumSortedRunStopTrigger int
	// MaxSizeAmplificationPercent is compaction.max-size-amplification-percent.
	MaxSizeAmplificationPercent int
	// SizeRatio is compaction.size-ratio (percent).
	SizeRatio int
	// ForceUpLevel0: when universal compaction picks nothing, compact all
	// level-0 runs anyway. Set by compaction.force-up-level-0 and by every
	// table that needs lookup (lookup changelog, first-row, deletion
	// vectors, force-lookup), as Java does.
	ForceUpLevel0 bool
	// OptimizationInterval is compaction.optimization-interval; 0 is unset.
	OptimizationInterval time.Duration
	// TotalSizeThreshold is compaction.total-size-threshold; 0 is unset.
	TotalSizeThreshold int64
	// IncrementalSizeThreshold is compaction.incremental-size-threshold; 0
	// is unset.
	IncrementalSizeThreshold int64
	// LookupCompactMaxInterval is lookup-compact.max-interval for tables
	// that need lookup with lookup-compact=gentle (default twice the
	// compaction trigger): the level-0 force pick happens only on every
	// LookupCompactMaxInterval-th pick that universal compaction declines.
	// 0 (radical, the default mode) force-picks every time.
	LookupCompactMaxInterval int
	// OffPeak is set by compaction.offpeak.start.hour/end.hour: from
	// OffPeakStartHour (inclusive) to OffPeakEndHour (exclusive, wrapping
	// past midnight when smaller) of PickState.Now in UTC, the size ratio
	// grows by OffPeakRatio (compaction.offpeak-ratio) percent. Java reads
	// the JVM's local hour, which lakesql takes to be UTC.
	OffPeak                          bool
	OffPeakStartHour, OffPeakEndHour int
	OffPeakRatio                     int
}

// CompactionOptionsFrom reads the picker's options from a table's options,
// with Paimon's keys and defaults. numLevels (num-levels) is read separately
// with schema.Options.NumLevels because Levels may raise it.
func CompactionOptionsFrom(o schema.Options) (CompactionOptions, error) {
	var c CompactionOptions
	var err error
	if c.NumSortedRunCompactionTrigger, err = o.NumSortedRunCompactionTrigger(); err != nil {
		return c, err
	}
	if c.NumSortedRunStopTrigger, err = o.NumSortedRunStopTrigger(); err != nil {
		return c, err
	}
	if c.MaxSizeAmplificationPercent, err = o.CompactionMaxSizeAmplificationPercent(); err != nil {
		return c, err
	}
	if c.SizeRatio, err = o.CompactionSizeRatio(); err != nil {
		return c, err
	}
	force, err := o.CompactionForceUpLevel0()
	if err != nil {
		return c, err
	}
	lookup, err := o.NeedLookup()
	if err != nil {
		return c, err
	}
	c.ForceUpLevel0 = force || lookup
	if lookup {
		gentle, err := o.LookupCompactGentle()
		if err != nil {
			return c, err
		}
		if gentle {
			if c.LookupCompactMaxInterval, err = o.LookupCompactMaxInterval(); err != nil {
				return c, err
			}
		}
	}
	if c.OffPeakStartHour, c.OffPeakEndHour, c.OffPeakRatio, c.OffPeak, err = o.CompactionOffPeak(); err != nil {
		return c, err
	}
	if c.OptimizationInterval, _, err = o.CompactionOptimizationInterval(); err != nil {
		return c, err
	}
	if c.TotalSizeThreshold, _, err = o.CompactionTotalSizeThreshold(); err != nil {
		return c, err
	}
	if c.IncrementalSizeThreshold, _, err = o.CompactionIncrementalSizeThreshold(); err != nil {
		return c, err
	}
	return c, nil
}

// offPeakRatio is OffPeakHours.currentRatio.
func (c CompactionOptions) offPeakRatio(now time.Time) int {
	if !c.OffPeak {
		return 0
	}
	h := now.UTC().Hour()
	var off bool
	if c.OffPeakStartHour <= c.OffPeakEndHour {
		off = c.OffPeakStartHour <= h && h < c.OffPeakEndHour
	} else {
		off = h < c.OffPeakEndHour || c.OffPeakStartHour <= h
	}
	if off {
		return c.OffPeakRatio
	}
	return 0
}

func (c CompactionOptions) earlyFull() bool {
	return c.OptimizationInterval > 0 || c.TotalSizeThreshold > 0 || c.IncrementalSizeThreshold > 0
}

// PickState is the per-bucket state Java's strategies keep between picks;
// the caller keeps one per bucket (zero value: a fresh writer) and sets Now
// before each pick. PickCompaction updates it as Java does.
type PickState struct {
	// Now is the current time, for compaction.optimization-interval and
	// the off-peak hours.
	Now time.Time
	// LastFullCompaction is when a pick last chose a full compaction (Java
	// EarlyFullCompaction.lastFullCompaction); zero is never.
	LastFullCompaction time.Time
	// LookupCompactCount counts the declined picks of the gentle
	// lookup-compact mode (Java ForceUpLevel0Compaction.compactTriggerCount).
	LookupCompactCount int
}

// CompactUnit is what one compaction rewrites (Java: CompactUnit): the
// input runs, newest first, and the level the output goes to.
type CompactUnit struct {
	OutputLevel int
	Runs        []LevelSortedRun
	// Full is true when the unit takes every sorted run of the bucket to
	// the max level (PickCompaction then records PickState.LastFullCompaction).
	Full bool
	// FileRewrite is true for a full compaction of a bucket already in one
	// run on the max level: each file of Runs is rewritten on its own (to
	// apply deletion vectors or record expiry) instead of being merged.
	FileRewrite bool
}

// Files lists the unit's input files in run order.
func (u CompactUnit) Files() []manifest.DataFileMeta {
	var files []manifest.DataFileMeta
	for _, r := range u.Runs {
		files = append(files, r.Run.Files...)
	}
	return files
}

// PickCompaction is the automatic (minor) compaction pick for one bucket:
// runs are Levels.LevelSortedRuns (newest first) and numLevels is
// Levels.NumberOfLevels. In order it tries early full compaction (the
// optimization interval and size thresholds), size amplification, size
// ratio, then the run count; with ForceUpLevel0 it finally takes all
// level-0 runs. ok is false when nothing needs compacting. Like Java's
// MergeTreeCompactManager it drops a unit that is empty or is one file
// already on its output level. The unit's Runs share runs' backing array.
// st may be nil: no state is kept, every pick is a writer's first, and the
// time is the zero time (hour 0 for off-peak).
func PickCompaction(runs []LevelSortedRun, numLevels int, opts CompactionOptions, st *PickState) (unit CompactUnit, ok bool) {
	if st == nil {
		st = &PickState{}
	}
	unit, ok = pickUniversal(runs, numLevels, opts, *st)
	if !ok && opts.ForceUpLevel0 {
		if opts.LookupCompactMaxInterval <= 0 {
			unit, ok = forcePickL0(runs, numLevels, opts, st.Now)
		} else {
			st.LookupCompactCount++
			if st.LookupCompactCount == opts.LookupCompactMaxInterval {
				st.LookupCompactCount = 0
				unit, ok = forcePickL0(runs, numLevels, opts, st.Now)
			}
		}
	}
	if ok && unit.Full && opts.earlyFull() {
		st.LastFullCompaction = st.Now
	}
	if !ok {
		return CompactUnit{}, false
	}
	files := unit.Files()
	if len(files) == 0 || (len(files) == 1 && int(files[0].Level) == unit.OutputLevel) {
		return CompactUnit{}, false
	}
	return unit, true
}

// PickFullCompaction picks every run of the bucket for a full compaction
// to the max level (Java: CompactStrategy.pickFullCompaction, for
// full-compaction.delta-commits, CALL sys.compact and the dedicated job).
// An empty bucket picks nothing. A bucket already in one run on the max
// level picks only the files rewrite selects (deletion vectors, expired
// records, or all for forced rewrites) as a FileRewrite unit; rewrite nil
// selects none.
func PickFullCompaction(runs []LevelSortedRun, numLevels int, rewrite func(*manifest.DataFileMeta) bool) (CompactUnit, bool) {
	maxLevel := numLevels - 1
	if len(runs) == 0 {
		return CompactUnit{}, false
	}
	if len(runs) == 1 && runs[0].Level == maxLevel {
		if rewrite == nil {
			return CompactUnit{}, false
		}
		var picked []manifest.DataFileMeta
		for i := range runs[0].Run.Files {
			if rewrite(&runs[0].Run.Files[i]) {
				picked = append(picked, runs[0].Run.Files[i])
			}
		}
		if len(picked) == 0 {
			return CompactUnit{}, false
		}
		return CompactUnit{
			OutputLevel: maxLevel,
			Runs:        []LevelSortedRun{{Level: maxLevel, Run: SortedRun{Files: picked}}},
			Full:        true,
			FileRewrite: true,
		}, true
	}
	return CompactUnit{OutputLevel: maxLevel, Runs: runs, Full: true}, true
}

// ShouldStallWrites reports Java's write stall
// (MergeTreeCompactManager.shouldWaitForLatestCompaction): a writer waits
// for the running compaction while the bucket has more sorted runs than
// num-sorted-run.stop-trigger.
func ShouldStallWrites(numSortedRuns int, opts CompactionOptions) bool {
	return numSortedRuns > opts.NumSortedRunStopTrigger
}

// DropDelete reports whether a compaction may drop DELETE records (Java:
// MergeTreeCompactManager.triggerCompaction): never when writing level 0,
// otherwise when the output reaches the bucket's highest non-empty level (no
// older data can be shadowed) or deletion vectors carry the deletes.
func DropDelete(unit CompactUnit, nonEmptyHighestLevel int, deletionVectors bool) bool {
	return unit.OutputLevel != 0 && (unit.OutputLevel >= nonEmptyHighestLevel || deletionVectors)
}

// pickUniversal is UniversalCompaction.pick.
func pickUniversal(runs []LevelSortedRun, numLevels int, opts CompactionOptions, st PickState) (CompactUnit, bool) {
	maxLevel := numLevels - 1
	if opts.earlyFull() {
		if u, ok := tryEarlyFull(runs, maxLevel, opts, st); ok {
			return u, true
		}
	}
	if len(runs) == 0 {
		return CompactUnit{}, false
	}
	if u, ok := pickForSizeAmp(runs, maxLevel, opts); ok {
		return u, true
	}
	if len(runs) >= opts.NumSortedRunCompactionTrigger {
		if u, ok := pickForSizeRatio(runs, maxLevel, 1, false, opts, st.Now); ok {
			return u, true
		}
	}
	if len(runs) > opts.NumSortedRunCompactionTrigger {
		// Too many runs: take at least the newest runs beyond the trigger.
		return pickForSizeRatio(runs, maxLevel, len(runs)-opts.NumSortedRunCompactionTrigger+1, false, opts, st.Now)
	}
	return CompactUnit{}, false
}

// tryEarlyFull is EarlyFullCompaction.tryFullCompact.
func tryEarlyFull(runs []LevelSortedRun, maxLevel int, opts CompactionOptions, st PickState) (CompactUnit, bool) {
	if len(runs) == 1 {
		return CompactUnit{}, false
	}
	full := CompactUnit{OutputLevel: maxLevel, Runs: runs, Full: true}
	if opts.OptimizationInterval > 0 &&
		(st.LastFullCompaction.IsZero() || st.Now.Sub(st.LastFullCompaction) > opts.OptimizationInterval) {
		return full, true
	}
	if opts.TotalSizeThreshold > 0 && totalSize(runs) < opts.TotalSizeThreshold {
		return full, true
	}
	if opts.IncrementalSizeThreshold > 0 {
		var incremental int64
		for _, r := range runs {
			if r.Level != maxLevel {
				incremental += r.Run.TotalSize()
			}
		}
		if incremental > opts.IncrementalSizeThreshold {
			return full, true
		}
	}
	return CompactUnit{}, false
}

// pickForSizeAmp: when the runs above the oldest one together exceed
// max-size-amplification-percent of it, compact everything.
func pickForSizeAmp(runs []LevelSortedRun, maxLevel int, opts CompactionOptions) (CompactUnit, bool) {
	if len(runs) < opts.NumSortedRunCompactionTrigger {
		return CompactUnit{}, false
	}
	candidate := totalSize(runs[:len(runs)-1])
	earliest := runs[len(runs)-1].Run.TotalSize()
	if candidate*100 > int64(opts.MaxSizeAmplificationPercent)*earliest {
		return CompactUnit{OutputLevel: maxLevel, Runs: runs, Full: true}, true
	}
	return CompactUnit{}, false
}

// pickForSizeRatio starts with the candidateCount newest runs and adds the
// next run while it is no bigger than the candidates' total grown by
// size-ratio percent, plus the off-peak ratio (runs on level 0 and 1 are always added once the pick
// is triggered). It triggers with more than one candidate or when forced.
func pickForSizeRatio(runs []LevelSortedRun, maxLevel, candidateCount int, force bool, opts CompactionOptions, now time.Time) (CompactUnit, bool) {
	ratio := float64(opts.SizeRatio + opts.offPeakRatio(now))
	candidate := totalSize(runs[:candidateCount])
	triggered := force || candidateCount > 1
	for i := candidateCount; i < len(runs); i++ {
		next := runs[i]
		size := next.Run.TotalSize()
		if float64(candidate)*(100.0+ratio)/100.0 < float64(size) {
			if !triggered || next.Level > 1 {
				break
			}
		}
		candidate += size
		candidateCount++
		triggered = true
	}
	if !triggered {
		return CompactUnit{}, false
	}
	return createUnit(runs, maxLevel, candidateCount), true
}

// createUnit is UniversalCompaction.createUnit: the output goes one level
// below the next untouched run, never to level 0 (the pick then extends to
// the first run on a level >= 1 and writes that level), and to the max
// level when every run is taken.
func createUnit(runs []LevelSortedRun, maxLevel, runCount int) CompactUnit {
	var out int
	if runCount == len(runs) {
		out = maxLevel
	} else {
		out = max(0, runs[runCount].Level-1)
	}
	if out == 0 {
		for i := runCount; i < len(runs); i++ {
			runCount++
			if runs[i].Level != 0 {
				out = runs[i].Level
				break
			}
		}
	}
	full := runCount == len(runs)
	if full {
		out = maxLevel
	}
	return CompactUnit{OutputLevel: out, Runs: runs[:runCount], Full: full}
}

// forcePickL0 is ForceUpLevel0Compaction's fallback: all level-0 runs,
// extended by the size-ratio rule.
func forcePickL0(runs []LevelSortedRun, numLevels int, opts CompactionOptions, now time.Time) (CompactUnit, bool) {
	n := 0
	for n < len(runs) && runs[n].Level == 0 {
		n++
	}
	if n == 0 {
		return CompactUnit{}, false
	}
	return pickForSizeRatio(runs, numLevels-1, n, true, opts, now)
}

func totalSize(runs []LevelSortedRun) int64 {
	var n int64
	for _, r := range runs {
		n += r.Run.TotalSize()
	}
	return n
}
