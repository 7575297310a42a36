package manifest

import (
	"fmt"
	"strconv"
)

// SerializedRow is a BinaryRow as Java stores it inside Avro
// (SerializationUtils.serializeBinaryRow): a 4-byte big-endian arity followed
// by the row bytes. Used for _PARTITION, _MIN_KEY, _MAX_KEY and stats rows;
// internal/binaryrow decodes it. Equal rows have equal bytes.
type SerializedRow []byte

// EmptyRow is the serialized BinaryRow with arity 0
// (BinaryRow.EMPTY_ROW): 00000000 followed by an 8-byte zero header.
var EmptyRow = SerializedRow{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}

// FileKind mirrors org.apache.paimon.manifest.FileKind: whether an entry adds
// or deletes a file. Stored as a TINYINT (Avro int).
type FileKind int8

const (
	// FileKindAdd is FileKind.ADD (byte value 0).
	FileKindAdd FileKind = 0
	// FileKindDelete is FileKind.DELETE (byte value 1).
	FileKindDelete FileKind = 1
)

func (k FileKind) String() string {
	switch k {
	case FileKindAdd:
		return "ADD"
	case FileKindDelete:
		return "DELETE"
	}
	return fmt.Sprintf("FileKind(%d)", int8(k))
}

func (k FileKind) valid() bool { return k == FileKindAdd || k == FileKindDelete }

// FileSource mirrors org.apache.paimon.manifest.FileSource: whether a data
// file was written from input or by compaction. Stored as a TINYINT.
type FileSource int8

const (
	// FileSourceAppend is FileSource.APPEND (0): written from input,
	// flushes included.
	FileSourceAppend FileSource = 0
	// FileSourceCompact is FileSource.COMPACT (1): a compaction output.
	FileSourceCompact FileSource = 1
)

func (s FileSource) String() string {
	switch s {
	case FileSourceAppend:
		return "APPEND"
	case FileSourceCompact:
		return "COMPACT"
	}
	return fmt.Sprintf("FileSource(%d)", int8(s))
}

func (s FileSource) valid() bool { return s == FileSourceAppend || s == FileSourceCompact }

// Bucket is a bucket number (Java int). Fixed-bucket tables use 0..N-1;
// bucket-unaware append tables write everything to bucket 0; postpone-bucket
// tables use BucketPostpone.
type Bucket int32

// BucketPostpone is BucketMode.POSTPONE_BUCKET (-2), written to bucket-postpone.
const BucketPostpone Bucket = -2

func (b Bucket) String() string { return strconv.FormatInt(int64(b), 10) }

// Level is an LSM level of a data file (Java int); 0 for flushed files.
type Level int32

func (l Level) String() string { return "L" + strconv.FormatInt(int64(l), 10) }
