package lsmread

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// filesAggregatedFromStats counts the data files whose aggregates came
// from their statistics (tests).
var filesAggregatedFromStats atomic.Int64

// statsOnly reports whether the aggregate can be answered from file
// statistics: no group keys, no filter, and only COUNT(*), COUNT, MIN and
// MAX of BIGINT, INT and DECIMAL(p ≤ 18) columns (statistics of strings may
// be truncated, those of other types are not used).
func statsOnly(p *Plan, spec *AggregateSpec, kinds []VectorKind) bool {
	if len(spec.Keys) > 0 || spec.NewFilter != nil || p.Spec.Filter != nil || p.Spec.Delta != nil {
		return false
	}
	for _, a := range spec.Aggs {
		switch a.Kind {
		case AggCountRows:
		case AggCount, AggMin, AggMax:
			switch kinds[a.Col] {
			case VectorInt64, VectorInt32, VectorDecimal64:
			default:
				return false
			}
		default:
			return false
		}
	}
	return true
}

// fromStats adds a split whose every file is read as it is, without a
// deletion vector, from the files' value statistics (a file's rows are
// all in the result, so its row count, null counts and bounds are the
// aggregate's); false when a file lacks what is needed (the split is then
// read).
func (p *aggPartial) fromStats(ctx context.Context, r *Reader, s *DataSplit) (bool, error) {
	if p.stats == nil || s.Mode != ReadRaw || len(s.Files) == 0 {
		return false, nil
	}
	for _, d := range s.DeletionFiles {
		if d != nil {
			return false, nil
		}
	}
	na := len(p.spec.Aggs)
	acc := make([]Accum, na)
	for i := range s.Files {
		f := &s.Files[i]
		st, err := p.stats.Evolve(ctx, f, false)
		if errors.Is(err, binaryrow.ErrCorrupt) || errors.Is(err, manifest.ErrCorrupt) {
			return false, nil // unreadable statistics: the file is read (as pruning does)
		}
		if err != nil {
			return false, err
		}
		for a, spec := range p.spec.Aggs {
			if spec.Kind == AggCountRows {
				acc[a].N += f.RowCount
				continue
			}
			fs := &st.Fields[r.out[spec.Col]]
			if !fs.InFile || !fs.Known || !fs.SameType || fs.NullCount == nil {
				return false, nil
			}
			nonNull := f.RowCount - *fs.NullCount
			if nonNull < 0 {
				return false, nil
			}
			if spec.Kind == AggCount || nonNull == 0 {
				acc[a].N += nonNull
				continue
			}
			v := fs.Min
			if spec.Kind == AggMax {
				v = fs.Max
			}
			x, ok := statInt(v, p.types[spec.Col])
			if !ok {
				return false, nil
			}
			if acc[a].N == 0 || spec.Kind == AggMin && x < acc[a].BestI || spec.Kind == AggMax && x > acc[a].BestI {
				acc[a].BestI = x
			}
			acc[a].N += nonNull
		}
	}
	for a := range p.cols {
		p.cols[a].combine(0, acc[a])
	}
	filesAggregatedFromStats.Add(int64(len(s.Files)))
	return true, nil
}

// statInt is a statistics bound of an integer or DECIMAL(p ≤ 18) column
// as the int64 the aggregate keeps (unscaled at the column's scale).
func statInt(v any, t *schema.DataType) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, t.Root == schema.TypeBigInt
	case int32:
		return int64(x), t.Root == schema.TypeInt
	case schema.Decimal:
		return x.Compact, t.Root == schema.TypeDecimal && x.Big == nil && int(x.Scale) == t.Scale
	}
	return 0, false
}
