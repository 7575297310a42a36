package lsmread

import (
	"bytes"
	"context"
	"sync"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// planShared is what a plan and the plans narrowed from it (the probes of
// one statement) compute once: bucket functions by bucket count, and the
// decoded key range of each data file.
type planShared struct {
	mu sync.Mutex
	// bucketers are pools of bucket functions by bucket count (a Bucketer
	// is not safe for concurrent use; the point queries of many
	// connections narrow one plan at once).
	bucketers map[int32]*sync.Pool // guarded by mu
	bounds    map[string]keyBounds // by file name, guarded by mu
}

func newPlanShared() *planShared {
	return &planShared{bucketers: map[int32]*sync.Pool{}, bounds: map[string]keyBounds{}}
}

// bucketOf returns the bucket of a row of the plan's schema among total
// fixed buckets.
func (p *Plan) bucketOf(row []any, total int32) (int, error) {
	sh := p.shared
	sh.mu.Lock()
	pool := sh.bucketers[total]
	if pool == nil {
		pool = &sync.Pool{}
		sh.bucketers[total] = pool
	}
	sh.mu.Unlock()
	b, _ := pool.Get().(*binaryrow.Bucketer)
	if b == nil {
		var err error
		if b, err = p.bucketerFor(total); err != nil {
			return 0, err
		}
	}
	defer pool.Put(b)
	return b.Bucket(row)
}

// Narrow returns the plan of the same read with filter added (conjoined
// with the plan's own filter): the same snapshot, schema and options, the
// splits whose partitions, buckets (for pinned keys) and file statistics
// may match. No snapshot, schema or manifest is read again, so a statement
// that reads a table many times with different keys (the probes of a
// lookup join) plans it once and narrows per probe. The result shares the
// plan's immutable state.
func (p *Plan) Narrow(ctx context.Context, filter Predicate) (*Plan, error) {
	np := *p
	np.Splits = nil
	np.Stats = PlanStats{ManifestsTotal: p.Stats.ManifestsTotal, ManifestsPruned: p.Stats.ManifestsPruned}
	if p.Spec.Filter != nil {
		filter = And{p.Spec.Filter, filter}
	}
	np.Spec.Filter = filter
	np.points = nil
	if p.Spec.Delta == nil {
		if rows := pinnedKeys(filter, p.Schema); rows != nil {
			np.points = np.newPoints(rows)
		}
	}
	if p.Snapshot == nil {
		return &np, nil
	}
	pf, err := np.newPartitionFilter()
	if err != nil {
		return nil, err
	}
	// Pinned keys: the lookups check each file's key range; value
	// statistics would cost more than they save (no pruner).
	var pruner *statsPruner
	if np.points == nil {
		if pruner, err = newStatsPruner(ctx, &np); err != nil {
			return nil, err
		}
	}
	var parts partitionSet
	for _, s := range p.Splits {
		np.Stats.FilesTotal += len(s.Files)
		if !pf.matches(s.PartitionValues) || !np.points.keepBucket(s.Bucket, s.TotalBuckets) {
			np.Stats.FilesPruned += len(s.Files)
			continue
		}
		files, pruned := s.Files, 0
		if pruner != nil {
			if files, pruned, err = pruner.pruneFiles(s, s.Files); err != nil {
				return nil, err
			}
		}
		np.Stats.FilesPruned += pruned
		if len(files) == 0 {
			continue
		}
		ns := *s
		if len(files) != len(s.Files) {
			ns.Files = files
			if s.DeletionFiles != nil {
				ns.DeletionFiles = make([]*DeletionFile, 0, len(files))
				k := 0
				for i := range s.Files {
					if k < len(files) && s.Files[i].FileName == files[k].FileName {
						ns.DeletionFiles = append(ns.DeletionFiles, s.DeletionFiles[i])
						k++
					}
				}
			}
		}
		np.Splits = append(np.Splits, &ns)
		parts.add(s.Partition)
	}
	np.Stats.Splits = len(np.Splits)
	np.Stats.PartitionsScanned = parts.len()
	return &np, nil
}

// ForPlan returns a reader of np, a plan narrowed from r's plan (Narrow):
// r's prepared state (merge function, sorted-run reader, DV cache) is
// shared and the filter is np's, when r reads every column np's filter
// tests; otherwise a reader of its own.
func (r *Reader) ForPlan(np *Plan) (*Reader, error) {
	for f := range Fields(np.Spec.Filter) {
		if f < 0 || f >= len(r.need) || !r.need[f] {
			return np.NewReader()
		}
	}
	c := *r
	c.plan = np
	c.filter = np.Spec.Filter
	return &c, nil
}

// partitionSet counts distinct partitions: a few (a point query's one) in
// a slice without a map, more in a map.
type partitionSet struct {
	few  []manifest.SerializedRow
	many map[string]struct{}
}

func (ps *partitionSet) add(part manifest.SerializedRow) {
	if ps.many != nil {
		ps.many[string(part)] = struct{}{}
		return
	}
	for _, x := range ps.few {
		if bytes.Equal(x, part) {
			return
		}
	}
	if len(ps.few) < 8 {
		ps.few = append(ps.few, part)
		return
	}
	ps.many = make(map[string]struct{}, 2*len(ps.few))
	for _, x := range ps.few {
		ps.many[string(x)] = struct{}{}
	}
	ps.many[string(part)] = struct{}{}
}

func (ps *partitionSet) len() int {
	if ps.many != nil {
		return len(ps.many)
	}
	return len(ps.few)
}
