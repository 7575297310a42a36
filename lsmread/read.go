package lsmread

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/lakesql/lakesql/internal/datafile"
	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/lookup"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/sortedrun"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// RowIterator yields the rows of a split in the projected column order, in
// the schema value model. Next returns io.EOF at the end. Each returned row is
// a fresh slice the caller may keep.
type RowIterator interface {
	Next() ([]any, error)
	Close() error
}

// Reader reads the splits of one plan. It is safe for concurrent use: each
// Read call has its own state.
type Reader struct {
	plan    *Plan
	fields  []schema.DataField
	out     []int // projected field indexes
	need    []bool
	keyIdx  []int // trimmed primary key field indexes
	keyType []schema.DataType
	keyCmp  kv.Comparator
	factory *kv.MergeFunctionFactory
	filter  Predicate
	run     *sortedrun.Reader
	dvs     *sortedrun.DVCache
	// lookup: the table needs lookup, and Java merges with
	// LookupMergeFunction (see kv.MergeFunctionFactory.NewLookupReader).
	lookup bool
	// layout is the layout of lookup files (lookupLayout), shared by the
	// readers ForPlan derives.
	layout *lazyLayout
}

type lazyLayout struct {
	once sync.Once
	l    *lookup.Layout
}

// NewReader prepares reading the plan's splits.
func (p *Plan) NewReader() (*Reader, error) {
	out, err := p.projection()
	if err != nil {
		return nil, err
	}
	r := &Reader{plan: p, fields: p.Schema.Fields, out: out, filter: p.Spec.Filter, layout: &lazyLayout{}}
	r.need = make([]bool, len(r.fields))
	for _, i := range out {
		r.need[i] = true
	}
	for f := range Fields(r.filter) {
		if f >= 0 && f < len(r.need) {
			r.need[f] = true
		}
	}
	if p.isPK() && (p.inc != nil || p.Spec.KeepDelete) {
		// Reads with row kinds open every file as KeyValues (and a diff
		// merges): every column is read.
		for i := range r.need {
			r.need[i] = true
		}
	}
	if p.isPK() {
		for _, name := range p.Schema.TrimmedPrimaryKeys() {
			i := p.Schema.FieldIndex(name)
			r.keyIdx = append(r.keyIdx, i)
			r.keyType = append(r.keyType, r.fields[i].Type)
		}
		r.keyCmp = kv.NewKeyComparator(r.keyType)
		if !p.rawPK() {
			r.factory, err = kv.NewMergeFunctionFactory(p.Options, r.fields, p.Schema.PrimaryKeys)
			if err != nil {
				return nil, err
			}
			if r.lookup, err = needLookup(p.Options); err != nil {
				return nil, err
			}
			for _, i := range r.keyIdx {
				r.need[i] = true
			}
			for _, name := range p.Core.SequenceField {
				if i := p.Schema.FieldIndex(name); i >= 0 {
					r.need[i] = true
				}
			}
			if r.factory.Engine() != schema.MergeEngineDeduplicate && r.factory.Engine() != schema.MergeEngineFirstRow {
				for i := range r.need {
					r.need[i] = true // merge functions read every column
				}
			}
		}
	}
	src := p.Table.source()
	r.run = sortedrun.NewReader(src, r.fields, r.need, r.keyIdx, p.Spec.TimeZone)
	r.dvs = sortedrun.NewDVCache(src)
	return r, nil
}

