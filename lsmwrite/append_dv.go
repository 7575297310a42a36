package lsmwrite

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/dv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/sortedrun"
	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// Append tables with deletion-vectors.enabled take row-level DELETE and
// UPDATE as Spark's Paimon does (DeleteFromPaimonTableCommand,
// UpdatePaimonTableCommand with deletion vectors): the positions of the
// deleted rows are marked in their files' deletion vectors, an update
// writes the new rows as new files, and the commit (an APPEND with DV
// index changes, which the committer records as OVERWRITE) replaces the
// index files it touched. Bucketed tables keep one DV index file per bucket
// (Java BucketedAppendDeleteFileMaintainer over BucketedDvMaintainer);
// bucket-unaware tables keep index files keyed by name, rolling at
// deletion-vector.index-file.target-size, and rewrite only the index files
// holding a DV that changed (Java AppendDeleteFileMaintainer).

// appendDvMaintainer is Java's AppendDeleteFileMaintainer: the DV index
// files of one partition of a bucket-unaware append table.
type appendDvMaintainer struct {
	partition manifest.SerializedRow
	partPath  string
	entries   map[string]manifest.IndexManifestEntry // by index file name
	fileOf    map[string]string                      // data file → index file
	loaded    map[string]map[string]dv.DeletionVector
	touched   map[string]bool // index files with a changed DV
	removed   map[string]bool // data files whose old DV is replaced or dropped
	newDVs    map[string]dv.DeletionVector
}

func newAppendDvMaintainer(partition manifest.SerializedRow, partPath string, entries []manifest.IndexManifestEntry) *appendDvMaintainer {
	m := &appendDvMaintainer{partition: partition, partPath: partPath, entries: map[string]manifest.IndexManifestEntry{},
		fileOf: map[string]string{}, loaded: map[string]map[string]dv.DeletionVector{}, touched: map[string]bool{},
		removed: map[string]bool{}, newDVs: map[string]dv.DeletionVector{}}
	for _, e := range entries {
		m.entries[e.IndexFile.FileName] = e
		for _, r := range e.IndexFile.DVRanges {
			m.fileOf[r.DataFileName] = e.IndexFile.FileName
		}
	}
	return m
}

// indexFile returns the decoded DVs of an index file of the partition.
func (m *appendDvMaintainer) indexFile(ctx context.Context, x *indexFiles, name string) (map[string]dv.DeletionVector, error) {
	if v, ok := m.loaded[name]; ok {
		return v, nil
	}
	e := m.entries[name]
	v, err := x.readDeletionVectors(ctx, m.partPath, &e)
	if err != nil {
		return nil, err
	}
	m.loaded[name] = v
	return v, nil
}

// deletionVectorOf returns the current DV of a data file, or nil.
func (m *appendDvMaintainer) deletionVectorOf(ctx context.Context, x *indexFiles, file string) (dv.DeletionVector, error) {
	if v, ok := m.newDVs[file]; ok {
		return v, nil
	}
	if m.removed[file] {
		return nil, nil
	}
	idx, ok := m.fileOf[file]
	if !ok {
		return nil, nil
	}
	vecs, err := m.indexFile(ctx, x, idx)
	if err != nil {
		return nil, err
	}
	return vecs[file], nil
}

// notifyRemovedDeletionVector drops the DV of a data file (compacted away).
func (m *appendDvMaintainer) notifyRemovedDeletionVector(file string) {
	delete(m.newDVs, file)
	if idx, ok := m.fileOf[file]; ok {
		m.touched[idx] = true
		m.removed[file] = true
	}
}

// notifyNewDeletionVector sets the DV of a data file to vec merged with
// its current one.
func (m *appendDvMaintainer) notifyNewDeletionVector(ctx context.Context, x *indexFiles, file string, vec dv.DeletionVector) error {
	old, err := m.deletionVectorOf(ctx, x, file)
	if err != nil {
		return err
	}
	if old != nil {
		if err := vec.Merge(old); err != nil {
			return fmt.Errorf("lsmwrite: deletion vector of %s: %w", file, err)
		}
	}
	m.notifyRemovedDeletionVector(file)
	m.newDVs[file] = vec
	return nil
}

