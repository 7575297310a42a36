package lsmread

import (
	"github.com/lakesql/lakesql/internal/metrics"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// observeSortedRuns records the sorted runs of every merged bucket of a plan
// that reads the whole current table (no filter, bucket or partition
// restriction, no time travel), so the figures describe the table's LSM
// state rather than one query's pruning: each level-0 file is a run, and
// each non-empty level above it one more (Java: Levels.numberOfSortedRuns).
func (p *Plan) observeSortedRuns() {
	s := &p.Spec
	if s.Filter != nil || s.Bucket != nil || len(s.PartitionSpecs) > 0 || s.Delta != nil || s.ReadOptimized || s.TimeTravel.count() > 0 {
		return
	}
	if !p.isPK() || p.rawPK() {
		return // nothing merges
	}
	most := int64(0)
	for _, split := range p.Splits {
		runs := manifest.SortedRuns(split.Files)
		metrics.SortedRunsPerBucket.Observe(float64(runs))
		most = max(most, int64(runs))
	}
	metrics.SortedRunsMax.With(metrics.TableLabel(p.Table.Storage().URL())).Set(most)
}
