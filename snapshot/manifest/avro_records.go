package manifest

import (
	"fmt"
	"sync"

	"github.com/hamba/avro/v2"
)

// The Go side of by-name resolution: which Avro field fills which Go field,
// per record type. Names and NOT NULL-ness follow the Java schemas
// (DataFileMeta.SCHEMA, ManifestEntry.SCHEMA, ManifestFileMeta.SCHEMA,
// IndexManifestEntry.SCHEMA, SimpleStats.SCHEMA).

// versioned carries the _VERSION of a top-level record next to the value.
type versioned[T any] struct {
	version    int32
	hasVersion bool
	v          T
}

func setVersion[T any](t *versioned[T], v int32) error {
	t.version, t.hasVersion = v, true
	return nil
}

func fileKind(v int32) (FileKind, error) {
	if k := FileKind(v); int32(k) == v && k.valid() {
		return k, nil
	}
	return 0, fmt.Errorf("unknown file kind %d", v)
}

func ptr[V any](v V) *V { return &v }

var statsSpec = &recordSpec[SimpleStats]{
	fields: map[string]fieldSpec[SimpleStats]{
		"_MIN_VALUES": field(bytesReader, false, func(t *SimpleStats, v []byte) error { t.MinValues = v; return nil }),
		"_MAX_VALUES": field(bytesReader, false, func(t *SimpleStats, v []byte) error { t.MaxValues = v; return nil }),
		"_NULL_COUNTS": field(nullableLongArrayReader, true, func(t *SimpleStats, v []*int64) error {
			t.NullCounts = v
			return nil
		}),
	},
	required: []string{"_MIN_VALUES", "_MAX_VALUES"},
}

var dataFileSpec = &recordSpec[DataFileMeta]{
	fields: map[string]fieldSpec[DataFileMeta]{
		"_FILE_NAME": field(stringReader, false, func(t *DataFileMeta, v string) error { t.FileName = v; return nil }),
		"_FILE_SIZE": field(longReader, false, func(t *DataFileMeta, v int64) error { t.FileSize = v; return nil }),
		"_ROW_COUNT": field(longReader, false, func(t *DataFileMeta, v int64) error { t.RowCount = v; return nil }),
		"_MIN_KEY":   field(bytesReader, false, func(t *DataFileMeta, v []byte) error { t.MinKey = v; return nil }),
		"_MAX_KEY":   field(bytesReader, false, func(t *DataFileMeta, v []byte) error { t.MaxKey = v; return nil }),
		"_KEY_STATS": field(recordReader(statsSpec), false, func(t *DataFileMeta, v SimpleStats) error {
			t.KeyStats = v
			return nil
		}),
		"_VALUE_STATS": field(recordReader(statsSpec), false, func(t *DataFileMeta, v SimpleStats) error {
			t.ValueStats = v
			return nil
		}),
		"_MIN_SEQUENCE_NUMBER": field(longReader, false, func(t *DataFileMeta, v int64) error { t.MinSequenceNumber = v; return nil }),
		"_MAX_SEQUENCE_NUMBER": field(longReader, false, func(t *DataFileMeta, v int64) error { t.MaxSequenceNumber = v; return nil }),
		"_SCHEMA_ID":           field(longReader, false, func(t *DataFileMeta, v int64) error { t.SchemaID = v; return nil }),
		"_LEVEL":               field(intReader, false, func(t *DataFileMeta, v int32) error { t.Level = Level(v); return nil }),
		"_EXTRA_FILES": field(arrayReader(stringReader, false), false, func(t *DataFileMeta, v []string) error {
			t.ExtraFiles = v
			return nil
		}),
		"_CREATION_TIME":    field(longReader, true, func(t *DataFileMeta, v int64) error { t.CreationTime = &v; return nil }),
		"_DELETE_ROW_COUNT": field(longReader, true, func(t *DataFileMeta, v int64) error { t.DeleteRowCount = &v; return nil }),
		"_EMBEDDED_FILE_INDEX": field(bytesReader, true, func(t *DataFileMeta, v []byte) error {
			t.EmbeddedIndex = v
			return nil
		}),
		"_FILE_SOURCE": field(intReader, true, func(t *DataFileMeta, v int32) error {
			if s := FileSource(v); int32(s) == v && s.valid() {
				t.FileSource = &s
				return nil
			}
			return fmt.Errorf("unknown file source %d", v)
		}),
		"_VALUE_STATS_COLS": field(arrayReader(stringReader, false), true, func(t *DataFileMeta, v []string) error {
			t.ValueStatsCols = v
			return nil
		}),
		"_EXTERNAL_PATH": field(stringReader, true, func(t *DataFileMeta, v string) error { t.ExternalPath = &v; return nil }),
		"_FIRST_ROW_ID":  field(longReader, true, func(t *DataFileMeta, v int64) error { t.FirstRowID = &v; return nil }),
		"_WRITE_COLS": field(arrayReader(stringReader, false), true, func(t *DataFileMeta, v []string) error {
			t.WriteCols = v
			return nil
		}),
	},
	required: []string{"_FILE_NAME", "_FILE_SIZE", "_ROW_COUNT", "_MIN_KEY", "_MAX_KEY", "_KEY_STATS",
		"_VALUE_STATS", "_MIN_SEQUENCE_NUMBER", "_MAX_SEQUENCE_NUMBER", "_SCHEMA_ID", "_LEVEL", "_EXTRA_FILES"},
}