// persist writes the index changes: each touched index file is replaced
// by new ones holding its unchanged DVs (DELETE of the old, ADDs of the
// new), and the new DVs go to new index files (ADDs).
func (m *appendDvMaintainer) persist(ctx context.Context, x *indexFiles) ([]manifest.IndexManifestEntry, error) {
	// DELETEs first: the combination of a bucket-unaware index manifest
	// checks that a data file never has two DVs at once.
	var dels, out []manifest.IndexManifestEntry
	touched := make([]string, 0, len(m.touched))
	for name := range m.touched {
		touched = append(touched, name)
	}
	slices.Sort(touched)
	for _, name := range touched {
		vecs, err := m.indexFile(ctx, x, name)
		if err != nil {
			return nil, err
		}
		var keep []dv.NamedDV
		for _, r := range m.entries[name].IndexFile.DVRanges {
			if !m.removed[r.DataFileName] {
				keep = append(keep, dv.NamedDV{FileName: r.DataFileName, DV: vecs[r.DataFileName]})
			}
		}
		adds, err := x.writeDVRolling(ctx, m.partition, m.partPath, 0, keep)
		if err != nil {
			return nil, err
		}
		out = append(out, adds...)
		old := m.entries[name]
		old.Kind = manifest.FileKindDelete
		dels = append(dels, old)
	}
	named := make([]dv.NamedDV, 0, len(m.newDVs))
	for name, v := range m.newDVs {
		named = append(named, dv.NamedDV{FileName: name, DV: v})
	}
	slices.SortFunc(named, func(a, b dv.NamedDV) int { return cmp.Compare(a.FileName, b.FileName) })
	adds, err := x.writeDVRolling(ctx, m.partition, m.partPath, 0, named)
	if err != nil {
		return nil, err
	}
	return append(append(dels, out...), adds...), nil
}

// appendDeletes are the rows a write deletes from one (partition, bucket)
// of an append table: each row's encoding and how many copies go.
type appendDeletes struct {
	count map[string]int
	n     int
}

// rowEncoder encodes whole rows of a table for equality: the BinaryRow of
// the row's values, or a printed form for types BinaryRow cannot hold.
type rowEncoder struct {
	w     *binaryrow.Writer
	types []schema.DataType
}

func newRowEncoder(fields []schema.DataField) *rowEncoder {
	types := make([]schema.DataType, len(fields))
	for i, f := range fields {
		types[i] = f.Type.WithNullable(true)
	}
	e := &rowEncoder{types: types}
	if w, err := binaryrow.NewWriter(types); err == nil {
		e.w = w
	}
	return e
}

func (e *rowEncoder) encode(row []any) (string, error) {
	if e.w != nil {
		b, err := e.w.Encode(row)
		if err == nil {
			return string(b), nil
		}
	}
	return fmt.Sprintf("%#v", row), nil
}

// deletesRows reports whether the write deletes rows of an append table by
// their positions in the base snapshot's files.
func (w *TableWrite) deletesRows() bool {
	for _, p := range w.partOrder {
		for _, bs := range p.buckets {
			if bs.deletes != nil && bs.deletes.n > 0 {
				return true
			}
		}
	}
	return false
}

// deleteAppendRow records that row goes from bucket bs.
func (w *TableWrite) deleteAppendRow(bs *bucketState, row []any) error {
	if w.rowEnc == nil {
		w.rowEnc = newRowEncoder(w.sch.Fields)
	}
	k, err := w.rowEnc.encode(row)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidRow, err)
	}
	if bs.deletes == nil {
		bs.deletes = &appendDeletes{count: map[string]int{}}
	}
	bs.deletes.count[k]++
	bs.deletes.n++
	return nil
}

// ErrRowsChanged is wrapped (with snapshot.ErrConflict) by the error of a
// delete from an append table whose rows are no longer in the snapshot the
// write is based on: another writer deleted or compacted them.
var ErrRowsChanged = errors.New("lsmwrite: rows to delete are no longer in the table")

