package lsmread

import (
	"context"
	"fmt"
	"io"

	"github.com/lakesql/lakesql/internal/dv"
	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// KindRowIterator yields the rows of a split with their row kind
// ($audit_log, $binlog). Next returns io.EOF at the end. Each row is a fresh
// slice in the projected column order.
type KindRowIterator interface {
	Next() (kv.RowKind, []any, error)
	Close() error
}

// ReadWithKinds opens a split for a read that keeps row kinds (Java's
// AuditLogRead, a read with forceKeepDelete):
//   - a merged split yields each key's merged record, retractions included
//     when the plan's KeepDelete is set;
//   - a raw split of a primary-key table yields the records of its files
//     (deletion vectors applied) with their stored kinds;
//   - an append table's rows are +I;
//   - a records split (an incremental delta or changelog read) yields every
//     record as written, file after file;
//   - a diff split yields -D for keys only the earlier snapshot has (with
//     KeepDelete) and the later record of keys that are new or changed.
func (r *Reader) ReadWithKinds(ctx context.Context, split *DataSplit) (KindRowIterator, error) {
	if !r.plan.isPK() {
		if split.Mode == ReadDiff {
			return nil, fmt.Errorf("%w: an incremental diff of an append table", ErrUnsupported)
		}
		return &insertKinds{rows: newRawIterator(r, ctx, split)}, nil
	}
	switch split.Mode {
	case ReadMerge:
		m, err := r.openMergeKV(ctx, split, split.Files, nil)
		if err != nil {
			return nil, err
		}
		return &kvKinds{r: r, src: m, keepDelete: r.plan.Spec.KeepDelete}, nil
	case ReadRaw, ReadRecords:
		return &kvKinds{r: r, src: &fileRecords{r: r, ctx: ctx, split: split}, keepDelete: true}, nil
	case ReadDiff:
		before, err := r.openMergeKV(ctx, split, split.BeforeFiles, split.BeforeDeletionFiles)
		if err != nil {
			return nil, err
		}
		after, err := r.openMergeKV(ctx, split, split.Files, split.DeletionFiles)
		if err != nil {
			before.Close()
			return nil, err
		}
		return &kvKinds{r: r, src: &diffRecords{before: before, after: after, keyCmp: r.keyCmp,
			equal: r.valuesEqual, keepDelete: r.plan.Spec.KeepDelete}, keepDelete: true}, nil
	}
	return nil, fmt.Errorf("lsmread: split mode %v", split.Mode)
}

// addsOnly turns a KindRowIterator into the rows of its +I/+U records
// (Read and ReadBatches of records and diff splits).
type addsOnly struct{ it KindRowIterator }

func (a *addsOnly) Next() ([]any, error) {
	for {
		k, row, err := a.it.Next()
		if err != nil {
			return nil, err
		}
		if k.IsAdd() {
			return row, nil
		}
	}
}

func (a *addsOnly) Close() error { return a.it.Close() }

// insertKinds marks an append table's rows +I.
type insertKinds struct{ rows RowIterator }

func (it *insertKinds) Next() (kv.RowKind, []any, error) {
	row, err := it.rows.Next()
	return kv.Insert, row, err
}

func (it *insertKinds) Close() error { return it.rows.Close() }

// kvKinds projects and filters a stream of KeyValues.
type kvKinds struct {
	r          *Reader
	src        kv.RecordReader
	keepDelete bool
}

func (it *kvKinds) Next() (kv.RowKind, []any, error) {
	for {
		rec, ok, err := it.src.Next()
		if err != nil {
			return 0, nil, err
		}
		if !ok {
			return 0, nil, io.EOF
		}
		if !it.keepDelete && !rec.Kind.IsAdd() {
			continue
		}
		if out := it.r.project(rec.Value); out != nil {
			return rec.Kind, out, nil
		}
	}
}

func (it *kvKinds) Close() error { return it.src.Close() }

// fileRecords reads the files of a split one after another as KeyValues,
// deletion vectors applied.
type fileRecords struct {
	r     *Reader
	ctx   context.Context
	split *DataSplit
	next  int
	cur   kv.RecordReader
}

func (f *fileRecords) Next() (kv.KeyValue, bool, error) {
	for {
		if f.cur == nil {
			if f.next >= len(f.split.Files) {
				return kv.KeyValue{}, false, nil
			}
			i := f.next
			f.next++
			var d *DeletionFile
			if i < len(f.split.DeletionFiles) {
				d = f.split.DeletionFiles[i]
			}
			cur, err := f.r.openFileKV(f.ctx, f.split, &f.split.Files[i], d)
			if err != nil {
				return kv.KeyValue{}, false, err
			}
			f.cur = cur
		}
		rec, ok, err := f.cur.Next()
		if err != nil || ok {
			return rec, ok, err
		}
		err = f.cur.Close()
		f.cur = nil
		if err != nil {
			return kv.KeyValue{}, false, err
		}
	}
}

func (f *fileRecords) Close() error {
	if f.cur == nil {
		return nil
	}
	err := f.cur.Close()
	f.cur = nil
	return err
}

// openFileKV opens one data file of a split as KeyValues with its deletion
// vector (if any) applied.
func (r *Reader) openFileKV(ctx context.Context, split *DataSplit, f *manifest.DataFileMeta, d *DeletionFile) (kv.RecordReader, error) {
	if err := checkFormat(f); err != nil {
		return nil, err
	}
	var vec dv.DeletionVector
	if d != nil {
		var err error
		if vec, err = r.dvs.Load(ctx, d); err != nil {
			return nil, fmt.Errorf("lsmread: deletion vector of %s: %w", f.FileName, err)
		}
	}
	rd, err := r.run.OpenKeyValues(ctx, split.file(f))
	if err != nil {
		return nil, err
	}
	if vec == nil {
		return rd, nil
	}
	return &dvKeyValues{rd: rd, vec: vec}, nil
}

// dvKeyValues drops the records of a file its deletion vector marks (by
// position in the file).
type dvKeyValues struct {
	rd  kv.RecordReader
	vec dv.DeletionVector
	pos int64
}

func (d *dvKeyValues) Next() (kv.KeyValue, bool, error) {
	for {
		rec, ok, err := d.rd.Next()
		if err != nil || !ok {
			return rec, ok, err
		}
		pos := d.pos
		d.pos++
		if !d.vec.IsDeleted(pos) {
			return rec, true, nil
		}
	}
}

func (d *dvKeyValues) Close() error { return d.rd.Close() }

// openMergeKV merges files (deletion vectors, parallel to files, applied)
// by key with the table's merge function: the KeyValues of a merged read,
// retractions included.
func (r *Reader) openMergeKV(ctx context.Context, split *DataSplit, files []manifest.DataFileMeta, dvs []*DeletionFile) (kv.RecordReader, error) {
	if len(files) == 0 {
		return emptyRecords{}, nil
	}
	factory := r.factory
	if factory == nil {
		var err error
		if factory, err = kv.NewMergeFunctionFactory(r.plan.Options, r.fields, r.plan.Schema.PrimaryKeys); err != nil {
			return nil, err
		}
	}
	lookup := r.lookup
	if r.factory == nil {
		var err error
		if lookup, err = needLookup(r.plan.Options); err != nil {
			return nil, err
		}
	}
	keyTypes := map[int64][]schema.DataType{}
	bs := make(map[string]keyBounds, len(files))
	dvOf := make(map[string]*DeletionFile, len(dvs))
	for i := range files {
		f := &files[i]
		if i < len(dvs) && dvs[i] != nil {
			dvOf[f.FileName] = dvs[i]
		}
		b, err := r.decodeKeyBounds(ctx, keyTypes, f)
		if err != nil {
			return nil, err
		}
		bs[f.FileName] = b
	}
	sections := kv.IntervalPartition(files,
		func(f manifest.DataFileMeta) []any { return bs[f.FileName].min },
		func(f manifest.DataFileMeta) []any { return bs[f.FileName].max },
		r.keyCmp)
	return &sectionMerge{ctx: ctx, r: r, split: split, sections: sections, dvOf: dvOf, factory: factory, lookup: lookup}, nil
}

type emptyRecords struct{}

func (emptyRecords) Next() (kv.KeyValue, bool, error) { return kv.KeyValue{}, false, nil }
func (emptyRecords) Close() error                     { return nil }

// sectionMerge reads sections one after the other, each a sort-merge of its
// runs.
type sectionMerge struct {
	ctx      context.Context
	r        *Reader
	split    *DataSplit
	sections [][][]manifest.DataFileMeta
	dvOf     map[string]*DeletionFile
	factory  *kv.MergeFunctionFactory
	lookup   bool
	next     int
	cur      *kv.SortMergeReader
}

func (m *sectionMerge) Next() (kv.KeyValue, bool, error) {
	for {
		if m.cur != nil {
			rec, ok, err := m.cur.Next()
			if err != nil || ok {
				return rec, ok, err
			}
			err = m.cur.Close()
			m.cur = nil
			if err != nil {
				return kv.KeyValue{}, false, err
			}
		}
		if m.next >= len(m.sections) {
			return kv.KeyValue{}, false, nil
		}
		sec := m.sections[m.next]
		m.next++
		runs := make([]kv.RecordReader, 0, len(sec))
		for _, run := range sec {
			readers := make([]kv.RecordReader, 0, len(run))
			for i := range run {
				fr, err := m.r.openFileKV(m.ctx, m.split, &run[i], m.dvOf[run[i].FileName])
				if err != nil {
					closeAll(runs)
					closeAll(readers)
					return kv.KeyValue{}, false, err
				}
				readers = append(readers, fr)
			}
			runs = append(runs, kv.NewConcatReader(readers...))
		}
		if m.lookup {
			m.cur = m.factory.NewLookupReader(runs, m.r.keyCmp)
		} else {
			m.cur = m.factory.NewReader(runs, m.r.keyCmp)
		}
	}
}

func (m *sectionMerge) Close() error {
	if m.cur == nil {
		return nil
	}
	err := m.cur.Close()
	m.cur = nil
	return err
}

// diffRecords is Java's IncrementalDiffSplitRead.DiffMerger over two merged
// streams in key order: a key only before → -D of the before record (when
// keepDelete and it was an add); a key only after → the after record; a key
// on both sides → the after record unless value and add-ness are equal.
// Without keepDelete only adds are returned.
type diffRecords struct {
	before, after kv.RecordReader
	keyCmp        kv.Comparator
	equal         func(a, b []any) bool
	keepDelete    bool

	b, a         kv.KeyValue
	hasB, hasA   bool
	started, eof bool
}

func (d *diffRecords) advanceB() error {
	var err error
	d.b, d.hasB, err = d.before.Next()
	return err
}

func (d *diffRecords) advanceA() error {
	var err error
	d.a, d.hasA, err = d.after.Next()
	return err
}

func (d *diffRecords) Next() (kv.KeyValue, bool, error) {
	if !d.started {
		d.started = true
		if err := d.advanceB(); err != nil {
			return kv.KeyValue{}, false, err
		}
		if err := d.advanceA(); err != nil {
			return kv.KeyValue{}, false, err
		}
	}
	for d.hasB || d.hasA {
		var out kv.KeyValue
		emit := false
		switch c := d.cmp(); {
		case c < 0: // only before
			if d.keepDelete && d.b.Kind.IsAdd() {
				out, emit = d.b, true
				out.Kind = kv.Delete
			}
			if err := d.advanceB(); err != nil {
				return kv.KeyValue{}, false, err
			}
		case c > 0: // only after
			out, emit = d.a, true
			if err := d.advanceA(); err != nil {
				return kv.KeyValue{}, false, err
			}
		default:
			if !(d.b.Kind.IsAdd() == d.a.Kind.IsAdd() && d.equal(d.b.Value, d.a.Value)) {
				out, emit = d.a, true
			}
			if err := d.advanceB(); err != nil {
				return kv.KeyValue{}, false, err
			}
			if err := d.advanceA(); err != nil {
				return kv.KeyValue{}, false, err
			}
		}
		if emit && (d.keepDelete || out.Kind.IsAdd()) {
			return out, true, nil
		}
	}
	return kv.KeyValue{}, false, nil
}

// cmp orders the current records: <0 when only the before side (or the
// smaller key) is there, >0 for the after side.
func (d *diffRecords) cmp() int {
	switch {
	case !d.hasA:
		return -1
	case !d.hasB:
		return 1
	}
	return d.keyCmp(d.b.Key, d.a.Key)
}

func (d *diffRecords) Close() error {
	err := d.before.Close()
	if e := d.after.Close(); err == nil {
		err = e
	}
	return err
}

// valuesEqual compares two full rows of the read schema (Java compares the
// serialized rows).
func (r *Reader) valuesEqual(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if (a[i] == nil) != (b[i] == nil) {
			return false
		}
		if a[i] != nil && !schema.Equal(&r.fields[i].Type, a[i], b[i]) {
			return false
		}
	}
	return true
}