type entryRec = versioned[ManifestEntry]

var manifestEntrySpec = &recordSpec[entryRec]{
	fields: map[string]fieldSpec[entryRec]{
		"_VERSION": field(intReader, false, setVersion[ManifestEntry]),
		"_KIND": field(intReader, false, func(t *entryRec, v int32) (err error) {
			t.v.Kind, err = fileKind(v)
			return err
		}),
		"_PARTITION":     field(bytesReader, false, func(t *entryRec, v []byte) error { t.v.Partition = v; return nil }),
		"_BUCKET":        field(intReader, false, func(t *entryRec, v int32) error { t.v.Bucket = Bucket(v); return nil }),
		"_TOTAL_BUCKETS": field(intReader, false, func(t *entryRec, v int32) error { t.v.TotalBuckets = v; return nil }),
		"_FILE": field(recordReader(dataFileSpec), false, func(t *entryRec, v DataFileMeta) error {
			t.v.File = v
			return nil
		}),
	},
	required: []string{"_VERSION", "_KIND", "_PARTITION", "_BUCKET", "_TOTAL_BUCKETS", "_FILE"},
}

type fileMetaRec = versioned[ManifestFileMeta]

var manifestFileMetaSpec = &recordSpec[fileMetaRec]{
	fields: map[string]fieldSpec[fileMetaRec]{
		"_VERSION":           field(intReader, false, setVersion[ManifestFileMeta]),
		"_FILE_NAME":         field(stringReader, false, func(t *fileMetaRec, v string) error { t.v.FileName = v; return nil }),
		"_FILE_SIZE":         field(longReader, false, func(t *fileMetaRec, v int64) error { t.v.FileSize = v; return nil }),
		"_NUM_ADDED_FILES":   field(longReader, false, func(t *fileMetaRec, v int64) error { t.v.NumAddedFiles = v; return nil }),
		"_NUM_DELETED_FILES": field(longReader, false, func(t *fileMetaRec, v int64) error { t.v.NumDeletedFiles = v; return nil }),
		"_PARTITION_STATS": field(recordReader(statsSpec), false, func(t *fileMetaRec, v SimpleStats) error {
			t.v.PartitionStats = v
			return nil
		}),
		"_SCHEMA_ID":  field(longReader, false, func(t *fileMetaRec, v int64) error { t.v.SchemaID = v; return nil }),
		"_MIN_BUCKET": field(intReader, true, func(t *fileMetaRec, v int32) error { t.v.MinBucket = ptr(Bucket(v)); return nil }),
		"_MAX_BUCKET": field(intReader, true, func(t *fileMetaRec, v int32) error { t.v.MaxBucket = ptr(Bucket(v)); return nil }),
		"_MIN_LEVEL":  field(intReader, true, func(t *fileMetaRec, v int32) error { t.v.MinLevel = ptr(Level(v)); return nil }),
		"_MAX_LEVEL":  field(intReader, true, func(t *fileMetaRec, v int32) error { t.v.MaxLevel = ptr(Level(v)); return nil }),
	},
	required: []string{"_VERSION", "_FILE_NAME", "_FILE_SIZE", "_NUM_ADDED_FILES", "_NUM_DELETED_FILES",
		"_PARTITION_STATS", "_SCHEMA_ID"},
}

