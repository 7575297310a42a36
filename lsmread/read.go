package lsmread

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/datafile"
	"github.com/lakesql/lakesql/internal/dv"
	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// RowIterator yields the rows of a split in the projected column order, in
// the schema value model. Next returns io.EOF at the end. Each returned row is
// a fresh slice the caller may keep.
type RowIterator interface {
	Next() ([]any, error)
	Close() error
}

// batchSize is the number of rows decoded per data file read call.
const batchSize = 1024

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
	// lookup: the table needs lookup, and Java merges with
	// LookupMergeFunction (see kv.MergeFunctionFactory.NewLookupReader).
	lookup bool
	filter Predicate
}

// NewReader prepares reading the plan's splits.
func (p *Plan) NewReader() (*Reader, error) {
	out, err := p.projection()
	if err != nil {
		return nil, err
	}
	r := &Reader{plan: p, fields: p.Schema.Fields, out: out, filter: p.Spec.Filter}
	r.need = make([]bool, len(r.fields))
	for _, i := range out {
		r.need[i] = true
	}
	for f := range Fields(r.filter) {
		if f >= 0 && f < len(r.need) {
			r.need[f] = true
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
			if r.factory.Engine() != kv.Deduplicate && r.factory.Engine() != kv.FirstRow {
				for i := range r.need {
					r.need[i] = true // merge functions read every column
				}
			}
		}
	}
	return r, nil
}

// Read opens a split.
func (r *Reader) Read(ctx context.Context, split *DataSplit) (RowIterator, error) {
	if split.Mode == ReadRaw {
		return &rawIterator{r: r, ctx: ctx, split: split}, nil
	}
	return r.openMerge(ctx, split)
}

// fileLayout maps a data file's columns onto the read schema.
type fileLayout struct {
	cols []datafile.Column
	// src[i] is the file column holding read field i, or -1 (NULL).
	src []int
	// cast[i] is non-nil when the file's type differs from the read type.
	cast []*schema.DataType
	// seqCol and kindCol are the positions of _SEQUENCE_NUMBER and
	// _VALUE_KIND (merge reads only).
	seqCol, kindCol int
}

func (r *Reader) layout(ctx context.Context, f *manifest.DataFileMeta, withSystem bool) (*fileLayout, error) {
	fs, err := r.plan.Table.schemas.Schema(ctx, schema.SchemaID(f.SchemaID))
	if err != nil {
		return nil, fmt.Errorf("lsmread: schema %d of file %s: %w", f.SchemaID, f.FileName, err)
	}
	l := &fileLayout{src: make([]int, len(r.fields)), cast: make([]*schema.DataType, len(r.fields)), seqCol: -1, kindCol: -1}
	if withSystem {
		l.seqCol, l.kindCol = 0, 1
		l.cols = append(l.cols,
			datafile.Column{ID: datafile.SequenceNumberFieldID, Name: datafile.SequenceNumberName, Type: schema.AtomicType(schema.TypeBigInt)},
			datafile.Column{ID: datafile.ValueKindFieldID, Name: datafile.ValueKindName, Type: schema.AtomicType(schema.TypeTinyInt)})
	}
	for i, rf := range r.fields {
		l.src[i] = -1
		if !r.need[i] {
			continue
		}
		ff, ok := fs.FieldByID(rf.ID)
		if !ok {
			continue // added after the file was written: NULL
		}
		l.src[i] = len(l.cols)
		l.cols = append(l.cols, datafile.Column{ID: ff.ID, Name: ff.Name, Type: ff.Type})
		if !ff.Type.EqualIgnoreNullability(rf.Type) {
			t := ff.Type
			l.cast[i] = &t
		}
	}
	return l, nil
}

// mapRow fills dst (one value per read field) from a file row.
func (r *Reader) mapRow(l *fileLayout, src, dst []any) error {
	for i := range dst {
		j := l.src[i]
		if j < 0 {
			dst[i] = nil
			continue
		}
		v := src[j]
		if l.cast[i] != nil && v != nil {
			c, err := schema.CastValueIn(v, l.cast[i], &r.fields[i].Type, r.plan.Spec.TimeZone)
			if err != nil {
				return fmt.Errorf("lsmread: column %s: %w", r.fields[i].Name, err)
			}
			v = c
		}
		dst[i] = v
	}
	return nil
}

