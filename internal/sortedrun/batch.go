package sortedrun

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/lakesql/lakesql/internal/datafile"
	"github.com/lakesql/lakesql/internal/dv"
	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
)

// batchSource is what BatchReader needs of a data file reader.
type batchSource interface {
	NextBatch(b *datafile.Batch, max int) error
}

// BatchReader reads one data file as column batches of the read schema, in
// file order, with its deletion vector applied as the batch selection.
type BatchReader struct {
	r      *Reader
	fr     datafile.FileReader
	src    batchSource
	layout *Layout
	dv     dv.DeletionVector
	dvIt   *dv.PositionIterator // over dv, made at the first batch
	del    []int64              // the current batch's deleted positions
	file   datafile.Batch       // file columns
	types  []schema.DataType
	sel    []int32
	// records: a KeyValue file read for a columnar merge (every record,
	// retractions too; SeqNums and Kinds give the system columns).
	records bool
}

// OpenBatches opens f for a columnar read; vec and groups are as for
// OpenRows.
func (r *Reader) OpenBatches(ctx context.Context, f *File, vec dv.DeletionVector, groups GroupFilter) (*BatchReader, error) {
	return r.openBatches(ctx, f, vec, groups, 0, false)
}

// OpenBatchesAdds opens f, a data file in the KeyValue layout, for a
// columnar read of its records that add a row (+I, +U): the retractions
// (-U, -D) are left out of the selection. Reading a file so is its merge
// when no other file holds its keys and the merge engine keeps a key's one
// record as it is (deduplicate).
func (r *Reader) OpenBatchesAdds(ctx context.Context, f *File, groups GroupFilter) (*BatchReader, error) {
	return r.openBatches(ctx, f, nil, groups, sysKindInt32, false)
}

// OpenKeyValueBatches opens f, a data file in the KeyValue layout, for a
// merge over column batches: every record is in the batches (retractions
// too), with the deletion vector vec (nil: none) as the selection. SeqNums
// gives each batch's _SEQUENCE_NUMBER when seq is set, Kinds its
// _VALUE_KIND when kinds is set (the others are not decoded). The key
// fields must be read.
func (r *Reader) OpenKeyValueBatches(ctx context.Context, f *File, vec dv.DeletionVector, seq, kinds bool) (*BatchReader, error) {
	for _, i := range r.keyIdx {
		if !r.need[i] {
			return nil, fmt.Errorf("sortedrun: key field %s is not read", r.fields[i].Name)
		}
	}
	if vec != nil && vec.IsEmpty() {
		vec = nil
	}
	var sys systemCols
	if seq {
		sys |= sysSeq
	}
	if kinds {
		sys |= sysKindInt32
	}
	return r.openBatches(ctx, f, vec, nil, sys, true)
}

// openBatches opens f for a batch read of the system columns sys; adds
// reads a KeyValue file without its retractions, records with them.
func (r *Reader) openBatches(ctx context.Context, f *File, vec dv.DeletionVector, groups GroupFilter, sys systemCols, records bool) (*BatchReader, error) {
	fr, l, err := r.openSelected(ctx, f, groups, sys)
	if err != nil {
		return nil, err
	}
	src, ok := fr.(*closingReader).FileReader.(batchSource)
	if !ok {
		fr.Close()
		return nil, fmt.Errorf("sortedrun: %s: %w: no columnar reader for this format", f.Name, datafile.ErrUnsupported)
	}
	types := make([]schema.DataType, len(r.fields))
	for i := range r.fields {
		types[i] = r.fields[i].Type
	}
	return &BatchReader{r: r, fr: fr, src: src, layout: l, dv: vec, types: types, records: records}, nil
}

// allTrue is copied into the NULL masks of fields a file does not hold.
var allTrue [BatchSize]bool

func init() {
	for i := range allTrue {
		allTrue[i] = true
	}
}

// allNull returns a mask of n NULLs in buf's array when it is large
// enough.
func allNull(buf []bool, n int) []bool {
	if cap(buf) < n {
		buf = make([]bool, n)
	}
	buf = buf[:n]
	for k := 0; k < n; k += copy(buf[k:], allTrue[:]) {
	}
	return buf
}

