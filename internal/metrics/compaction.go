package metrics

import (
	"log/slog"
	"sync"
	"time"
)

// CompactionRun is what one compaction did, as the compaction engine
// reports it (Java: CompactResult plus the CompactionMetrics of
// MergeTreeCompactManager).
type CompactionRun struct {
	// Table is the "db.table" label (TableLabel of the table root).
	Table string
	// Kind is "full" or "minor" (the picker's), or "append" for small-file
	// compaction of append tables.
	Kind      string
	Partition string // "" for several partitions
	Bucket    int32  // -1 for several buckets
	// InputFiles/OutputFiles and BytesIn/BytesOut are the data files read
	// and written (an upgraded file counts in neither byte total).
	InputFiles, OutputFiles int
	BytesIn, BytesOut       int64
	Duration                time.Duration
	// Snapshot is the COMPACT snapshot committed (0 when none was).
	Snapshot int64
	// Err is set when the compaction failed or was abandoned (for example
	// a conflicting commit removed one of its inputs).
	Err error
}

// CompactionObserver receives every compaction the engine runs. The
// engine calls ObserveCompaction, which updates the metrics, logs the run
// and calls the registered observers.
type CompactionObserver interface {
	CompactionDone(CompactionRun)
}

var observers struct {
	mu  sync.RWMutex
	obs []CompactionObserver
}

// AddCompactionObserver registers o (tests, the server's progress output);
// the returned func removes it.
func AddCompactionObserver(o CompactionObserver) (remove func()) {
	observers.mu.Lock()
	defer observers.mu.Unlock()
	observers.obs = append(observers.obs, o)
	return func() {
		observers.mu.Lock()
		defer observers.mu.Unlock()
		for i, x := range observers.obs {
			if x == o {
				observers.obs = append(observers.obs[:i:i], observers.obs[i+1:]...)
				return
			}
		}
	}
}

// ObserveCompaction records one compaction: the metrics, an info log line
// (a warning when it failed) and the registered observers.
func ObserveCompaction(r CompactionRun) {
	if r.Err != nil {
		CompactionFailures.Inc()
		slog.Warn("compaction failed", "table", r.Table, "kind", r.Kind, "partition", r.Partition, "bucket", r.Bucket,
			"duration", r.Duration, "err", r.Err)
	} else {
		CompactionsTotal.With(r.Kind).Inc()
		CompactionBytesIn.Add(uint64(max(r.BytesIn, 0)))
		CompactionBytesOut.Add(uint64(max(r.BytesOut, 0)))
		CompactionDuration.Observe(r.Duration.Seconds())
		slog.Info("compaction", "table", r.Table, "kind", r.Kind, "partition", r.Partition, "bucket", r.Bucket,
			"files_in", r.InputFiles, "files_out", r.OutputFiles, "bytes_in", r.BytesIn, "bytes_out", r.BytesOut,
			"duration", r.Duration, "snapshot", r.Snapshot)
	}
	observers.mu.RLock()
	obs := observers.obs
	observers.mu.RUnlock()
	for _, o := range obs {
		o.CompactionDone(r)
	}
}
