package lsmwrite

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/lakesql/lakesql/internal/dv"
	"github.com/lakesql/lakesql/internal/sortedrun"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// indexFiles reads and writes the index files of one table: where an index
// file lives (index/<name>, the bucket folder with
// index-file-in-data-file-dir, or its recorded external path) and the
// namer of new ones (Java IndexPathFactory).
type indexFiles struct {
	st         storage.Storage
	inDataDir  bool
	names      *dv.IndexFileNamer
	created    *[]string // paths written, for abort
	targetSize int64     // deletion-vector.index-file.target-size
}

// path is where a new index file of a (partition path, bucket) goes.
func (x *indexFiles) path(partPath string, bucket manifest.Bucket, name string) string {
	if x.inDataDir {
		return partPath + BucketDir(bucket) + "/" + name
	}
	return dv.IndexFilePath(name)
}

// read returns the bytes of the index file e of partition path partPath.
func (x *indexFiles) read(ctx context.Context, partPath string, e *manifest.IndexManifestEntry) ([]byte, error) {
	if ext := e.IndexFile.ExternalPath; ext != nil && *ext != "" {
		f, err := sortedrun.OpenURL(ctx, *ext)
		if err != nil {
			return nil, fmt.Errorf("lsmwrite: open index file %s: %w", *ext, err)
		}
		defer f.Close()
		data := make([]byte, f.Size())
		if n, err := f.ReadAt(data, 0); err != nil && !(errors.Is(err, io.EOF) && n == len(data)) {
			return nil, fmt.Errorf("lsmwrite: read index file %s: %w", *ext, err)
		}
		return data, nil
	}
	p := x.path(partPath, e.Bucket, e.IndexFile.FileName)
	data, err := x.st.ReadAll(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("lsmwrite: read index file %s: %w", p, err)
	}
	return data, nil
}

// readDeletionVectors decodes every deletion vector of the DV index file e.
func (x *indexFiles) readDeletionVectors(ctx context.Context, partPath string, e *manifest.IndexManifestEntry) (map[string]dv.DeletionVector, error) {
	data, err := x.read(ctx, partPath, e)
	if err != nil {
		return nil, err
	}
	ranges := make([]dv.Range, len(e.IndexFile.DVRanges))
	for i, r := range e.IndexFile.DVRanges {
		card := dv.CardinalityUnknown
		if r.Cardinality != nil {
			card = *r.Cardinality
		}
		ranges[i] = dv.Range{FileName: r.DataFileName, Offset: r.Offset, Length: r.Length, Cardinality: card}
	}
	out, err := dv.ReadAll(data, ranges)
	if err != nil {
		return nil, fmt.Errorf("lsmwrite: index file %s: %w: %w", e.IndexFile.FileName, ErrCorrupt, err)
	}
	return out, nil
}

// writeDV writes one DV index file of (partition, bucket) holding dvs, each
// in its own format, and returns its ADD entry (Java
// DeletionVectorIndexFileWriter.writeSingleFile: no dvs give a file of the
// version byte alone, which replaces the bucket's previous one).
func (x *indexFiles) writeDV(ctx context.Context, partition manifest.SerializedRow, partPath string, bucket manifest.Bucket,
	dvs []dv.NamedDV) (manifest.IndexManifestEntry, error) {
	data, ranges, err := dv.WriteIndexFileNative(dvs)
	if err != nil {
		return manifest.IndexManifestEntry{}, fmt.Errorf("lsmwrite: deletion vectors of bucket %d: %w", bucket, err)
	}
	return x.writeDVFile(ctx, partition, partPath, bucket, dv.IndexFile{Data: data, Ranges: ranges})
}

