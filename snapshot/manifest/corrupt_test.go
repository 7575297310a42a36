package manifest_test

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/snapshot/manifest"
)

// newestFixtures returns one Avro fixture file per kind.
func sampleFixtures(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, f := range fixtureFiles(t) {
		data, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if isORC(data) || out[f.kind] != nil {
			continue
		}
		out[f.kind] = data
	}
	return out
}

// TestTruncatedFilesAreCorrupt cuts fixture files at every length and
// checks each read fails with ErrCorrupt naming the file (never a panic,
// never silent success). Avro cannot detect a cut exactly at a block
// boundary; such a cut must yield a strict prefix of the records.
func TestTruncatedFilesAreCorrupt(t *testing.T) {
	for kind, data := range sampleFixtures(t) {
		full, err := readAny(kind, data, "full")
		if err != nil {
			t.Fatal(err)
		}
		boundaries := 0
		for n := range len(data) {
			got, err := readAny(kind, data[:n], "cut-file")
			if err == nil {
				gv, fv := reflect.ValueOf(got), reflect.ValueOf(full)
				if gv.Len() >= fv.Len() || !reflect.DeepEqual(gv.Interface(), fv.Slice(0, gv.Len()).Interface()) {
					t.Fatalf("%s cut at %d/%d: read %d records without error", kind, n, len(data), gv.Len())
				}
				boundaries++
				continue
			}
			if !errors.Is(err, manifest.ErrCorrupt) || !strings.Contains(err.Error(), "cut-file") {
				t.Fatalf("%s cut at %d/%d: got %v", kind, n, len(data), err)
			}
		}
		if boundaries > 3 {
			t.Errorf("%s: %d cuts read without error", kind, boundaries)
		}
	}
}

// TestFlippedBytesNeverPanic flips every byte of fixture files; reads must
// return an error wrapping ErrCorrupt or ErrUnsupported, or succeed.
func TestFlippedBytesNeverPanic(t *testing.T) {
	for kind, data := range sampleFixtures(t) {
		buf := make([]byte, len(data))
		for i := range data {
			for _, x := range []byte{0x01, 0xff} {
				copy(buf, data)
				buf[i] ^= x
				_, err := readAny(kind, buf, "flipped")
				if err != nil && !errors.Is(err, manifest.ErrCorrupt) && !errors.Is(err, manifest.ErrUnsupported) {
					t.Fatalf("%s byte %d ^%02x: unwrapped error %v", kind, i, x, err)
				}
			}
		}
	}
}

func TestNotAvro(t *testing.T) {
	for _, data := range [][]byte{nil, []byte("Ob"), []byte("PAR1...."), []byte("ORC\x00\x01")} {
		_, err := manifest.ReadManifest(data, "m")
		if err == nil {
			t.Fatalf("%q: no error", data)
		}
	}
	_, err := manifest.ReadManifestList([]byte("ORC\x0a\x03"), "manifest-list-x-0")
	if !errors.Is(err, manifest.ErrORCManifest) || !strings.Contains(err.Error(), "unsupported: ORC manifest") {
		t.Fatalf("ORC: %v", err)
	}
}

// TestWrongKind reads a manifest list as a manifest: the writer schema lacks
// the required fields.
func TestWrongKind(t *testing.T) {
	data, err := manifest.WriteManifestList([]manifest.ManifestFileMeta{{FileName: "manifest-a-0", PartitionStats: manifest.EmptyStats()}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = manifest.ReadManifest(data, "manifest-list-a-0")
	if !errors.Is(err, manifest.ErrCorrupt) || !strings.Contains(err.Error(), "lacks required field") {
		t.Fatalf("got %v", err)
	}
}

// TestEarlyStop breaks out of the iterator after the first record.
func TestEarlyStop(t *testing.T) {
	entries := []manifest.ManifestEntry{sampleEntry("a", 0), sampleEntry("b", 1)}
	data, err := manifest.WriteManifest(entries)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for e, err := range manifest.ManifestEntries(data, "m") {
		if err != nil {
			t.Fatal(err)
		}
		if e.File.FileName != "a" {
			t.Fatalf("first entry %q", e.File.FileName)
		}
		n++
		break
	}
	if n != 1 {
		t.Fatal(n)
	}
}