// resolveAppendDeletes finds the rows each bucket of p deletes in the
// files of the base snapshot and returns the DV index changes of p.
func (w *TableWrite) resolveAppendDeletes(ctx context.Context, p *partitionState) ([]manifest.IndexManifestEntry, error) {
	var bks []int32
	for b, bs := range p.buckets {
		if bs.deletes != nil && bs.deletes.n > 0 {
			bks = append(bks, b)
		}
	}
	if len(bks) == 0 {
		return nil, nil
	}
	slices.Sort(bks)
	x := w.indexFiles()
	entries, err := w.baseIndexEntries(ctx)
	if err != nil {
		return nil, err
	}
	var dvEntries []manifest.IndexManifestEntry
	for _, e := range entries {
		if e.Kind == manifest.FileKindAdd && e.IndexFile.IndexType == manifest.IndexTypeDeletionVectors && string(e.Partition) == string(p.row) {
			dvEntries = append(dvEntries, e)
		}
	}
	reader := sortedrun.NewReader(sortedrun.Source{Store: w.st, Schemas: snapshot.NewSchemaManager(w.st, w.opts.Branch)}, w.sch.Fields, nil, nil, nil)
	var out []manifest.IndexManifestEntry
	var unaware *appendDvMaintainer
	if w.mode == bucketUnaware {
		unaware = newAppendDvMaintainer(p.row, p.path, dvEntries)
	}
	for _, b := range bks {
		bs := p.buckets[b]
		var bucketed *bucketDvMaintainer
		current := func(file string) (dv.DeletionVector, error) { return unaware.deletionVectorOf(ctx, x, file) }
		if unaware == nil {
			var mine []manifest.IndexManifestEntry
			for _, e := range dvEntries {
				if int32(e.Bucket) == b {
					mine = append(mine, e)
				}
			}
			if bucketed, err = restoreDvMaintainer(ctx, x, p.row, p.path, manifest.Bucket(b), w.core.DeletionVectorsBitmap64, mine); err != nil {
				return nil, err
			}
			current = func(file string) (dv.DeletionVector, error) { return bucketed.deletionVectorOf(file), nil }
		}
		found, err := w.findAppendRows(ctx, reader, p, b, bs.deletes, current)
		if err != nil {
			return nil, err
		}
		names := make([]string, 0, len(found))
		for name := range found {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			if unaware != nil {
				err = unaware.notifyNewDeletionVector(ctx, x, name, found[name])
			} else {
				err = bucketed.mergeNewDeletion(name, found[name])
			}
			if err != nil {
				return nil, err
			}
		}
		if bucketed != nil {
			changes, err := bucketed.writeIndex(ctx, x)
			if err != nil {
				return nil, err
			}
			out = append(out, changes...)
		}
	}
	if unaware != nil {
		changes, err := unaware.persist(ctx, x)
		if err != nil {
			return nil, err
		}
		out = append(out, changes...)
	}
	return out, nil
}

// findAppendRows reads the base files of bucket b of p (with their current
// deletion vectors) and marks one row position per row to delete. It fails
// with ErrRowsChanged when some rows are not found.
func (w *TableWrite) findAppendRows(ctx context.Context, reader *sortedrun.Reader, p *partitionState, b int32,
	del *appendDeletes, current func(string) (dv.DeletionVector, error)) (map[string]dv.DeletionVector, error) {
	files := bySequence(p.baseFiles[b])
	found := map[string]dv.DeletionVector{}
	left := del.n
	for i := 0; i < len(files) && left > 0; i++ {
		f := &files[i]
		if err := checkParquet(f); err != nil {
			return nil, err
		}
		old, err := current(f.FileName)
		if err != nil {
			return nil, err
		}
		sf := &sortedrun.File{Name: f.FileName, Dir: p.path + BucketDir(manifest.Bucket(b)) + "/", SchemaID: f.SchemaID}
		if f.ExternalPath != nil {
			sf.ExternalPath = *f.ExternalPath
		}
		rr, err := reader.OpenRows(ctx, sf, old, nil)
		if err != nil {
			return nil, err
		}
		for left > 0 {
			row, err := rr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				_ = rr.Close()
				return nil, err
			}
			k, err := w.rowEnc.encode(row)
			if err != nil {
				_ = rr.Close()
				return nil, err
			}
			if del.count[k] == 0 {
				continue
			}
			del.count[k]--
			left--
			vec := found[f.FileName]
			if vec == nil {
				vec = dv.New(w.core.DeletionVectorsBitmap64)
				found[f.FileName] = vec
			}
			if _, err := vec.Delete(rr.Position()); err != nil {
				_ = rr.Close()
				return nil, fmt.Errorf("lsmwrite: deletion vector of %s: %w", f.FileName, err)
			}
		}
		if err := rr.Close(); err != nil {
			return nil, err
		}
	}
	if left > 0 {
		where := "the table"
		if p.path != "" {
			where = "partition " + p.path
		}
		return nil, fmt.Errorf("%w: %w: %d of the rows to delete from %s bucket %d are not in the snapshot written on",
			snapshot.ErrConflict, ErrRowsChanged, left, where, b)
	}
	return found, nil
}

// indexFiles is the index-file access of the write.
func (w *TableWrite) indexFiles() *indexFiles {
	if w.idx == nil {
		w.idx = &indexFiles{st: w.st, inDataDir: w.core.IndexFileInDataFileDir, names: w.indexNames, created: &w.created,
			targetSize: w.core.DeletionVectorIndexFileTargetSize}
	}
	return w.idx
}
