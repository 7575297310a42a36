package lsmwrite

import (
	"time"

	"github.com/lakesql/lakesql/internal/metrics"
	"github.com/lakesql/lakesql/snapshot"
)

// observeCompaction reports a Compact call that did something (committed,
// was abandoned on a conflict, or failed) to internal/metrics: the
// compaction metrics and its log line.
func observeCompaction(tbl *snapshot.Table, req CompactRequest, start time.Time, out **CompactOutcome, err *error) {
	o := *out
	if *err == nil && (o == nil || o.Snapshot == nil && o.Conflict == nil) {
		return // nothing to compact
	}
	r := metrics.CompactionRun{
		Table:    metrics.TableLabel(tbl.Storage().URL()),
		Kind:     "minor",
		Bucket:   -1,
		Duration: time.Since(start),
		Err:      *err,
	}
	if req.Full {
		r.Kind = "full"
	}
	if o != nil {
		r.InputFiles, r.OutputFiles = o.Stats.FilesBefore, o.Stats.FilesAfter
		r.BytesIn, r.BytesOut = o.Stats.BytesRead, o.Stats.BytesWritten
		if o.Snapshot != nil {
			r.Snapshot = int64(o.Snapshot.ID)
		}
		if r.Err == nil {
			r.Err = o.Conflict
		}
	}
	metrics.ObserveCompaction(r)
}
