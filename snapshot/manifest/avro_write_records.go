package manifest

import "fmt"

// Records in the shape hamba/avro encodes against the 1.3.1 schemas of
// schemas.go (struct tags are the Avro field names). Nullable fields are
// pointers; nil encodes the null branch.

type statsW struct {
	MinValues  []byte    `avro:"_MIN_VALUES"`
	MaxValues  []byte    `avro:"_MAX_VALUES"`
	NullCounts *[]*int64 `avro:"_NULL_COUNTS"`
}

func (w *statsW) from(s *SimpleStats) {
	w.MinValues, w.MaxValues = nonNil(s.MinValues), nonNil(s.MaxValues)
	if s.NullCounts != nil {
		w.NullCounts = &s.NullCounts
	}
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

type fileW struct {
	FileName          string    `avro:"_FILE_NAME"`
	FileSize          int64     `avro:"_FILE_SIZE"`
	RowCount          int64     `avro:"_ROW_COUNT"`
	MinKey            []byte    `avro:"_MIN_KEY"`
	MaxKey            []byte    `avro:"_MAX_KEY"`
	KeyStats          statsW    `avro:"_KEY_STATS"`
	ValueStats        statsW    `avro:"_VALUE_STATS"`
	MinSequenceNumber int64     `avro:"_MIN_SEQUENCE_NUMBER"`
	MaxSequenceNumber int64     `avro:"_MAX_SEQUENCE_NUMBER"`
	SchemaID          int64     `avro:"_SCHEMA_ID"`
	Level             int32     `avro:"_LEVEL"`
	ExtraFiles        []string  `avro:"_EXTRA_FILES"`
	CreationTime      *int64    `avro:"_CREATION_TIME"`
	DeleteRowCount    *int64    `avro:"_DELETE_ROW_COUNT"`
	EmbeddedIndex     *[]byte   `avro:"_EMBEDDED_FILE_INDEX"`
	FileSource        *int32    `avro:"_FILE_SOURCE"`
	ValueStatsCols    *[]string `avro:"_VALUE_STATS_COLS"`
	ExternalPath      *string   `avro:"_EXTERNAL_PATH"`
	FirstRowID        *int64    `avro:"_FIRST_ROW_ID"`
	WriteCols         *[]string `avro:"_WRITE_COLS"`
}

func (w *fileW) from(f *DataFileMeta) error {
	*w = fileW{
		FileName: f.FileName, FileSize: f.FileSize, RowCount: f.RowCount,
		MinKey: nonNil(f.MinKey), MaxKey: nonNil(f.MaxKey),
		MinSequenceNumber: f.MinSequenceNumber, MaxSequenceNumber: f.MaxSequenceNumber,
		SchemaID: f.SchemaID, Level: int32(f.Level), ExtraFiles: f.ExtraFiles,
		CreationTime: f.CreationTime, DeleteRowCount: f.DeleteRowCount,
		ExternalPath: f.ExternalPath, FirstRowID: f.FirstRowID,
	}
	w.KeyStats.from(&f.KeyStats)
	w.ValueStats.from(&f.ValueStats)
	if w.ExtraFiles == nil {
		w.ExtraFiles = []string{}
	}
	if f.EmbeddedIndex != nil {
		w.EmbeddedIndex = &f.EmbeddedIndex
	}
	if f.FileSource != nil {
		if !f.FileSource.valid() {
			return fmt.Errorf("invalid %v", *f.FileSource)
		}
		w.FileSource = ptr(int32(*f.FileSource))
	}
	if f.ValueStatsCols != nil {
		w.ValueStatsCols = &f.ValueStatsCols
	}
	if f.WriteCols != nil {
		w.WriteCols = &f.WriteCols
	}
	return nil
}

type entryW struct {
	Version      int32  `avro:"_VERSION"`
	Kind         int32  `avro:"_KIND"`
	Partition    []byte `avro:"_PARTITION"`
	Bucket       int32  `avro:"_BUCKET"`
	TotalBuckets int32  `avro:"_TOTAL_BUCKETS"`
	File         fileW  `avro:"_FILE"`
}

func (w *entryW) from(e *ManifestEntry) error {
	if !e.Kind.valid() {
		return fmt.Errorf("invalid %v", e.Kind)
	}
	w.Version, w.Kind, w.Partition = ManifestEntryVersion, int32(e.Kind), nonNil(e.Partition)
	w.Bucket, w.TotalBuckets = int32(e.Bucket), e.TotalBuckets
	return w.File.from(&e.File)
}

type fileMetaW struct {
	Version         int32  `avro:"_VERSION"`
	FileName        string `avro:"_FILE_NAME"`
	FileSize        int64  `avro:"_FILE_SIZE"`
	NumAddedFiles   int64  `avro:"_NUM_ADDED_FILES"`
	NumDeletedFiles int64  `avro:"_NUM_DELETED_FILES"`
	PartitionStats  statsW `avro:"_PARTITION_STATS"`
	SchemaID        int64  `avro:"_SCHEMA_ID"`
	MinBucket       *int32 `avro:"_MIN_BUCKET"`
	MaxBucket       *int32 `avro:"_MAX_BUCKET"`
	MinLevel        *int32 `avro:"_MIN_LEVEL"`
	MaxLevel        *int32 `avro:"_MAX_LEVEL"`
}

func optInt32[V ~int32](p *V) *int32 {
	if p == nil {
		return nil
	}
	return ptr(int32(*p))
}

func (w *fileMetaW) from(m *ManifestFileMeta) {
	*w = fileMetaW{
		Version: ManifestFileMetaVersion, FileName: m.FileName, FileSize: m.FileSize,
		NumAddedFiles: m.NumAddedFiles, NumDeletedFiles: m.NumDeletedFiles, SchemaID: m.SchemaID,
		MinBucket: optInt32(m.MinBucket), MaxBucket: optInt32(m.MaxBucket),
		MinLevel: optInt32(m.MinLevel), MaxLevel: optInt32(m.MaxLevel),
	}
	w.PartitionStats.from(&m.PartitionStats)
}

type dvMetaW struct {
	DataFileName string `avro:"f0"`
	Offset       int32  `avro:"f1"`
	Length       int32  `avro:"f2"`
	Cardinality  *int64 `avro:"_CARDINALITY"`
}

type indexEntryW struct {
	Version      int32       `avro:"_VERSION"`
	Kind         int32       `avro:"_KIND"`
	Partition    []byte      `avro:"_PARTITION"`
	Bucket       int32       `avro:"_BUCKET"`
	IndexType    string      `avro:"_INDEX_TYPE"`
	FileName     string      `avro:"_FILE_NAME"`
	FileSize     int64       `avro:"_FILE_SIZE"`
	RowCount     int64       `avro:"_ROW_COUNT"`
	DVRanges     *[]*dvMetaW `avro:"_DELETIONS_VECTORS_RANGES"`
	ExternalPath *string     `avro:"_EXTERNAL_PATH"`
}

func (w *indexEntryW) from(e *IndexManifestEntry) error {
	if !e.Kind.valid() {
		return fmt.Errorf("invalid %v", e.Kind)
	}
	f := &e.IndexFile
	*w = indexEntryW{
		Version: IndexManifestEntryVersion, Kind: int32(e.Kind), Partition: nonNil(e.Partition),
		Bucket: int32(e.Bucket), IndexType: f.IndexType, FileName: f.FileName, FileSize: f.FileSize,
		RowCount: f.RowCount, ExternalPath: f.ExternalPath,
	}
	if f.DVRanges != nil {
		dvs := make([]*dvMetaW, len(f.DVRanges))
		vals := make([]dvMetaW, len(f.DVRanges))
		for i, dv := range f.DVRanges {
			vals[i] = dvMetaW{DataFileName: dv.DataFileName, Offset: dv.Offset, Length: dv.Length, Cardinality: dv.Cardinality}
			dvs[i] = &vals[i]
		}
		w.DVRanges = &dvs
	}
	return nil
}
