package lsmread

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/lakesql/lakesql/internal/datafile"
	"github.com/lakesql/lakesql/internal/dv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/sortedrun"
)

// BatchIterator yields the rows of a split as column batches in the
// projected column order (datafile.Batch: typed vectors with validity, and a
// selection of the rows that pass deletion vectors and the filter). Next
// returns io.EOF at the end; a batch's vectors are valid until the next call.
type BatchIterator interface {
	Next(b *datafile.Batch) error
	Close() error
}

// ReadBatches opens a split for a columnar read. Splits that need no merge
// (ReadRaw: append tables, deletion-vector and first-row tables, read-
// optimized scans, buckets of one level without retract records) are
// decoded from the Parquet pages into vectors directly. A merged split of a
// deduplicate table whose files hold disjoint key ranges (a compacted
// bucket, or levels that do not overlap) is read raw too: every key has one
// record, so its merge is the record itself when it adds a row, and nothing
// when it retracts one (mergeIsRaw). Other merged splits (ReadMerge) return
// the batches of their sections that need no merge as they are, and merge
// the key runs of the others into batches (typed vectors filled from the
// merged rows). A split whose filter pins a few keys is read through their
// lookup (Read) whatever its mode.
func (r *Reader) ReadBatches(ctx context.Context, split *DataSplit) (BatchIterator, error) {
	if split.Mode == ReadRaw && !r.lookupReadable(split, r.splitKeys(split)) {
		return &rawBatches{r: r, ctx: ctx, split: split}, nil
	}
	if ok, err := r.mergeIsRaw(ctx, split); err != nil {
		return nil, err
	} else if ok {
		return &rawBatches{r: r, ctx: ctx, split: split, adds: true}, nil
	}
	if m, err := r.openMergeSections(ctx, split); err != nil || m != nil {
		if err != nil {
			return nil, err
		}
		return &mergeBatches{r: r, m: m}, nil
	}
	rows, err := r.Read(ctx, split)
	if err != nil {
		return nil, err
	}
	return &rowBatches{r: r, rows: rows}, nil
}

// rawBatches reads a raw split's files one after another as batches.
type rawBatches struct {
	r     *Reader
	ctx   context.Context
	split *DataSplit
	adds  bool // KeyValue files read without their retractions (mergeIsRaw)
	next  int
	cur   *sortedrun.BatchReader
	full  datafile.Batch // read-schema batch
	sel   []int32
}

