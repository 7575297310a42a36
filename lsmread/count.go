package lsmread

import (
	"context"
	"slices"

	"github.com/lakesql/lakesql/internal/schema"
)

// CountFromStats returns the number of rows a full read of the plan would
// return, from the files' manifest statistics alone, when they answer it
// exactly; ok is false when the data would have to be read (a filter,
// overlapping sorted runs to merge, statistics missing). A raw split counts
// its files' rows less their deletion vectors' cardinalities; a merge split
// of a deduplicate table whose files do not overlap (a compacted bucket)
// counts each file's rows less its retract rows (_DELETE_ROW_COUNT): every
// key is in one file, and a retract record is not a row.
func (p *Plan) CountFromStats(ctx context.Context) (int64, bool, error) {
	if p.Spec.Filter != nil || p.Spec.Delta != nil {
		return 0, false, nil
	}
	var total int64
	for _, s := range p.Splits {
		switch s.Mode {
		case ReadRaw:
			for i := range s.Files {
				n := s.Files[i].RowCount
				if i < len(s.DeletionFiles) && s.DeletionFiles[i] != nil {
					if s.DeletionFiles[i].Cardinality < 0 {
						return 0, false, nil
					}
					n -= s.DeletionFiles[i].Cardinality
				}
				total += n
			}
		default:
			if p.Core.MergeEngine != schema.MergeEngineDeduplicate {
				return 0, false, nil
			}
			ok, err := p.disjointFiles(ctx, s)
			if err != nil || !ok {
				return 0, false, err
			}
			for i := range s.Files {
				f := &s.Files[i]
				if f.DeleteRowCount == nil {
					return 0, false, nil
				}
				total += f.RowCount - *f.DeleteRowCount
			}
		}
	}
	return total, true, nil
}

// disjointFiles reports whether the key ranges of a split's files do not
// overlap (every key is in at most one file).
func (p *Plan) disjointFiles(ctx context.Context, s *DataSplit) (bool, error) {
	if len(s.Files) <= 1 {
		return true, nil
	}
	r, err := p.NewReader()
	if err != nil {
		return false, err
	}
	return r.disjointFiles(ctx, s)
}

// disjointFiles is Plan.disjointFiles with r's key comparator.
func (r *Reader) disjointFiles(ctx context.Context, s *DataSplit) (bool, error) {
	if len(s.Files) <= 1 {
		return true, nil
	}
	bounds, err := r.fileKeyBounds(ctx, s)
	if err != nil {
		return false, err
	}
	order := make([]int, len(s.Files))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return r.keyCmp(bounds[a].min, bounds[b].min) })
	for k := 1; k < len(order); k++ {
		if r.keyCmp(bounds[order[k-1]].max, bounds[order[k]].min) >= 0 {
			return false, nil
		}
	}
	return true, nil
}
