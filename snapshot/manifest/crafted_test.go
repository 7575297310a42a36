package manifest_test

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/snapshot/manifest"
)

// craft builds an Avro object container file with the null codec, the given
// writer schema and one block of count records with body bytes.
func craft(schema string, count int64, body []byte) []byte {
	long := func(b []byte, v int64) []byte { return binary.AppendVarint(b, v) }
	str := func(b []byte, s string) []byte { return append(long(b, int64(len(s))), s...) }
	out := []byte("Obj\x01")
	out = long(out, 2)
	out = str(out, "avro.schema")
	out = str(out, schema)
	out = str(out, "avro.codec")
	out = str(out, "null")
	out = long(out, 0)
	sync := []byte("0123456789abcdef")
	out = append(out, sync...)
	if count > 0 {
		out = long(out, count)
		out = long(out, int64(len(body)))
		out = append(out, body...)
		out = append(out, sync...)
	}
	return out
}

// TestHambaParserPanicOnEmptyUnion: hamba/avro's schema parser panics (index
// out of range) on an empty union with a default; found by fuzzing. The
// reader must turn it into ErrCorrupt.
func TestHambaParserPanicOnEmptyUnion(t *testing.T) {
	data := craft(`{"type":"record","name":"A","fields":[{"name":"A0","type":[],"default":null}]}`, 0, nil)
	_, err := manifest.ReadManifest(data, "m")
	if !errors.Is(err, manifest.ErrCorrupt) || !strings.Contains(err.Error(), "panicked") {
		t.Fatalf("got %v", err)
	}
}

// TestHugeArrayCount: an array block count far beyond the input must fail
// fast instead of allocating or looping.
func TestHugeArrayCount(t *testing.T) {
	schema := `{"type":"record","name":"record","fields":[{"name":"_X","type":{"type":"array","items":"long"}},` +
		`{"name":"_VERSION","type":"int"},{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},` +
		`{"name":"_NUM_ADDED_FILES","type":"long"},{"name":"_NUM_DELETED_FILES","type":"long"},{"name":"_SCHEMA_ID","type":"long"},` +
		`{"name":"_PARTITION_STATS","type":{"type":"record","name":"s","fields":[{"name":"_MIN_VALUES","type":"bytes"},{"name":"_MAX_VALUES","type":"bytes"}]}}]}`
	for _, count := range []int64{1 << 60, -(1 << 60), -1 << 63} {
		body := binary.AppendVarint(nil, count) // array block count
		body = append(body, make([]byte, 16)...)
		_, err := manifest.ReadManifestList(craft(schema, 1, body), "ml")
		if !errors.Is(err, manifest.ErrCorrupt) || !strings.Contains(err.Error(), "array block") {
			t.Fatalf("count %d: got %v", count, err)
		}
	}
}

// TestZeroSizeArrayItems: an unknown field holding an array of nulls cannot
// be bounded by the input size; it is rejected as unsupported.
func TestZeroSizeArrayItems(t *testing.T) {
	schema := `{"type":"record","name":"record","fields":[{"name":"_X","type":{"type":"array","items":"null"}}]}`
	_, err := manifest.ReadIndexManifest(craft(schema, 1, []byte{0}), "im")
	if !errors.Is(err, manifest.ErrUnsupported) {
		t.Fatalf("got %v", err)
	}
}

// TestByNameProjection writes a manifest list with fields in another order,
// an unknown field of every Avro kind, nullable-union-wrapped records and
// missing optional fields, and reads it back by name.
func TestByNameProjection(t *testing.T) {
	schema := `["null",{"type":"record","name":"record","namespace":"x","fields":[` +
		`{"name":"_UNKNOWN_MAP","type":{"type":"map","values":["null","string"]}},` +
		`{"name":"_SCHEMA_ID","type":"int"},` + // int promotes to long
		`{"name":"_FILE_NAME","type":"string"},` +
		`{"name":"_UNKNOWN_REC","type":{"type":"record","name":"u","fields":[{"name":"a","type":"double"},{"name":"b","type":{"type":"fixed","name":"f","size":3}},{"name":"c","type":{"type":"enum","name":"e","symbols":["X","Y"]}},{"name":"d","type":"boolean"},{"name":"e","type":"float"}]}},` +
		`{"name":"_VERSION","type":"int"},` +
		`{"name":"_FILE_SIZE","type":"long"},{"name":"_NUM_ADDED_FILES","type":"long"},{"name":"_NUM_DELETED_FILES","type":"long"},` +
		`{"name":"_PARTITION_STATS","type":["null",{"type":"record","name":"s","fields":[{"name":"_MAX_VALUES","type":"bytes"},{"name":"_MIN_VALUES","type":"bytes"}]}]},` +
		`{"name":"_MAX_BUCKET","type":["null","int"]}]}]`
	v := func(b []byte, x int64) []byte { return binary.AppendVarint(b, x) }
	var body []byte
	body = v(body, 1)                        // top-level union branch: record
	body = v(body, 1)                        // map block of 1
	body = append(v(body, 1), 'k')           // key "k"
	body = append(v(v(body, 1), 2), "vv"...) // ["null","string"] branch 1, "vv"
	body = v(body, 0)                        // end of map
	body = v(body, 7)                        // _SCHEMA_ID
	body = append(v(body, 5), "hello"...)    // _FILE_NAME
	body = append(body, make([]byte, 8)...)  // a double
	body = append(body, 1, 2, 3)             // fixed(3)
	body = v(body, 1)                        // enum
	body = append(body, 1)                   // boolean
	body = append(body, 0, 0, 0, 0)          // float
	body = v(body, 2)                        // _VERSION
	body = v(v(v(body, 100), 3), 1)          // sizes/counts
	body = v(body, 1)                        // stats union branch
	body = append(v(body, 2), 9, 9)          // _MAX_VALUES
	body = append(v(body, 1), 8)             // _MIN_VALUES
	body = v(body, 0)                        // _MAX_BUCKET null
	got, err := manifest.ReadManifestList(craft(schema, 1, body), "ml")
	if err != nil {
		t.Fatal(err)
	}
	m := got[0]
	if m.FileName != "hello" || m.SchemaID != 7 || m.FileSize != 100 || m.NumAddedFiles != 3 || m.NumDeletedFiles != 1 ||
		string(m.PartitionStats.MaxValues) != "\x09\x09" || string(m.PartitionStats.MinValues) != "\x08" ||
		m.PartitionStats.NullCounts != nil || m.MaxBucket != nil || m.MinBucket != nil {
		t.Fatalf("got %+v", m)
	}
}