var dvMetaSpec = &recordSpec[DeletionVectorMeta]{
	fields: map[string]fieldSpec[DeletionVectorMeta]{
		"f0":           field(stringReader, false, func(t *DeletionVectorMeta, v string) error { t.DataFileName = v; return nil }),
		"f1":           field(intReader, false, func(t *DeletionVectorMeta, v int32) error { t.Offset = v; return nil }),
		"f2":           field(intReader, false, func(t *DeletionVectorMeta, v int32) error { t.Length = v; return nil }),
		"_CARDINALITY": field(longReader, true, func(t *DeletionVectorMeta, v int64) error { t.Cardinality = &v; return nil }),
	},
	required: []string{"f0", "f1", "f2"},
}

type indexRec = versioned[IndexManifestEntry]

var indexManifestEntrySpec = &recordSpec[indexRec]{
	fields: map[string]fieldSpec[indexRec]{
		"_VERSION": field(intReader, false, setVersion[IndexManifestEntry]),
		"_KIND": field(intReader, false, func(t *indexRec, v int32) (err error) {
			t.v.Kind, err = fileKind(v)
			return err
		}),
		"_PARTITION":  field(bytesReader, false, func(t *indexRec, v []byte) error { t.v.Partition = v; return nil }),
		"_BUCKET":     field(intReader, false, func(t *indexRec, v int32) error { t.v.Bucket = Bucket(v); return nil }),
		"_INDEX_TYPE": field(stringReader, false, func(t *indexRec, v string) error { t.v.IndexFile.IndexType = v; return nil }),
		"_FILE_NAME":  field(stringReader, false, func(t *indexRec, v string) error { t.v.IndexFile.FileName = v; return nil }),
		"_FILE_SIZE":  field(longReader, false, func(t *indexRec, v int64) error { t.v.IndexFile.FileSize = v; return nil }),
		"_ROW_COUNT":  field(longReader, false, func(t *indexRec, v int64) error { t.v.IndexFile.RowCount = v; return nil }),
		"_DELETIONS_VECTORS_RANGES": field(arrayReader(recordReader(dvMetaSpec), false), true,
			func(t *indexRec, v []DeletionVectorMeta) error {
				t.v.IndexFile.DVRanges = v
				return nil
			}),
		"_EXTERNAL_PATH": field(stringReader, true, func(t *indexRec, v string) error {
			t.v.IndexFile.ExternalPath = &v
			return nil
		}),
	},
	required: []string{"_VERSION", "_KIND", "_PARTITION", "_BUCKET", "_INDEX_TYPE", "_FILE_NAME", "_FILE_SIZE",
		"_ROW_COUNT"},
}

// compiledCache holds compiled readers by (spec, writer schema string). Java
// writes few distinct schemas, so the cache stays tiny; it stops growing at
// maxCompiled entries (odd inputs are then compiled per call).
type compiledKey struct {
	spec   any
	schema string
}

const maxCompiled = 128

var compiled struct {
	mu sync.Mutex
	m  map[compiledKey]any
}

// compile returns the reader of top-level records of spec for the writer
// schema JSON of a file: the record itself or a ["null", record] union.
func compile[T any](spec *recordSpec[versioned[T]], schemaJSON []byte) (reader[versioned[T]], error) {
	key := compiledKey{spec: spec, schema: string(schemaJSON)}
	compiled.mu.Lock()
	if r, ok := compiled.m[key]; ok {
		compiled.mu.Unlock()
		return r.(reader[versioned[T]]), nil
	}
	compiled.mu.Unlock()
	schema, err := parseSchema(schemaJSON)
	if err != nil {
		return nil, err
	}
	r, err := unionOf(schema, recordReader(spec))
	if err != nil {
		return nil, err
	}
	compiled.mu.Lock()
	if compiled.m == nil {
		compiled.m = map[compiledKey]any{}
	}
	if len(compiled.m) < maxCompiled {
		compiled.m[key] = r
	}
	compiled.mu.Unlock()
	return r, nil
}

// parseSchema parses a writer schema with a private name cache, so schemas
// of different files (which reuse the record names) never see each other.
// hamba's parser is guarded: it is third-party code fed with file contents.
func parseSchema(schemaJSON []byte) (s avro.Schema, err error) {
	defer func() {
		if p := recover(); p != nil {
			s, err = nil, fmt.Errorf("bad writer schema (parser panicked: %v)", p)
		}
	}()
	s, err = avro.ParseBytesWithCache(schemaJSON, "", &avro.SchemaCache{})
	if err != nil {
		return nil, fmt.Errorf("bad writer schema: %w", err)
	}
	return s, nil
}