func (r *Reader) openFile(ctx context.Context, split *DataSplit, f *manifest.DataFileMeta, cols []datafile.Column, opts datafile.ReadOptions) (datafile.FileReader, error) {
	format := datafile.FormatOf(f.FileName)
	if format != datafile.FormatParquet {
		return nil, fmt.Errorf("%w: %s data files (file %s)", ErrUnsupported, strings.ToUpper(format), f.FileName)
	}
	file, err := r.openPath(ctx, split, f)
	if err != nil {
		return nil, err
	}
	fr, err := datafile.OpenFile(format, file, cols, opts)
	if err != nil {
		file.Close()
		return nil, fmt.Errorf("lsmread: open %s: %w", f.FileName, err)
	}
	return &closingReader{FileReader: fr, file: file}, nil
}

func (r *Reader) openPath(ctx context.Context, split *DataSplit, f *manifest.DataFileMeta) (storage.File, error) {
	if f.ExternalPath != nil && *f.ExternalPath != "" {
		if r.plan.Table.resolveExternal != nil {
			return r.plan.Table.resolveExternal(ctx, *f.ExternalPath)
		}
		return openURL(ctx, *f.ExternalPath)
	}
	return r.plan.Table.store.Open(ctx, split.BucketPath()+f.FileName)
}

// openURL opens a file by absolute URL (external data and index paths).
// Java writes local ones as FILE:/dir/file or file:/dir/file.
func openURL(ctx context.Context, url string) (storage.File, error) {
	i := strings.LastIndexByte(url, '/')
	if i < 0 {
		return nil, fmt.Errorf("lsmread: bad external path %q", url)
	}
	dir := url[:i]
	if scheme, rest, ok := strings.Cut(dir, ":"); ok && strings.EqualFold(scheme, "file") {
		dir = "file://" + strings.TrimPrefix(rest, "//")
		// storage.Open creates missing local folders; a reader must not.
		if _, err := os.Stat(strings.TrimPrefix(dir, "file://")); err != nil {
			return nil, fmt.Errorf("lsmread: external path %s: %w", url, storage.ErrNotExist)
		}
	} else if !ok {
		return nil, fmt.Errorf("lsmread: external path %q has no scheme", url)
	}
	st, err := storage.Open(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("lsmread: external path %s: %w", url, err)
	}
	f, err := st.Open(ctx, url[i+1:])
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("lsmread: external path %s: %w", url, err)
	}
	return &closingFile{File: f, st: st}, nil
}

type closingFile struct {
	storage.File
	st storage.Storage
}

func (c *closingFile) Close() error {
	err := c.File.Close()
	if cerr := c.st.Close(); err == nil {
		err = cerr
	}
	return err
}

type closingReader struct {
	datafile.FileReader
	file storage.File
}

func (c *closingReader) Close() error {
	err := c.FileReader.Close()
	if cerr := c.file.Close(); err == nil {
		err = cerr
	}
	return err
}

// project builds the output row of a read-schema row, or nil when the filter
// rejects it.
func (r *Reader) project(row []any) []any {
	if r.filter != nil && Test(r.filter, func(f int) (any, bool) { return row[f], true }) != True {
		return nil
	}
	out := make([]any, len(r.out))
	for i, j := range r.out {
		out[i] = row[j]
	}
	return out
}

// ---- raw reads (append tables, DV and first-row primary-key tables) ----

type rawIterator struct {
	r     *Reader
	ctx   context.Context
	split *DataSplit
	next  int // next file index

	cur    datafile.FileReader
	layout *fileLayout
	dv     dv.DeletionVector
	rows   [][]any
	n, i   int
	pos    int64 // file position of rows[0]
	full   []any
	dvs    *dvCache
}

func (it *rawIterator) Next() ([]any, error) {
	for {
		for it.i < it.n {
			i := it.i
			it.i++
			if it.dv != nil && it.dv.IsDeleted(it.pos+int64(i)) {
				continue
			}
			if err := it.r.mapRow(it.layout, it.rows[i], it.full); err != nil {
				return nil, err
			}
			if out := it.r.project(it.full); out != nil {
				return out, nil
			}
		}
		if it.cur != nil {
			it.pos = it.cur.Position()
			n, err := it.cur.Next(it.rows)
			if err == nil || (errors.Is(err, io.EOF) && n > 0) {
				it.n, it.i = n, 0
				continue
			}
			if !errors.Is(err, io.EOF) {
				return nil, err
			}
			if err := it.cur.Close(); err != nil {
				return nil, err
			}
			it.cur = nil
		}
		if err := it.openNext(); err != nil {
			return nil, err
		}
	}
}

