package manifest

// ManifestEntryVersion is the _VERSION ManifestEntrySerializer writes and
// accepts.
const ManifestEntryVersion = 2

// ManifestEntry mirrors org.apache.paimon.manifest.ManifestEntry
// (PojoManifestEntry), one record of a manifest file (§4.3).
type ManifestEntry struct {
	Kind      FileKind      // _KIND
	Partition SerializedRow // _PARTITION
	Bucket    Bucket        // _BUCKET
	// TotalBuckets is the bucket count when written; -1 for bucket-unaware
	// tables.
	TotalBuckets int32        // _TOTAL_BUCKETS
	File         DataFileMeta // _FILE
}
