package manifest

// ManifestFileMetaVersion is the _VERSION ManifestFileMetaSerializer writes
// and accepts.
const ManifestFileMetaVersion = 2

// ManifestFileMeta mirrors org.apache.paimon.manifest.ManifestFileMeta, one
// record of a manifest list (§4.2). The 1.4+ fields _MIN_ROW_ID/_MAX_ROW_ID
// are skipped when read and not written.
type ManifestFileMeta struct {
	FileName        string // _FILE_NAME
	FileSize        int64  // _FILE_SIZE
	NumAddedFiles   int64  // _NUM_ADDED_FILES
	NumDeletedFiles int64  // _NUM_DELETED_FILES
	// PartitionStats covers the partition rows of the manifest's entries.
	PartitionStats SimpleStats // _PARTITION_STATS
	SchemaID       int64       // _SCHEMA_ID
	// Min/max bucket and level of the entries (1.1+); pruning hints only.
	MinBucket *Bucket // _MIN_BUCKET
	MaxBucket *Bucket // _MAX_BUCKET
	MinLevel  *Level  // _MIN_LEVEL
	MaxLevel  *Level  // _MAX_LEVEL
}

// NewManifestFileMeta describes a manifest file named name of size bytes
// holding entries, as ManifestFile's writer does: it counts ADD and DELETE
// entries, takes the max schema id of the entries (schemaID when there are
// none) and min/max bucket and level. partitionStats (over the entries'
// partition rows, full mode) comes from the caller, who can decode
// partitions.
func NewManifestFileMeta(name string, size int64, entries []ManifestEntry, schemaID int64, partitionStats SimpleStats) ManifestFileMeta {
	m := ManifestFileMeta{FileName: name, FileSize: size, PartitionStats: partitionStats, SchemaID: schemaID}
	if len(entries) == 0 {
		return m
	}
	minB, maxB := entries[0].Bucket, entries[0].Bucket
	minL, maxL := entries[0].File.Level, entries[0].File.Level
	maxSchema := int64(-1 << 63)
	for i := range entries {
		e := &entries[i]
		if e.Kind == FileKindAdd {
			m.NumAddedFiles++
		} else {
			m.NumDeletedFiles++
		}
		maxSchema = max(maxSchema, e.File.SchemaID)
		minB, maxB = min(minB, e.Bucket), max(maxB, e.Bucket)
		minL, maxL = min(minL, e.File.Level), max(maxL, e.File.Level)
	}
	m.SchemaID = maxSchema
	m.MinBucket, m.MaxBucket, m.MinLevel, m.MaxLevel = &minB, &maxB, &minL, &maxL
	return m
}
