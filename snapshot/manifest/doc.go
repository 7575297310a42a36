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
// Reading does not use hamba/avro's ocf.Decoder or its reflection codecs:
// ocf.Decoder allocates block buffers of any size read from the file (and
// panics on a negative one), and hamba's skip decoders loop over array
// counts read from the file without a bound. Instead the container is parsed
// here (ocf.go, every length checked against the input) and the writer
// schema, parsed with hamba/avro, is compiled once per distinct schema string
// into a list of per-field decode/skip operations (avro_resolve.go,
// avro_records.go). hamba's schema parser panics on some malformed schemas
// (an empty union with a default; see TestHambaParserPanicOnEmptyUnion), so
// parseSchema recovers; that is the only recover in the package.
//
// Writing uses hamba/avro's ocf.Encoder. The writers emit exactly the 1.3.1 shapes: the embedded
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
