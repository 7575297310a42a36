package manifest_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/hamba/avro/v2/ocf"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

func benchManifest(b *testing.B, n int) []byte {
	entries := make([]manifest.ManifestEntry, n)
	for i := range entries {
		entries[i] = sampleEntry(fmt.Sprintf("data-%08d.parquet", i), manifest.Bucket(i%16))
	}
	data, err := manifest.WriteManifest(entries)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkReadManifest reads a 10,000-entry manifest with this package.
func BenchmarkReadManifest(b *testing.B) {
	data := benchManifest(b, 10000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for _, err := range manifest.ManifestEntries(data, "m") {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 10000 {
			b.Fatal(n)
		}
	}
}

// BenchmarkReadManifestHambaGeneric is the peer: hamba's ocf decoder into
// map[string]any on the same file.
func BenchmarkReadManifestHambaGeneric(b *testing.B) {
	data := benchManifest(b, 10000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		dec, err := ocf.NewDecoder(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		for dec.HasNext() {
			var v any
			if err := dec.Decode(&v); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkWriteManifest(b *testing.B) {
	entries := make([]manifest.ManifestEntry, 10000)
	for i := range entries {
		entries[i] = sampleEntry(fmt.Sprintf("data-%08d.parquet", i), manifest.Bucket(i%16))
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := manifest.WriteManifest(entries); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWriteSmallManifest: the manifest of a small commit (one file),
// where setting up the encoder is most of the cost.
func BenchmarkWriteSmallManifest(b *testing.B) {
	entries := []manifest.ManifestEntry{sampleEntry("data-00000001.parquet", 0)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := manifest.WriteManifest(entries); err != nil {
			b.Fatal(err)
		}
	}
}