// writeDVRolling writes dvs into index files rolling at
// deletion-vector.index-file.target-size (Java writeWithRolling, used for
// bucket-unaware append tables); no dvs write nothing.
func (x *indexFiles) writeDVRolling(ctx context.Context, partition manifest.SerializedRow, partPath string, bucket manifest.Bucket,
	dvs []dv.NamedDV) ([]manifest.IndexManifestEntry, error) {
	files, err := dv.WriteIndexFilesNative(dvs, x.targetSize)
	if err != nil {
		return nil, fmt.Errorf("lsmwrite: deletion vectors: %w", err)
	}
	out := make([]manifest.IndexManifestEntry, 0, len(files))
	for _, f := range files {
		e, err := x.writeDVFile(ctx, partition, partPath, bucket, f)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

func (x *indexFiles) writeDVFile(ctx context.Context, partition manifest.SerializedRow, partPath string, bucket manifest.Bucket,
	f dv.IndexFile) (manifest.IndexManifestEntry, error) {
	name := x.names.Next()
	p := x.path(partPath, bucket, name)
	if err := x.st.WriteAll(ctx, p, f.Data); err != nil {
		return manifest.IndexManifestEntry{}, fmt.Errorf("lsmwrite: write deletion vector index %s: %w", p, err)
	}
	*x.created = append(*x.created, p)
	metas := make([]manifest.DeletionVectorMeta, len(f.Ranges))
	for i, r := range f.Ranges {
		card := r.Cardinality
		metas[i] = manifest.DeletionVectorMeta{DataFileName: r.FileName, Offset: r.Offset, Length: r.Length, Cardinality: &card}
	}
	return manifest.IndexManifestEntry{
		Kind: manifest.FileKindAdd, Partition: partition, Bucket: bucket,
		IndexFile: manifest.IndexFileMeta{
			IndexType: manifest.IndexTypeDeletionVectors, FileName: name, FileSize: int64(len(f.Data)),
			RowCount: int64(len(metas)), DVRanges: metas,
		},
	}, nil
}

// bucketDvMaintainer holds the deletion vectors of one (partition, bucket)
// of a primary-key table or a bucketed append table (Java
// BucketedDvMaintainer): restored from the bucket's DV index files, changed
// by compaction (a newer version of a key marks the old row's position; a
// rewritten file's DV is dropped), written back as one index file.
type bucketDvMaintainer struct {
	partition manifest.SerializedRow
	partPath  string
	bucket    manifest.Bucket
	bitmap64  bool
	dvs       map[string]dv.DeletionVector
	old       []manifest.IndexManifestEntry // the bucket's DV index files in the base
	modified  bool
}

// restoreDvMaintainer loads the deletion vectors of a bucket from its DV
// index entries (ADD entries of the base index manifest).
func restoreDvMaintainer(ctx context.Context, x *indexFiles, partition manifest.SerializedRow, partPath string,
	bucket manifest.Bucket, bitmap64 bool, entries []manifest.IndexManifestEntry) (*bucketDvMaintainer, error) {
	m := &bucketDvMaintainer{partition: partition, partPath: partPath, bucket: bucket, bitmap64: bitmap64, dvs: map[string]dv.DeletionVector{}}
	for i := range entries {
		e := &entries[i]
		vecs, err := x.readDeletionVectors(ctx, partPath, e)
		if err != nil {
			return nil, err
		}
		for name, v := range vecs {
			m.dvs[name] = v
		}
		m.old = append(m.old, *e)
	}
	return m, nil
}

// deletionVectorOf returns the DV of a data file, or nil.
func (m *bucketDvMaintainer) deletionVectorOf(file string) dv.DeletionVector { return m.dvs[file] }

// notifyNewDeletion marks row position pos of file deleted.
func (m *bucketDvMaintainer) notifyNewDeletion(file string, pos int64) error {
	v, ok := m.dvs[file]
	if !ok {
		v = dv.New(m.bitmap64)
		m.dvs[file] = v
	}
	changed, err := v.Delete(pos)
	if err != nil {
		return fmt.Errorf("lsmwrite: deletion vector of %s: %w", file, err)
	}
	if changed {
		m.modified = true
	}
	return nil
}

// mergeNewDeletion merges vec into the DV of file (Java mergeNewDeletion).
func (m *bucketDvMaintainer) mergeNewDeletion(file string, vec dv.DeletionVector) error {
	if old, ok := m.dvs[file]; ok {
		if err := vec.Merge(old); err != nil {
			return fmt.Errorf("lsmwrite: deletion vector of %s: %w", file, err)
		}
	}
	m.dvs[file] = vec
	m.modified = true
	return nil
}

// removeDeletionVectorOf drops the DV of a file compaction rewrote.
func (m *bucketDvMaintainer) removeDeletionVectorOf(file string) {
	if _, ok := m.dvs[file]; ok {
		delete(m.dvs, file)
		m.modified = true
	}
}

// writeIndex writes the bucket's DVs as one new index file when they
// changed, and returns the index changes: a DELETE of each index file of
// the base and an ADD of the new one. The DELETEs leave the index manifest
// as Java's ADD alone would (the bucket's entry is replaced), and let the
// committer detect a concurrent change of the bucket's DVs. DVs are written
// in data file name order.
func (m *bucketDvMaintainer) writeIndex(ctx context.Context, x *indexFiles) ([]manifest.IndexManifestEntry, error) {
	if !m.modified {
		return nil, nil
	}
	named := make([]dv.NamedDV, 0, len(m.dvs))
	for name, v := range m.dvs {
		named = append(named, dv.NamedDV{FileName: name, DV: v})
	}
	slices.SortFunc(named, func(a, b dv.NamedDV) int { return cmp.Compare(a.FileName, b.FileName) })
	add, err := x.writeDV(ctx, m.partition, m.partPath, m.bucket, named)
	if err != nil {
		return nil, err
	}
	out := make([]manifest.IndexManifestEntry, 0, len(m.old)+1)
	for _, e := range m.old {
		e.Kind = manifest.FileKindDelete
		out = append(out, e)
	}
	out = append(out, add)
	m.old = []manifest.IndexManifestEntry{add}
	m.modified = false
	return out, nil
}
