package manifest

// IndexManifestEntryVersion is the _VERSION IndexManifestEntrySerializer
// writes and accepts.
const IndexManifestEntryVersion = 1

// Index types (IndexFileMeta.indexType).
const (
	// IndexTypeDeletionVectors is DeletionVectorsIndexFile.DELETION_VECTORS_INDEX.
	IndexTypeDeletionVectors = "DELETION_VECTORS"
	// IndexTypeHash is HashIndexFile.HASH_INDEX (dynamic-bucket key hashes).
	IndexTypeHash = "HASH"
)

// IndexManifestEntry mirrors org.apache.paimon.manifest.IndexManifestEntry,
// one record of an index manifest (§4.4).
type IndexManifestEntry struct {
	Kind      FileKind      // _KIND
	Partition SerializedRow // _PARTITION
	Bucket    Bucket        // _BUCKET
	IndexFile IndexFileMeta // _INDEX_TYPE, _FILE_NAME, ... flattened in Avro
}

// IndexFileMeta mirrors org.apache.paimon.index.IndexFileMeta. The 2.x
// _GLOBAL_INDEX field is skipped when read and not written.
type IndexFileMeta struct {
	IndexType string // _INDEX_TYPE
	FileName  string // _FILE_NAME
	FileSize  int64  // _FILE_SIZE
	// RowCount is, for DV index files, the number of data files with a DV in
	// the file; for HASH files the number of ints.
	RowCount int64 // _ROW_COUNT
	// DVRanges (Java LinkedHashMap<String, DeletionVectorMeta>, in file
	// order); nil is null (non-DV index files).
	DVRanges     []DeletionVectorMeta // _DELETIONS_VECTORS_RANGES
	ExternalPath *string              // _EXTERNAL_PATH (1.3+)
}

// DeletionVectorMeta mirrors org.apache.paimon.index.DeletionVectorMeta: where
// one data file's deletion vector lives inside an index file.
type DeletionVectorMeta struct {
	DataFileName string // f0
	Offset       int32  // f1
	Length       int32  // f2, see paimon-format.md §9 for its meaning
	Cardinality  *int64 // _CARDINALITY, null in 0.9-era files
}
