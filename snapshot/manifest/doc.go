// Package manifest reads and writes Paimon's Avro metadata files: manifest
// lists (ManifestFileMeta records), manifests (ManifestEntry records) and
// index manifests (IndexManifestEntry records), byte-compatible with Java
// Paimon 1.3.1 (paimon-format.md §4).
//
// Reading. The readers accept every shape Java has written since 0.9: the
// file's writer schema (from the Avro header) is resolved against Go structs
// by field name, as Java does: fields the file lacks stay zero/null, fields
// the Go side does not know are skipped, and records wrapped in a
// ["null", record] union (0.9-era files, at the top level and for nested
// records) are accepted. Codecs null, deflate, snappy and zstandard are
// supported. ORC manifests (manifest.format=orc) are detected by their magic
// and rejected with ErrUnsupported.
//
// The Avro object container is parsed by this package (ocf.go) rather than by
// hamba/avro's ocf.Decoder, because the latter allocates block buffers of any
// size read from the file and panics on a negative size; every length here is
// checked against the input. Record bodies are decoded with hamba/avro's
// reflection-free-after-warmup codecs, driven by the file's writer schema.
//
// Writing. The writers emit exactly the 1.3.1 shapes: the embedded
// avro.schema string is the very string Java embeds (schemas.go), records
// are named org.apache.paimon.avro.generated.record, record__FILE, ..., and
// the codec is zstandard unless configured otherwise.
//
// BinaryRow-valued fields (_PARTITION, _MIN_KEY, _MAX_KEY, stats rows) are
// kept as SerializedRow: the raw bytes of SerializationUtils.serializeBinaryRow
// (4-byte big-endian arity + row). Interpreting them is internal/binaryrow's
// job; this package never looks inside.
//
// Concurrency: every exported function is safe for concurrent use; iterators
// returned by the readers must be consumed by one goroutine. EntryMerger is
// not safe for concurrent use.
//
// Invariants: readers never panic on bad input; every decoding error wraps
// ErrCorrupt (or ErrUnsupported for valid-but-unsupported files) and names
// the file. A value written by a writer decodes to an equal value.
package manifest
