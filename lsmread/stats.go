package lsmread

import (
	"context"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// statsPruner prunes files by their manifest statistics.
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
	schemas     map[schema.SchemaID]*fileStatsLayout
}

// fileStatsLayout maps a file schema's value-stats columns to the read
// schema's fields.
type fileStatsLayout struct {
	schema *schema.TableSchema
	// byCols caches layouts per _VALUE_STATS_COLS list (dense mode).
	byCols map[string]*statsColumns
}

type statsColumns struct {
	types []schema.DataType
	// pos maps a read-schema field index to the stats column position, for
	// fields of identical type in both schemas.
	pos map[int]int
}

func newStatsPruner(ctx context.Context, p *Plan) (*statsPruner, error) {
	sp := &statsPruner{ctx: ctx, plan: p, pred: p.Spec.Filter, schemas: map[schema.SchemaID]*fileStatsLayout{}}
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
	if split.Mode == ReadRaw {
		kept := files[:0:0]
		for i := range files {
			ok, err := sp.mayMatch(sp.pred, &files[i])
			if err != nil {
				return nil, 0, err
			}
			if ok {
				kept = append(kept, files[i])
			}
		}
		return kept, len(files) - len(kept), nil
	}
	kept := files
	if sp.keyPred != nil {
		kept = files[:0:0]
		for i := range files {
			ok, err := sp.mayMatch(sp.keyPred, &files[i])
			if err != nil {
				return nil, 0, err
			}
			if ok {
				kept = append(kept, files[i])
			}
		}
	}
	if sp.wholeBucket && len(kept) > 0 {
		any := false
		for i := range kept {
			ok, err := sp.mayMatch(sp.pred, &kept[i])
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
	return kept, len(files) - len(kept), nil
}

func (sp *statsPruner) mayMatch(pred Predicate, f *manifest.DataFileMeta) (bool, error) {
	cols, err := sp.columns(f)
	if err != nil {
		return false, err
	}
	if cols == nil {
		return true, nil
	}
	st := f.ValueStats
	mins, err1 := binaryrow.DecodeSerialized(cols.types, st.MinValues)
	maxs, err2 := binaryrow.DecodeSerialized(cols.types, st.MaxValues)
	if err1 != nil || err2 != nil || len(mins) != len(cols.types) || len(maxs) != len(cols.types) {
		return true, nil // unreadable statistics never prune
	}
	return MayMatch(pred, func(field int) (ColumnStats, bool) {
		j, ok := cols.pos[field]
		if !ok {
			return ColumnStats{}, false
		}
		nc := int64(-1)
		if j < len(st.NullCounts) && st.NullCounts[j] != nil {
			nc = *st.NullCounts[j]
		}
		// Retract rows count in RowCount but carry values too, so the
		// bounds still cover every row of the file.
		return ColumnStats{Min: mins[j], Max: maxs[j], NullCount: nc, RowCount: f.RowCount}, true
	}), nil
}

func (sp *statsPruner) columns(f *manifest.DataFileMeta) (*statsColumns, error) {
	l := sp.schemas[schema.SchemaID(f.SchemaID)]
	if l == nil {
		fs, err := sp.plan.Table.schemas.Schema(sp.ctx, schema.SchemaID(f.SchemaID))
		if err != nil {
			return nil, err
		}
		l = &fileStatsLayout{schema: fs, byCols: map[string]*statsColumns{}}
		sp.schemas[schema.SchemaID(f.SchemaID)] = l
	}
	key := "\x00all"
	if f.ValueStatsCols != nil {
		key = ""
		for _, c := range f.ValueStatsCols {
			key += c + "\x00"
		}
	}
	if c, ok := l.byCols[key]; ok {
		return c, nil
	}
	var fields []schema.DataField
	if f.ValueStatsCols == nil {
		fields = l.schema.Fields
	} else {
		for _, name := range f.ValueStatsCols {
			fld, ok := l.schema.FieldByName(name)
			if !ok {
				l.byCols[key] = nil
				return nil, nil
			}
			fields = append(fields, fld)
		}
	}
	c := &statsColumns{pos: map[int]int{}}
	for j, fld := range fields {
		c.types = append(c.types, fld.Type.WithNullable(true))
		for i, rf := range sp.plan.Schema.Fields {
			if rf.ID == fld.ID && rf.Type.EqualIgnoreNullability(fld.Type) {
				c.pos[i] = j
			}
		}
	}
	l.byCols[key] = c
	return c, nil
}