func (it *rawIterator) openNext() error {
	if it.next >= len(it.split.Files) {
		return io.EOF
	}
	fi := it.next
	it.next++
	f := &it.split.Files[fi]
	l, err := it.r.layout(it.ctx, f, false)
	if err != nil {
		return err
	}
	it.layout = l
	it.dv = nil
	if fi < len(it.split.DeletionFiles) && it.split.DeletionFiles[fi] != nil {
		if it.dvs == nil {
			it.dvs = newDVCache(it.r)
		}
		if it.dv, err = it.dvs.load(it.ctx, it.split.DeletionFiles[fi]); err != nil {
			return fmt.Errorf("lsmread: deletion vector of %s: %w", f.FileName, err)
		}
	}
	cur, err := it.r.openFile(it.ctx, it.split, f, l.cols, datafile.ReadOptions{})
	if err != nil {
		return err
	}
	if it.r.filter != nil {
		groups := it.r.rowGroups(cur, l)
		if groups != nil {
			cur.Close()
			if cur, err = it.r.openFile(it.ctx, it.split, f, l.cols, datafile.ReadOptions{RowGroups: groups}); err != nil {
				return err
			}
		}
	}
	it.cur = cur
	if it.rows == nil {
		it.rows = make([][]any, batchSize)
		it.full = make([]any, len(it.r.fields))
	}
	it.n, it.i = 0, 0
	return nil
}

