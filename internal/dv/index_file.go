package dv

import (
	"errors"
	"fmt"
	"io"
	"math"
)

// Index file constants ([J] DeletionVectorsIndexFile).
const (
	// IndexType is the _INDEX_TYPE of DV index files in index manifests.
	IndexType = "DELETION_VECTORS"
	// IndexFileVersion is the first byte of every DV index file
	// (VERSION_ID_V1).
	IndexFileVersion = 1
	// DefaultTargetFileSize is deletion-vector.index-file.target-size.
	DefaultTargetFileSize = 2 << 20
	// CardinalityUnknown marks a Range whose _CARDINALITY is null (written
	// by Paimon before 1.0).
	CardinalityUnknown int64 = -1
)

// Range locates one data file's deletion vector inside an index file: one
// element of _DELETIONS_VECTORS_RANGES in an index manifest entry ([J]
// DeletionVectorMeta).
type Range struct {
	// FileName is the data file the DV belongs to (f0).
	FileName string
	// Offset is where the blob's length field starts (f1).
	Offset int32
	// Length is the stored size field (magic + bitmap) for the 32-bit format
	// and the whole blob (length field + data + CRC) for the 64-bit one (f2).
	Length int32
	// Cardinality is the number of deleted rows (_CARDINALITY), or
	// CardinalityUnknown.
	Cardinality int64
}

// NamedDV is a deletion vector together with the data file it belongs to.
type NamedDV struct {
	FileName string
	DV       DeletionVector
}

// IndexFile is the content of one DV index file and the ranges the index
// manifest records for it.
type IndexFile struct {
	Data   []byte
	Ranges []Range
}

// WriteIndexFile serializes dvs, in order, into one index file (Java
// DeletionVectorIndexFileWriter.writeSingleFile): the version byte, then
// each blob back to back. bitmap64 (deletion-vectors.bitmap64) selects the
// format every DV is written in; DVs of the other format are converted.
// With no dvs the file is the version byte alone, which Java writes to
// replace a bucket's DVs by none.
func WriteIndexFile(dvs []NamedDV, bitmap64 bool) ([]byte, []Range, error) {
	data := []byte{IndexFileVersion}
	ranges := make([]Range, 0, len(dvs))
	seen := make(map[string]struct{}, len(dvs))
	for _, n := range dvs {
		var err error
		data, ranges, err = appendNamed(data, ranges, seen, n, bitmap64)
		if err != nil {
			return nil, nil, err
		}
	}
	return data, ranges, nil
}

// WriteIndexFileNative is WriteIndexFile writing every DV in its own format
// (Java DeletionFileWriter: DeletionVector.serializeTo), so a bucket's
// restored 32-bit DVs stay 32-bit when the table now writes 64-bit ones.
func WriteIndexFileNative(dvs []NamedDV) ([]byte, []Range, error) {
	data := []byte{IndexFileVersion}
	ranges := make([]Range, 0, len(dvs))
	seen := make(map[string]struct{}, len(dvs))
	for _, n := range dvs {
		if n.DV == nil {
			return nil, nil, fmt.Errorf("dv: nil deletion vector for data file %q", n.FileName)
		}
		var err error
		data, ranges, err = appendNamed(data, ranges, seen, n, n.DV.Bitmap64())
		if err != nil {
			return nil, nil, err
		}
	}
	return data, ranges, nil
}

// WriteIndexFiles serializes dvs into index files that roll once a file
// exceeds targetSize bytes (Java writeWithRolling): a file is closed right
// after the blob that takes it past targetSize. No dvs give no files.
func WriteIndexFiles(dvs []NamedDV, bitmap64 bool, targetSize int64) ([]IndexFile, error) {
	return writeIndexFiles(dvs, func(DeletionVector) bool { return bitmap64 }, targetSize)
}

// WriteIndexFilesNative is WriteIndexFiles writing every DV in its own
// format (see WriteIndexFileNative).
func WriteIndexFilesNative(dvs []NamedDV, targetSize int64) ([]IndexFile, error) {
	return writeIndexFiles(dvs, func(d DeletionVector) bool { return d != nil && d.Bitmap64() }, targetSize)
}

func writeIndexFiles(dvs []NamedDV, bitmap64 func(DeletionVector) bool, targetSize int64) ([]IndexFile, error) {
	var out []IndexFile
	seen := make(map[string]struct{}, len(dvs))
	var cur IndexFile
	for i, n := range dvs {
		if cur.Data == nil {
			cur.Data = []byte{IndexFileVersion}
		}
		var err error
		cur.Data, cur.Ranges, err = appendNamed(cur.Data, cur.Ranges, seen, n, bitmap64(n.DV))
		if err != nil {
			return nil, err
		}
		if int64(len(cur.Data)) > targetSize || i == len(dvs)-1 {
			out = append(out, cur)
			cur = IndexFile{}
		}
	}
	return out, nil
}