// Read opens a split.
func (r *Reader) Read(ctx context.Context, split *DataSplit) (RowIterator, error) {
	switch split.Mode {
	case ReadRecords, ReadDiff:
		it, err := r.ReadWithKinds(ctx, split)
		if err != nil {
			return nil, err
		}
		return &addsOnly{it: it}, nil
	}
	if keys := r.splitKeys(split); r.lookupReadable(split, keys) {
		return r.openLookup(ctx, split, keys)
	}
	if split.Mode == ReadRaw {
		return newRawIterator(r, ctx, split), nil
	}
	m, err := r.openMerge(ctx, split)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// file describes a split's data file for the sorted-run reader.
func (split *DataSplit) file(f *manifest.DataFileMeta) *sortedrun.File {
	sf := &sortedrun.File{Name: f.FileName, Dir: split.BucketPath(), SchemaID: f.SchemaID, Level: int(f.Level)}
	if f.ExternalPath != nil {
		sf.ExternalPath = *f.ExternalPath
	}
	return sf
}

// checkFormat rejects data files lakesql cannot read, naming the format.
func checkFormat(f *manifest.DataFileMeta) error {
	if format := datafile.FormatOf(f.FileName); format != datafile.FormatParquet {
		return fmt.Errorf("%w: %s data files (file %s)", ErrUnsupported, strings.ToUpper(format), f.FileName)
	}
	return nil
}

// passes reports whether a read-schema row passes the filter.
func (r *Reader) passes(row []any) bool {
	return r.filter == nil || Test(r.filter, func(f int) (any, bool) { return row[f], true }) == True
}

// project builds the output row of a read-schema row, or nil when the filter
// rejects it.
func (r *Reader) project(row []any) []any {
	if !r.passes(row) {
		return nil
	}
	return r.projectRow(row)
}

// projectRow builds the output row of a read-schema row.
func (r *Reader) projectRow(row []any) []any {
	out := make([]any, len(r.out))
	for i, j := range r.out {
		out[i] = row[j]
	}
	return out
}

// ---- raw reads (append tables, DV and first-row primary-key tables) ----

// rawIterator produces the rows of a raw split (or of a section merged
// over column batches) from its column batches, in one conversion per
// batch: each output column is boxed at once, and the rows are fresh
// sub-slices of one slab per batch.
type rawIterator struct {
	batches BatchIterator
	b       datafile.Batch
	cols    [][]any // boxed output columns of the current batch
	rows    [][]any // rows of the current batch that remain
	i       int
}

func newRawIterator(r *Reader, ctx context.Context, split *DataSplit) *rawIterator {
	return &rawIterator{batches: &rawBatches{r: r, ctx: ctx, split: split}}
}

func (it *rawIterator) Next() ([]any, error) {
	for it.i >= len(it.rows) {
		if err := it.batches.Next(&it.b); err != nil {
			return nil, err
		}
		it.convert()
	}
	row := it.rows[it.i]
	it.i++
	return row, nil
}

// convert boxes the current batch into rows.
func (it *rawIterator) convert() {
	b := &it.b
	nc := len(b.Cols)
	if len(it.cols) != nc {
		it.cols = make([][]any, nc)
	}
	for c := range b.Cols {
		if cap(it.cols[c]) < b.Len {
			it.cols[c] = make([]any, b.Len)
		}
		it.cols[c] = it.cols[c][:b.Len]
		b.Cols[c].Box(it.cols[c])
	}
	n := b.Rows()
	slab := make([]any, n*nc)
	it.rows = it.rows[:0]
	for i := range n {
		k := i
		if b.Sel != nil {
			k = int(b.Sel[i])
		}
		row := slab[i*nc : (i+1)*nc : (i+1)*nc]
		for c := range nc {
			row[c] = it.cols[c][k]
		}
		it.rows = append(it.rows, row)
	}
	it.i = 0
}

func (it *rawIterator) Close() error { return it.batches.Close() }

// rowGroups returns the row groups whose statistics may match the filter,
// or nil when all of them may.
func (r *Reader) rowGroups(rgs []datafile.RowGroupInfo, l *sortedrun.Layout) []int {
	var keep []int
	for _, rg := range rgs {
		ok := MayMatch(r.filter, func(field int) (ColumnStats, bool) {
			j := l.Src[field]
			if j < 0 || l.Cast[field] != nil || j >= len(rg.Stats) {
				return ColumnStats{}, false
			}
			s := rg.Stats[j]
			return ColumnStats{Min: s.Min, Max: s.Max, NullCount: s.NullCount, RowCount: rg.NumRows}, true
		})
		if ok {
			keep = append(keep, rg.Index)
		}
	}
	if len(keep) == len(rgs) {
		return nil
	}
	if keep == nil {
		keep = []int{}
	}
	return keep
}

// ---- merge-on-read ----

type mergeIterator struct {
	r        *Reader
	ctx      context.Context
	split    *DataSplit
	sections [][][]manifest.DataFileMeta
	nextSec  int
	cur      *kv.SortMergeReader
	// raw reads a section that needs no merge (rawSection) as it is, or
	// the column merge of a section (columnMergeable).
	raw *rawIterator
}

func (r *Reader) openMerge(ctx context.Context, split *DataSplit) (*mergeIterator, error) {
	kb, err := r.fileKeyBounds(ctx, split)
	if err != nil {
		return nil, err
	}
	bs := make(map[string]keyBounds, len(split.Files))
	for i := range split.Files {
		bs[split.Files[i].FileName] = kb[i]
	}
	sections := kv.IntervalPartition(split.Files,
		func(f manifest.DataFileMeta) []any { return bs[f.FileName].min },
		func(f manifest.DataFileMeta) []any { return bs[f.FileName].max },
		r.keyCmp)
	return &mergeIterator{r: r, ctx: ctx, split: split, sections: sections}, nil
}

func (m *mergeIterator) Next() ([]any, error) {
	row, _, err := m.next(nil)
	return row, err
}

// nextChunk returns the next merged row that passes the filter as a row of
// the read schema (not projected; the caller must not keep it), or, when a
// section needs no merge, fills b with its next column batch (batch true,
// row nil).
func (m *mergeIterator) nextChunk(b *datafile.Batch) (row []any, batch bool, err error) {
	return m.next(b)
}

// next is Next when b is nil (sections that need no merge are turned into
// rows), else nextChunk.
func (m *mergeIterator) next(b *datafile.Batch) ([]any, bool, error) {
	for {
		if m.raw != nil {
			if b != nil {
				err := m.raw.batches.Next(b)
				if err == nil {
					return nil, true, nil
				}
				if !errors.Is(err, io.EOF) {
					return nil, false, err
				}
			} else {
				row, err := m.raw.Next()
				if !errors.Is(err, io.EOF) {
					return row, false, err
				}
			}
			err := m.raw.Close()
			m.raw = nil
			if err != nil {
				return nil, false, err
			}
			continue
		}
		if m.cur != nil {
			kvr, ok, err := m.cur.Next()
			if err != nil {
				return nil, false, err
			}
			if ok {
				if !kvr.Kind.IsAdd() {
					continue
				}
				if b != nil {
					// nextChunk: the caller projects (or copies) the row.
					if m.r.passes(kvr.Value) {
						return kvr.Value, false, nil
					}
					continue
				}
				if out := m.r.project(kvr.Value); out != nil {
					return out, false, nil
				}
				continue
			}
			if err := m.cur.Close(); err != nil {
				return nil, false, err
			}
			m.cur = nil
		}
		if m.nextSec >= len(m.sections) {
			return nil, false, io.EOF
		}
		sec := m.sections[m.nextSec]
		m.nextSec++
		if rawSection(sec) {
			rawSectionsRead.Add(1)
			m.raw = newRawIterator(m.r, m.ctx, m.split.section(sec))
			continue
		}
		if m.r.plan.columnMergeable() {
			cm, err := m.r.newColumnMerge(m.ctx, m.split, sec)
			if err != nil {
				return nil, false, err
			}
			m.raw = &rawIterator{batches: cm}
			continue
		}
		runs := make([]kv.RecordReader, 0, len(sec))
		for _, run := range sec {
			readers := make([]kv.RecordReader, 0, len(run))
			for i := range run {
				f := &run[i]
				if err := checkFormat(f); err != nil {
					closeAll(runs)
					closeAll(readers)
					return nil, false, err
				}
				fr, err := m.r.run.OpenKeyValues(m.ctx, m.split.file(f))
				if err != nil {
					closeAll(runs)
					closeAll(readers)
					return nil, false, err
				}
				readers = append(readers, fr)
			}
			runs = append(runs, kv.NewConcatReader(readers...))
		}
		if m.r.lookup {
			m.cur = m.r.factory.NewLookupReader(runs, m.r.keyCmp)
		} else {
			m.cur = m.r.factory.NewReader(runs, m.r.keyCmp)
		}
	}
}

func closeAll(rs []kv.RecordReader) {
	for _, r := range rs {
		r.Close()
	}
}

func (m *mergeIterator) Close() error {
	if m.raw != nil {
		err := m.raw.Close()
		m.raw = nil
		return err
	}
	if m.cur != nil {
		err := m.cur.Close()
		m.cur = nil
		return err
	}
	return nil
}

// needLookup mirrors CoreOptions.needLookup for the merging read:
// changelog-producer=lookup, force-lookup or deletion vectors (reads of
// tables with deletion vectors and of first-row tables do not merge, and
// first-row is never wrapped).
func needLookup(o schema.Options) (bool, error) {
	cp, err := o.ChangelogProducer()
	if err != nil {
		return false, err
	}
	return cp == schema.ChangelogProducerLookup || strings.EqualFold(o["force-lookup"], "true") ||
		strings.EqualFold(o[schema.OptDeletionVectorsEnabled], "true"), nil
}