// rowGroups returns the row groups whose statistics may match the filter,
// or nil when all of them may.
func (r *Reader) rowGroups(fr datafile.FileReader, l *fileLayout) []int {
	rgs := fr.RowGroups()
	var keep []int
	for _, rg := range rgs {
		ok := MayMatch(r.filter, func(field int) (ColumnStats, bool) {
			j := l.src[field]
			if j < 0 || l.cast[field] != nil || j >= len(rg.Stats) {
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

func (it *rawIterator) Close() error {
	if it.cur != nil {
		err := it.cur.Close()
		it.cur = nil
		return err
	}
	return nil
}

// dvCache loads deletion vectors of one split, opening each index file once.
type dvCache struct {
	r     *Reader
	files map[string]storage.File
}

func newDVCache(r *Reader) *dvCache { return &dvCache{r: r, files: map[string]storage.File{}} }

func (c *dvCache) load(ctx context.Context, d *DeletionFile) (dv.DeletionVector, error) {
	f, ok := c.files[d.Path]
	if !ok {
		var err error
		if strings.Contains(d.Path, ":") {
			if c.r.plan.Table.resolveExternal != nil {
				f, err = c.r.plan.Table.resolveExternal(ctx, d.Path)
			} else {
				f, err = openURL(ctx, d.Path)
			}
		} else {
			f, err = c.r.plan.Table.store.Open(ctx, d.Path)
		}
		if err != nil {
			return nil, err
		}
		defer f.Close()
	}
	return dv.ReadDeletionVector(f, d.Offset, d.Length)
}

// ---- merge-on-read ----

// kvFileReader reads one data file of a primary-key table as a sorted run of
// KeyValues. Each batch gets fresh slabs, as kv.RecordReader requires.
type kvFileReader struct {
	r      *Reader
	fr     datafile.FileReader
	layout *fileLayout
	level  int
	rows   [][]any
	n, i   int
	vals   []any
	keys   []any
}

func (k *kvFileReader) Next() (kv.KeyValue, bool, error) {
	if k.i >= k.n {
		n, err := k.fr.Next(k.rows)
		if err != nil && !(errors.Is(err, io.EOF) && n > 0) {
			if errors.Is(err, io.EOF) {
				return kv.KeyValue{}, false, nil
			}
			return kv.KeyValue{}, false, err
		}
		k.n, k.i = n, 0
		nf, nk := len(k.r.fields), len(k.r.keyIdx)
		k.vals = make([]any, n*nf)
		k.keys = make([]any, n*nk)
	}
	i := k.i
	k.i++
	row := k.rows[i]
	nf, nk := len(k.r.fields), len(k.r.keyIdx)
	val := k.vals[i*nf : (i+1)*nf : (i+1)*nf]
	if err := k.r.mapRow(k.layout, row, val); err != nil {
		return kv.KeyValue{}, false, err
	}
	key := k.keys[i*nk : (i+1)*nk : (i+1)*nk]
	for j, fi := range k.r.keyIdx {
		key[j] = val[fi]
	}
	seq, ok1 := row[k.layout.seqCol].(int64)
	kind, ok2 := row[k.layout.kindCol].(int8)
	if !ok1 || !ok2 || kind < 0 || kind > 3 {
		return kv.KeyValue{}, false, fmt.Errorf("lsmread: bad _SEQUENCE_NUMBER/_VALUE_KIND in a data file: %w", datafile.ErrCorrupt)
	}
	return kv.KeyValue{Key: key, Seq: kv.SeqNum(seq), Kind: kv.RowKind(kind), Value: val, Level: k.level}, true, nil
}

func (k *kvFileReader) Close() error {
	if k.fr == nil {
		return nil
	}
	err := k.fr.Close()
	k.fr = nil
	return err
}

type mergeIterator struct {
	r        *Reader
	ctx      context.Context
	split    *DataSplit
	sections [][][]manifest.DataFileMeta
	next     int
	cur      *kv.SortMergeReader
}

func (r *Reader) openMerge(ctx context.Context, split *DataSplit) (RowIterator, error) {
	keyTypes := make(map[int64][]schema.DataType)
	type bounds struct{ min, max []any }
	bs := make(map[string]bounds, len(split.Files))
	for i := range split.Files {
		f := &split.Files[i]
		types, ok := keyTypes[f.SchemaID]
		if !ok {
			fs, err := r.plan.Table.schemas.Schema(ctx, schema.SchemaID(f.SchemaID))
			if err != nil {
				return nil, err
			}
			for _, kf := range fs.TrimmedPrimaryKeyFields() {
				types = append(types, kf.Type)
			}
			keyTypes[f.SchemaID] = types
		}
		mn, err := binaryrow.DecodeSerialized(types, f.MinKey)
		if err != nil {
			return nil, fmt.Errorf("lsmread: min key of %s: %w", f.FileName, err)
		}
		mx, err := binaryrow.DecodeSerialized(types, f.MaxKey)
		if err != nil {
			return nil, fmt.Errorf("lsmread: max key of %s: %w", f.FileName, err)
		}
		bs[f.FileName] = bounds{mn, mx}
	}
	sections := kv.IntervalPartition(split.Files,
		func(f manifest.DataFileMeta) []any { return bs[f.FileName].min },
		func(f manifest.DataFileMeta) []any { return bs[f.FileName].max },
		r.keyCmp)
	return &mergeIterator{r: r, ctx: ctx, split: split, sections: sections}, nil
}

func (m *mergeIterator) Next() ([]any, error) {
	for {
		if m.cur != nil {
			kvr, ok, err := m.cur.Next()
			if err != nil {
				return nil, err
			}
			if ok {
				if !kvr.Kind.IsAdd() {
					continue
				}
				if out := m.r.project(kvr.Value); out != nil {
					return out, nil
				}
				continue
			}
			if err := m.cur.Close(); err != nil {
				return nil, err
			}
			m.cur = nil
		}
		if m.next >= len(m.sections) {
			return nil, io.EOF
		}
		sec := m.sections[m.next]
		m.next++
		runs := make([]kv.RecordReader, 0, len(sec))
		for _, run := range sec {
			readers := make([]kv.RecordReader, 0, len(run))
			for i := range run {
				f := &run[i]
				l, err := m.r.layout(m.ctx, f, true)
				if err != nil {
					closeAll(runs)
					closeAll(readers)
					return nil, err
				}
				fr, err := m.r.openFile(m.ctx, m.split, f, l.cols, datafile.ReadOptions{})
				if err != nil {
					closeAll(runs)
					closeAll(readers)
					return nil, err
				}
				readers = append(readers, &kvFileReader{r: m.r, fr: fr, layout: l, level: int(f.Level), rows: make([][]any, batchSize)})
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