func appendNamed(data []byte, ranges []Range, seen map[string]struct{}, n NamedDV, bitmap64 bool) ([]byte, []Range, error) {
	if n.DV == nil {
		return nil, nil, fmt.Errorf("dv: nil deletion vector for data file %q", n.FileName)
	}
	if _, dup := seen[n.FileName]; dup {
		return nil, nil, fmt.Errorf("%w: %q", ErrDuplicateFile, n.FileName)
	}
	seen[n.FileName] = struct{}{}
	dv, err := Convert(n.DV, bitmap64)
	if err != nil {
		return nil, nil, fmt.Errorf("dv: data file %q: %w", n.FileName, err)
	}
	start := len(data)
	data, length, err := dv.AppendTo(data)
	if err != nil {
		return nil, nil, fmt.Errorf("dv: data file %q: %w", n.FileName, err)
	}
	if len(data) > math.MaxInt32 {
		return nil, nil, fmt.Errorf("%w: index file exceeds %d bytes at data file %q", ErrTooLarge, math.MaxInt32, n.FileName)
	}
	return data, append(ranges, Range{
		FileName:    n.FileName,
		Offset:      int32(start),
		Length:      length,
		Cardinality: dv.Cardinality(),
	}), nil
}

// ReadAll decodes the deletion vectors that ranges locate in the index file
// data, keyed by data file name (Java readAllDeletionVectors). It checks the
// version byte, every blob (see ReadDeletionVector) and, when known, each
// range's cardinality.
func ReadAll(data []byte, ranges []Range) (map[string]DeletionVector, error) {
	if err := checkVersion(data); err != nil {
		return nil, err
	}
	return readRanges(ranges, func(r Range) (DeletionVector, error) {
		return decodeRange(data, int64(r.Offset), int64(r.Length))
	})
}

// readRanges reads the deletion vector of each range with read, keyed by
// data file name, checking that no file has two ranges and, when known,
// each range's cardinality.
func readRanges(ranges []Range, read func(Range) (DeletionVector, error)) (map[string]DeletionVector, error) {
	out := make(map[string]DeletionVector, len(ranges))
	for _, r := range ranges {
		if _, dup := out[r.FileName]; dup {
			return nil, fmt.Errorf("%w: data file %q has two ranges", ErrCorrupt, r.FileName)
		}
		dv, err := read(r)
		if err != nil {
			return nil, fmt.Errorf("deletion vector of %q: %w", r.FileName, err)
		}
		if r.Cardinality >= 0 && r.Cardinality != dv.Cardinality() {
			return nil, fmt.Errorf("%w: deletion vector of %q has %d positions, the index manifest says %d",
				ErrCorrupt, r.FileName, dv.Cardinality(), r.Cardinality)
		}
		out[r.FileName] = dv
	}
	return out, nil
}

// ReadIndexFile is ReadAll over an open file. When f has a Size method (as
// storage.File does) the whole file is read at once; otherwise the version
// byte and each blob are read separately.
func ReadIndexFile(f io.ReaderAt, ranges []Range) (map[string]DeletionVector, error) {
	if s, ok := f.(interface{ Size() int64 }); ok {
		data, err := readRange(f, 0, s.Size())
		if err != nil {
			return nil, err
		}
		return ReadAll(data, ranges)
	}
	var v [1]byte
	n, err := f.ReadAt(v[:], 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("dv: reading index file version: %w", err)
	}
	if err := checkVersion(v[:n]); err != nil {
		return nil, err
	}
	return readRanges(ranges, func(r Range) (DeletionVector, error) {
		return ReadDeletionVector(f, int64(r.Offset), int64(r.Length))
	})
}

// ScanIndexFile walks an index file without its manifest ranges, relying on
// the layout Java writes (version byte, then blobs back to back filling the
// file), and returns each blob's range (FileName empty) and deletion vector.
// It is meant for checks and repair tools; readers use ReadAll.
func ScanIndexFile(data []byte) ([]Range, []DeletionVector, error) {
	if err := checkVersion(data); err != nil {
		return nil, nil, err
	}
	var ranges []Range
	var dvs []DeletionVector
	off := 1
	for off < len(data) {
		if len(data)-off < blobHeaderLen {
			return nil, nil, fmt.Errorf("%w: %d stray bytes at offset %d", ErrCorrupt, len(data)-off, off)
		}
		total, bitmap64, err := blobFormat(data[off:])
		if err != nil {
			return nil, nil, fmt.Errorf("blob at offset %d: %w", off, err)
		}
		if total > int64(len(data)-off) {
			return nil, nil, fmt.Errorf("%w: blob at offset %d needs %d bytes, file has %d after it", ErrCorrupt, off, total, len(data)-off)
		}
		dv, err := decodeBlob(data[off : off+int(total)])
		if err != nil {
			return nil, nil, fmt.Errorf("blob at offset %d: %w", off, err)
		}
		length := total - 8
		if bitmap64 {
			length = total
		}
		if off > math.MaxInt32 || length > math.MaxInt32 {
			return nil, nil, fmt.Errorf("%w: blob at offset %d beyond int32 ranges", ErrCorrupt, off)
		}
		ranges = append(ranges, Range{Offset: int32(off), Length: int32(length), Cardinality: dv.Cardinality()})
		dvs = append(dvs, dv)
		off += int(total)
	}
	return ranges, dvs, nil
}

func checkVersion(data []byte) error {
	if len(data) == 0 {
		return fmt.Errorf("%w: empty index file (no version byte)", ErrCorrupt)
	}
	if data[0] != IndexFileVersion {
		return fmt.Errorf("%w: index file version %d, expected %d", ErrCorrupt, data[0], IndexFileVersion)
	}
	return nil
}