func (it *rawBatches) Next(b *datafile.Batch) error {
	for {
		if it.cur == nil {
			if err := it.openNext(); err != nil {
				return err
			}
		}
		err := it.cur.Next(&it.full)
		if errors.Is(err, io.EOF) {
			err = it.cur.Close()
			it.cur = nil
			if err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		if it.project(b) {
			return nil
		}
	}
}

// project moves the projected vectors of it.full into b and applies the
// filter to the selection; false when no row remains.
func (it *rawBatches) project(b *datafile.Batch) bool {
	return it.r.projectBatch(&it.full, b, &it.sel)
}

// projectBatch makes b show the projected vectors of full (a read-schema
// batch; b shares its buffers until full is refilled) and applies the
// filter to the selection, using *sel as its buffer; false when no row
// remains.
func (r *Reader) projectBatch(full, b *datafile.Batch, sel *[]int32) bool {
	b.Len, b.FirstRow, b.Sel = full.Len, full.FirstRow, full.Sel
	if r.filter != nil {
		s := filterBatch(r.filter, full, full.Sel, (*sel)[:0])
		*sel = s
		if len(s) == 0 {
			return false
		}
		b.Sel = s
		if len(s) == full.Len {
			b.Sel = nil
		}
	}
	b.Cols = b.Cols[:0]
	for _, j := range r.out {
		b.Cols = append(b.Cols, full.Cols[j]) // shares the buffers until the next call
	}
	return true
}

func (it *rawBatches) openNext() error {
	if it.next >= len(it.split.Files) {
		return io.EOF
	}
	fi := it.next
	it.next++
	f := &it.split.Files[fi]
	if err := checkFormat(f); err != nil {
		return err
	}
	var vec dv.DeletionVector
	if fi < len(it.split.DeletionFiles) && it.split.DeletionFiles[fi] != nil {
		var err error
		if vec, err = it.r.dvs.Load(it.ctx, it.split.DeletionFiles[fi]); err != nil {
			return fmt.Errorf("lsmread: deletion vector of %s: %w", f.FileName, err)
		}
	}
	var groups sortedrun.GroupFilter
	if it.r.filter != nil {
		groups = it.r.rowGroups
	}
	var cur *sortedrun.BatchReader
	var err error
	if it.adds {
		cur, err = it.r.run.OpenBatchesAdds(it.ctx, it.split.file(f), groups)
	} else {
		cur, err = it.r.run.OpenBatches(it.ctx, it.split.file(f), vec, groups)
	}
	if err != nil {
		return err
	}
	it.cur = cur
	return nil
}

func (it *rawBatches) Close() error {
	if it.cur != nil {
		err := it.cur.Close()
		it.cur = nil
		return err
	}
	return nil
}

// rowBatches collects the rows of a merged split into batches.
type rowBatches struct {
	r    *Reader
	rows RowIterator
}

func (it *rowBatches) Next(b *datafile.Batch) error {
	if it.rows == nil {
		return io.EOF
	}
	if b.Cols == nil || len(b.Cols) != len(it.r.out) {
		b.Cols = make([]datafile.Vector, len(it.r.out))
	}
	for i, j := range it.r.out {
		b.Cols[i].Reset(it.r.fields[j].Type, sortedrun.BatchSize)
	}
	n := 0
	for n < sortedrun.BatchSize {
		row, err := it.rows.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		for i, v := range row {
			if err := b.Cols[i].Set(n, v); err != nil {
				return fmt.Errorf("lsmread: column %s: %w", it.r.fields[it.r.out[i]].Name, err)
			}
		}
		n++
	}
	b.Len, b.FirstRow, b.Sel = n, 0, nil
	for i := range b.Cols {
		b.Cols[i].Len = n
	}
	if n == 0 {
		return io.EOF
	}
	return nil
}

func (it *rowBatches) Close() error {
	if it.rows == nil {
		return nil
	}
	err := it.rows.Close()
	it.rows = nil
	return err
}

// openMergeSections opens a merged split section by section, or returns nil
// when Read reads it otherwise (key lookups, records and diff splits).
func (r *Reader) openMergeSections(ctx context.Context, split *DataSplit) (*mergeIterator, error) {
	if split.Mode != ReadMerge || r.lookupReadable(split, r.splitKeys(split)) {
		return nil, nil
	}
	return r.openMerge(ctx, split)
}

// mergeBatches reads a merged split as batches: a section that needs no
// merge gives its file's batches, merged sections fill typed vectors with
// the merged rows, up to sortedrun.BatchSize rows per batch.
type mergeBatches struct {
	r   *Reader
	m   *mergeIterator
	raw datafile.Batch // the current batch of a section read as it is
	// held: raw holds a batch that arrived while merged rows were being
	// collected; the next call returns it.
	held bool
	own  []datafile.Vector // the vectors of merged rows
}

func (it *mergeBatches) Next(b *datafile.Batch) error {
	if it.m == nil {
		return io.EOF
	}
	if it.held {
		it.held = false
		giveBatch(b, &it.raw)
		return nil
	}
	if len(it.own) != len(it.r.out) {
		it.own = make([]datafile.Vector, len(it.r.out))
	}
	for i, j := range it.r.out {
		it.own[i].Reset(it.r.fields[j].Type, sortedrun.BatchSize)
	}
	n := 0
	for n < sortedrun.BatchSize {
		row, isBatch, err := it.m.nextChunk(&it.raw)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if isBatch {
			if n == 0 {
				giveBatch(b, &it.raw)
				return nil
			}
			it.held = true
			break
		}
		for i, j := range it.r.out {
			if err := it.own[i].Set(n, row[j]); err != nil {
				return fmt.Errorf("lsmread: column %s: %w", it.r.fields[it.r.out[i]].Name, err)
			}
		}
		n++
	}
	if n == 0 {
		return io.EOF
	}
	for i := range it.own {
		it.own[i].Len = n
	}
	b.Cols = append(b.Cols[:0], it.own...)
	b.Len, b.FirstRow, b.Sel = n, 0, nil
	return nil
}

// giveBatch makes b show src's rows (sharing its vectors' buffers).
func giveBatch(b, src *datafile.Batch) {
	b.Cols = append(b.Cols[:0], src.Cols...)
	b.Len, b.FirstRow, b.Sel = src.Len, src.FirstRow, src.Sel
}

func (it *mergeBatches) Close() error {
	if it.m == nil {
		return nil
	}
	err := it.m.Close()
	it.m = nil
	return err
}

// mergeIsRaw reports whether a merged split can be read file by file
// without merging (see ReadBatches): a deduplicate table read without its
// retractions, whose files' key ranges do not overlap, and not a point
// read (keys the filter pins are looked up).
func (r *Reader) mergeIsRaw(ctx context.Context, split *DataSplit) (bool, error) {
	p := r.plan
	if split.Mode != ReadMerge || p.Spec.KeepDelete || p.Core.MergeEngine != schema.MergeEngineDeduplicate || len(split.DeletionFiles) > 0 {
		return false, nil
	}
	if r.lookupReadable(split, r.splitKeys(split)) {
		return false, nil // the filter pins a few keys: Read looks them up
	}
	return r.disjointFiles(ctx, split)
}
