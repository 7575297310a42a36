package manifest_test

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/hamba/avro/v2/ocf"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

func TestWriteReadAllCodecs(t *testing.T) {
	entries := []manifest.ManifestEntry{sampleEntry("data-a-0.parquet", 0), sampleEntry("data-a-1.parquet", 1)}
	entries[1].Kind = manifest.FileKindDelete
	entries[1].File.EmbeddedIndex = []byte{} // empty but not null
	entries[1].File.ValueStats.NullCounts = nil
	entries[1].File.FileSource, entries[1].File.ExternalPath, entries[1].File.CreationTime = nil, nil, nil
	entries[1].File.ValueStatsCols, entries[1].File.WriteCols = nil, []string{}
	for _, c := range []manifest.Codec{manifest.CodecNull, manifest.CodecDeflate, manifest.CodecSnappy, manifest.CodecZstandard} {
		data, err := manifest.WriteManifest(entries, manifest.WithCodec(c))
		if err != nil {
			t.Fatal(err)
		}
		if _, codec := headerSchema(t, data); codec != string(c) {
			t.Errorf("codec %q in header, want %q", codec, c)
		}
		got, err := manifest.ReadManifest(data, "m")
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		if !reflect.DeepEqual(got, entries) {
			t.Fatalf("%s: got\n%#v\nwant\n%#v", c, got, entries)
		}
		// hamba's own ocf decoder reads our files too.
		dec, err := ocf.NewDecoder(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for dec.HasNext() {
			var v any
			if err := dec.Decode(&v); err != nil {
				t.Fatal(err)
			}
			n++
		}
		if dec.Error() != nil || n != 2 {
			t.Fatalf("%s: hamba read %d records, %v", c, n, dec.Error())
		}
	}
	if _, err := manifest.WriteManifest(entries, manifest.WithCodec("bzip2")); !errors.Is(err, manifest.ErrUnsupported) {
		t.Fatalf("bzip2: %v", err)
	}
}

func TestWriteManyEntriesManyBlocks(t *testing.T) {
	entries := make([]manifest.ManifestEntry, 5000)
	for i := range entries {
		entries[i] = sampleEntry("data-"+string(rune('a'+i%26))+"-"+itoa(i)+".parquet", manifest.Bucket(i%7))
	}
	data, err := manifest.WriteManifest(entries, manifest.WithZstdLevel(3))
	if err != nil {
		t.Fatal(err)
	}
	got, err := manifest.ReadManifest(data, "m")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, entries) {
		t.Fatal("5000 entries differ after round trip")
	}
	t.Logf("5000 entries: %d bytes", len(data))
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

func TestIndexAndListRoundTrip(t *testing.T) {
	idx := []manifest.IndexManifestEntry{{
		Kind: manifest.FileKindAdd, Partition: manifest.EmptyRow, Bucket: 1,
		IndexFile: manifest.IndexFileMeta{
			IndexType: manifest.IndexTypeDeletionVectors, FileName: "index-u-0", FileSize: 31, RowCount: 2,
			DVRanges: []manifest.DeletionVectorMeta{
				{DataFileName: "data-1.parquet", Offset: 1, Length: 22, Cardinality: p(int64(3))},
				{DataFileName: "data-2.parquet", Offset: 31, Length: 22},
			},
			ExternalPath: p("oss://x/index-u-0"),
		},
	}, {
		Kind: manifest.FileKindAdd, Partition: manifest.EmptyRow,
		IndexFile: manifest.IndexFileMeta{IndexType: manifest.IndexTypeHash, FileName: "index-u-1", FileSize: 8, RowCount: 2},
	}}
	data, err := manifest.WriteIndexManifest(idx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := manifest.ReadIndexManifest(data, "im")
	if err != nil || !reflect.DeepEqual(got, idx) {
		t.Fatalf("index: %v\n%#v", err, got)
	}

	entries := []manifest.ManifestEntry{sampleEntry("a", 3), sampleEntry("b", 1)}
	entries[1].Kind = manifest.FileKindDelete
	entries[1].File.Level = 4
	meta := manifest.NewManifestFileMeta("manifest-u-0", 999, entries, 0, manifest.EmptyStats())
	if meta.NumAddedFiles != 1 || meta.NumDeletedFiles != 1 || *meta.MinBucket != 1 || *meta.MaxBucket != 3 ||
		*meta.MinLevel != 1 || *meta.MaxLevel != 4 || meta.SchemaID != 1 {
		t.Fatalf("meta %+v", meta)
	}
	empty := manifest.NewManifestFileMeta("manifest-u-1", 10, nil, 5, manifest.EmptyStats())
	list := []manifest.ManifestFileMeta{meta, empty}
	data, err = manifest.WriteManifestList(list)
	if err != nil {
		t.Fatal(err)
	}
	gotList, err := manifest.ReadManifestList(data, "ml")
	if err != nil || !reflect.DeepEqual(gotList, list) {
		t.Fatalf("list: %v\n%#v", err, gotList)
	}
	if none, err := manifest.ReadManifestList(mustWriteList(t, nil), "ml"); err != nil || none == nil || len(none) != 0 {
		t.Fatalf("empty list: %v %v", none, err)
	}
}

func mustWriteList(t *testing.T, l []manifest.ManifestFileMeta) []byte {
	data, err := manifest.WriteManifestList(l)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestCodecForCompression(t *testing.T) {
	for in, want := range map[string]manifest.Codec{"zstd": manifest.CodecZstandard, "snappy": manifest.CodecSnappy, "none": manifest.CodecNull} {
		if got, err := manifest.CodecForCompression(in); err != nil || got != want {
			t.Errorf("%s: %v %v", in, got, err)
		}
	}
	if _, err := manifest.CodecForCompression("lz4"); !errors.Is(err, manifest.ErrUnsupported) {
		t.Error(err)
	}
}
