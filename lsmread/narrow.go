package lsmread

import (
	"bytes"
	"context"
	"slices"
	"sync"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/schema"
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
	// partFilter is the partition filter of the plan's schema and
	// partition specs without a predicate (Narrow adds its own), made on
	// first use; guarded by mu.
	partFilter *partitionFilter
	partPos    []int // partitionPositions, guarded by mu
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
	pf, err := np.narrowPartitionFilter()
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
	var within []int // the candidate splits' indexes, or nil: every split
	if np.points != nil && p.sortedSplits && narrowByPartition {
		within = np.pointSplits(p.Splits, pf.types)
	}
	candidates, candidateFiles := len(p.Splits), 0
	if within != nil {
		candidates = len(within)
		for _, s := range p.Splits {
			np.Stats.FilesTotal += len(s.Files)
		}
	}
	for k := range candidates {
		s := p.Splits[k]
		if within != nil {
			s = p.Splits[within[k]]
			candidateFiles += len(s.Files)
		} else {
			np.Stats.FilesTotal += len(s.Files)
		}
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
	if within != nil {
		// The splits of other partitions: their partitions differ from
		// every pinned key's.
		np.Stats.FilesPruned += np.Stats.FilesTotal - candidateFiles
	}
	np.Stats.Splits = len(np.Splits)
	np.Stats.PartitionsScanned = parts.len()
	return &np, nil
}

// narrowByPartition: Narrow finds the pinned keys' partitions by binary
// search (tests turn it off to compare with looking at every split).
var narrowByPartition = true

// narrowPartitionFilter returns the partition filter of a plan narrowed
// from a planned one: the shared template with the plan's predicate.
func (p *Plan) narrowPartitionFilter() (*partitionFilter, error) {
	sh := p.shared
	if sh == nil {
		return p.newPartitionFilter()
	}
	sh.mu.Lock()
	tmpl := sh.partFilter
	sh.mu.Unlock()
	if tmpl == nil {
		pf, err := p.newPartitionFilter()
		if err != nil {
			return nil, err
		}
		t := *pf
		t.pred = nil
		tmpl = &t
		sh.mu.Lock()
		sh.partFilter = tmpl
		sh.mu.Unlock()
	}
	pf := *tmpl
	pf.pred = p.Spec.Filter
	return &pf, nil
}

// pointSplits returns the indexes (ascending) of the splits of the
// partitions of the plan's pinned keys, found by binary search in splits
// (sorted by partition values: Plan.sortedSplits), or nil when a key does
// not pin every partition field (every split is a candidate). Splits of
// other partitions hold none of the keys: Narrow need not look at them.
func (p *Plan) pointSplits(splits []*DataSplit, types []schema.DataType) []int {
	pos := p.shared.partitionPositions(p.Schema)
	if len(pos) != len(types) {
		return nil
	}
	var key [4]any
	vals := key[:0]
	if len(pos) > len(key) {
		vals = make([]any, 0, len(pos))
	}
	var out []int
	sorted := true
	for _, row := range p.points.rows {
		vals = vals[:0]
		for _, i := range pos {
			if i < 0 || i >= len(row) || row[i] == nil {
				return nil // not pinned (or NULL): every partition
			}
			vals = append(vals, row[i])
		}
		lo, _ := slices.BinarySearchFunc(splits, vals, func(s *DataSplit, v []any) int {
			return comparePartitions(types, s.PartitionValues, v)
		})
		hi := lo
		for hi < len(splits) && comparePartitions(types, splits[hi].PartitionValues, vals) == 0 {
			hi++
		}
		if len(out) > 0 && lo <= out[len(out)-1] {
			sorted = false
		}
		for i := lo; i < hi; i++ {
			out = append(out, i)
		}
	}
	if out == nil {
		return []int{}
	}
	if !sorted {
		slices.Sort(out)
		out = slices.Compact(out)
	}
	return out
}

// partitionPositions returns the schema field index of each partition
// field, in partition order (computed once per plan family).
func (sh *planShared) partitionPositions(sch *schema.TableSchema) []int {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.partPos == nil {
		sh.partPos = sch.Projection(sch.PartitionKeys)
	}
	return sh.partPos
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