// Next fills b with the next batch (one vector per read field; fields not
// read are NULL), or returns io.EOF. Batches with every row deleted are
// skipped. b's vectors are valid until the next call.
func (br *BatchReader) Next(b *datafile.Batch) error {
	for {
		if br.fr == nil {
			return io.EOF
		}
		if err := br.src.NextBatch(&br.file, BatchSize); err != nil {
			if errors.Is(err, io.EOF) {
				return io.EOF
			}
			return err
		}
		n := br.file.Len
		if cap(b.Cols) < len(br.types) {
			b.Cols = make([]datafile.Vector, len(br.types))
		}
		b.Cols = b.Cols[:len(br.types)]
		b.Len, b.FirstRow, b.Sel = n, br.file.FirstRow, nil
		l := br.layout
		for i := range br.types {
			out := &b.Cols[i]
			j := l.Src[i]
			switch {
			case j < 0:
				// Reset leaves Any entries nil; every entry is NULL. The
				// vector's own mask is reused (valid until the next call).
				nulls := out.Nulls
				out.Reset(br.types[i], n)
				out.Nulls = allNull(nulls, n)
			case l.Cast[i] != nil:
				in := &br.file.Cols[j]
				out.Reset(br.types[i], n)
				for k := range n {
					v := in.Value(k)
					if v != nil {
						c, err := schema.CastValueIn(v, l.Cast[i], &br.r.fields[i].Type, br.r.tz)
						if err != nil {
							return fmt.Errorf("sortedrun: column %s: %w", br.r.fields[i].Name, err)
						}
						v = c
					}
					if err := out.Set(k, v); err != nil {
						return fmt.Errorf("sortedrun: column %s: %w", br.r.fields[i].Name, err)
					}
				}
			default:
				// Hand the file's vector over, keeping the read type; the
				// file batch takes the old buffers for its next fill.
				*out, br.file.Cols[j] = br.file.Cols[j], *out
				out.Type = br.types[i]
			}
		}
		kinds := -1
		if l.KindCol >= 0 && !br.records {
			kinds = l.KindCol
		}
		// The batch's deleted positions, from the deletion vector's
		// iterator (no per-row lookup): the row groups read are in file
		// order, so the iterator only moves forward.
		br.del = br.del[:0]
		if br.dv != nil {
			if br.dvIt == nil {
				br.dvIt = br.dv.Iterator()
			}
			br.dvIt.AdvanceTo(b.FirstRow)
			br.del = br.dvIt.AppendUntil(br.del, b.FirstRow+int64(n))
		}
		if len(br.del) == 0 && kinds < 0 {
			return nil
		}
		br.sel = br.sel[:0]
		d := 0
		for k := range n {
			if d < len(br.del) && br.del[d] == b.FirstRow+int64(k) {
				d++
				continue
			}
			if kinds >= 0 {
				add, err := addKind(&br.file.Cols[kinds], k)
				if err != nil {
					return fmt.Errorf("sortedrun: %w", err)
				}
				if !add {
					continue
				}
			}
			br.sel = append(br.sel, int32(k))
		}
		if len(br.sel) == 0 {
			continue
		}
		if len(br.sel) < n {
			b.Sel = br.sel
		}
		return nil
	}
}

// SeqNums returns the _SEQUENCE_NUMBER of every row of the batch Next
// filled last (OpenKeyValueBatches), valid until the next call.
func (br *BatchReader) SeqNums() ([]int64, error) {
	return systemColumn(&br.file, br.layout.SeqCol, datafile.VectorInt64, func(v *datafile.Vector) []int64 { return v.Int64 })
}

// Kinds returns the _VALUE_KIND of every row of the batch Next filled last
// (OpenKeyValueBatches) as Int32 values, valid until the next call; the
// caller checks their range.
func (br *BatchReader) Kinds() ([]int32, error) {
	return systemColumn(&br.file, br.layout.KindCol, datafile.VectorInt32, func(v *datafile.Vector) []int32 { return v.Int32 })
}

// systemColumn returns the values of a system column of a file batch,
// refusing a NULL or a missing column as corrupt.
func systemColumn[T any](b *datafile.Batch, col int, kind datafile.VectorKind, vals func(*datafile.Vector) []T) ([]T, error) {
	if col < 0 || col >= len(b.Cols) || b.Cols[col].Kind() != kind {
		return nil, fmt.Errorf("sortedrun: %w: no system column %d in a KeyValue batch", datafile.ErrCorrupt, col)
	}
	v := &b.Cols[col]
	if v.Nulls != nil {
		for _, null := range v.Nulls[:b.Len] {
			if null {
				return nil, fmt.Errorf("sortedrun: %w: NULL %s or %s", datafile.ErrCorrupt, datafile.SequenceNumberName, datafile.ValueKindName)
			}
		}
	}
	return vals(v)[:b.Len], nil
}

// Close releases the file. It is safe to call more than once.
func (br *BatchReader) Close() error {
	if br.fr == nil {
		return nil
	}
	err := br.fr.Close()
	br.fr = nil
	return err
}

// addKind reports whether entry k of a _VALUE_KIND vector (read as INT)
// adds a row.
func addKind(v *datafile.Vector, k int) (bool, error) {
	if v.Kind() != datafile.VectorInt32 || v.IsNull(k) || v.Int32[k] < 0 || v.Int32[k] > 3 {
		return false, fmt.Errorf("%w: %s of row %d is %v", datafile.ErrCorrupt, datafile.ValueKindName, k, v.Value(k))
	}
	return kv.RowKind(v.Int32[k]).IsAdd(), nil
}
