package manifest

// DataFileMeta mirrors org.apache.paimon.io.DataFileMeta (the _FILE record of
// a manifest entry, 1.3.1 field set, §4.3). Nullable Avro fields are pointers
// or nil slices; nil means null.
type DataFileMeta struct {
	FileName string // _FILE_NAME
	FileSize int64  // _FILE_SIZE
	RowCount int64  // _ROW_COUNT, retract rows included
	// MinKey and MaxKey are the first and last (trimmed primary) key of the
	// file; the empty row for append tables.
	MinKey SerializedRow // _MIN_KEY
	MaxKey SerializedRow // _MAX_KEY

	KeyStats   SimpleStats // _KEY_STATS
	ValueStats SimpleStats // _VALUE_STATS

	MinSequenceNumber int64 // _MIN_SEQUENCE_NUMBER
	MaxSequenceNumber int64 // _MAX_SEQUENCE_NUMBER
	SchemaID          int64 // _SCHEMA_ID
	Level             Level // _LEVEL
	// ExtraFiles is a NOT NULL array (e.g. a file-index sidecar). Readers
	// return a non-nil slice.
	ExtraFiles []string // _EXTRA_FILES

	// CreationTime is the writer-local wall clock stored as if it were UTC
	// epoch milliseconds (Java LocalDateTime.now()).
	CreationTime   *int64 // _CREATION_TIME, timestamp-millis
	DeleteRowCount *int64 // _DELETE_ROW_COUNT
	// EmbeddedIndex is the serialized file index when small enough to live in
	// the manifest; nil is null.
	EmbeddedIndex []byte      // _EMBEDDED_FILE_INDEX
	FileSource    *FileSource // _FILE_SOURCE
	// ValueStatsCols lists the columns present in ValueStats in dense mode;
	// nil (null) means all columns of the file's schema.
	ValueStatsCols []string // _VALUE_STATS_COLS
	ExternalPath   *string  // _EXTERNAL_PATH
	FirstRowID     *int64   // _FIRST_ROW_ID (1.3+)
	WriteCols      []string // _WRITE_COLS (1.3+), nil is null
}

// SortedRuns counts the sorted runs of one bucket's files, as Java's
// Levels.numberOfSortedRuns does: every level-0 file is a run of its own,
// every non-empty level above 0 one run. A merging read of the bucket
// merges this many runs.
func SortedRuns(files []DataFileMeta) int {
	n := 0
	var levels []Level
	for i := range files {
		l := files[i].Level
		if l == 0 {
			n++
			continue
		}
		seen := false
		for _, x := range levels {
			if x == l {
				seen = true
				break
			}
		}
		if !seen {
			levels = append(levels, l)
		}
	}
	return n + len(levels)
}
