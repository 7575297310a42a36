package lsmread

import (
	"context"
	"errors"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// statsPruner prunes files by their manifest statistics, read through the
// plan's StatsEvolution (bounds of the read type only: never across a
// schema-evolution cast).
type statsPruner struct {
	ctx  context.Context
	plan *Plan
	pred Predicate
	// keyPred is the part of pred that only refers to trimmed primary key
	// columns (all versions of a key agree on it), usable per file under
	// merge-on-read.
	keyPred Predicate
	// wholeBucket allows dropping a merge bucket when no file can match
	// pred: only for engines whose result is one of the input rows.
	wholeBucket bool
	evolution   *StatsEvolution
}

func newStatsPruner(ctx context.Context, p *Plan) (*statsPruner, error) {
	sp := &statsPruner{ctx: ctx, plan: p, pred: p.Spec.Filter, evolution: NewStatsEvolution(p.Schema, p.Table.schemas.Schema)}
	if sp.pred == nil {
		return sp, nil
	}
	if p.isPK() {
		keyFields := map[int]bool{}
		for _, name := range p.Schema.TrimmedPrimaryKeys() {
			keyFields[p.Schema.FieldIndex(name)] = true
		}
		sp.keyPred = onlyFields(sp.pred, keyFields)
		sp.wholeBucket = p.Core.MergeEngine == schema.MergeEngineDeduplicate || p.Core.MergeEngine == schema.MergeEngineFirstRow
	}
	return sp, nil
}

// onlyFields keeps the top-level conjuncts of p that refer only to fields.
func onlyFields(p Predicate, fields map[int]bool) Predicate {
	conj, ok := p.(And)
	if !ok {
		conj = And{p}
	}
	var out And
	for _, c := range conj {
		all := true
		for f := range Fields(c) {
			if !fields[f] {
				all = false
			}
		}
		if all {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// pruneFiles returns the files of a split that may hold matching rows.
func (sp *statsPruner) pruneFiles(split *DataSplit, files []manifest.DataFileMeta) ([]manifest.DataFileMeta, int, error) {
	if sp.pred == nil {
		return files, 0, nil
	}
	stats := make([]*FileStats, len(files))
	mayMatch := func(pred Predicate, i int) (bool, error) {
		if stats[i] == nil {
			st, err := sp.evolution.Evolve(sp.ctx, &files[i], false)
			if errors.Is(err, binaryrow.ErrCorrupt) || errors.Is(err, manifest.ErrCorrupt) {
				return true, nil // unreadable statistics never prune
			}
			if err != nil {
				return false, err
			}
			stats[i] = st
		}
		return sp.mayMatch(pred, &files[i], stats[i]), nil
	}
	if split.Mode == ReadRaw {
		kept := files[:0:0]
		for i := range files {
			ok, err := mayMatch(sp.pred, i)
			if err != nil {
				return nil, 0, err
			}
			if ok {
				kept = append(kept, files[i])
			}
		}
		return kept, len(files) - len(kept), nil
	}
	keep := make([]bool, len(files))
	n := 0
	for i := range files {
		keep[i] = true
		if sp.keyPred != nil {
			ok, err := mayMatch(sp.keyPred, i)
			if err != nil {
				return nil, 0, err
			}
			keep[i] = ok
		}
		if keep[i] {
			n++
		}
	}
	if sp.wholeBucket && n > 0 {
		any := false
		for i := range files {
			if !keep[i] {
				continue
			}
			ok, err := mayMatch(sp.pred, i)
			if err != nil {
				return nil, 0, err
			}
			if ok {
				any = true
				break
			}
		}
		if !any {
			sp.plan.Stats.BucketsPruned++
			return nil, len(files), nil
		}
	}
	if n == len(files) {
		return files, 0, nil
	}
	kept := make([]manifest.DataFileMeta, 0, n)
	for i := range files {
		if keep[i] {
			kept = append(kept, files[i])
		}
	}
	return kept, len(files) - len(kept), nil
}

// mayMatch evaluates pred on a file's evolved statistics: only complete
// statistics of the read type are used.
func (sp *statsPruner) mayMatch(pred Predicate, f *manifest.DataFileMeta, st *FileStats) bool {
	if !st.Full {
		return true
	}
	return MayMatch(pred, func(field int) (ColumnStats, bool) {
		fs := &st.Fields[field]
		if !fs.Known || !fs.SameType {
			return ColumnStats{}, false
		}
		nc := int64(-1)
		if fs.NullCount != nil {
			nc = *fs.NullCount
		}
		// Retract rows count in RowCount but carry values too, so the
		// bounds still cover every row of the file.
		return ColumnStats{Min: fs.Min, Max: fs.Max, NullCount: nc, RowCount: f.RowCount}, true
	})
}
