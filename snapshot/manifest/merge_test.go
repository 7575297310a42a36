package manifest_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/snapshot/manifest"
)

func ent(kind manifest.FileKind, name string, bucket manifest.Bucket, level manifest.Level) manifest.ManifestEntry {
	return manifest.ManifestEntry{Kind: kind, Partition: manifest.EmptyRow, Bucket: bucket,
		File: manifest.DataFileMeta{FileName: name, Level: level, ExtraFiles: []string{}}}
}

func names(es []manifest.ManifestEntry) string {
	var s []string
	for _, e := range es {
		s = append(s, e.Kind.String()[:1]+":"+e.File.FileName)
	}
	return strings.Join(s, " ")
}

func TestMergeEntries(t *testing.T) {
	A, D := manifest.FileKindAdd, manifest.FileKindDelete
	in := []manifest.ManifestEntry{
		ent(A, "f1", 0, 0), ent(A, "f2", 0, 0), ent(A, "f3", 1, 0),
		ent(D, "f1", 0, 0),  // removes f1
		ent(D, "old", 0, 0), // ADD not seen: kept
		ent(A, "f1", 0, 1),  // same name, other level: a different file
		ent(D, "f2", 0, 5),  // other level: does not match f2@L0
		ent(A, "f4", 0, 0),
		ent(D, "f4", 0, 0),
		ent(A, "f4", 0, 0), // re-added after delete: goes to the end
	}
	got, err := manifest.MergeEntries(in)
	if err != nil {
		t.Fatal(err)
	}
	if want := "A:f2 A:f3 D:old A:f1 D:f2 A:f4"; names(got) != want {
		t.Fatalf("got %q want %q", names(got), want)
	}
	m := manifest.NewEntryMerger()
	for _, e := range in {
		if err := m.Add(e); err != nil {
			t.Fatal(err)
		}
	}
	if want := "A:f2 A:f3 A:f1 A:f4"; names(m.LiveFiles()) != want {
		t.Fatalf("live %q want %q", names(m.LiveFiles()), want)
	}
	if m.Len() != 6 {
		t.Fatal(m.Len())
	}
}

func TestMergeDuplicateAdd(t *testing.T) {
	A := manifest.FileKindAdd
	_, err := manifest.MergeEntries([]manifest.ManifestEntry{ent(A, "f1", 0, 0), ent(A, "f1", 0, 0)})
	if !errors.Is(err, manifest.ErrCorrupt) || !strings.Contains(err.Error(), "f1") {
		t.Fatalf("got %v", err)
	}
}

// TestIdentifierFields: every identifier field distinguishes files, and a
// null embedded index differs from an empty one, as in Java's equals.
func TestIdentifierFields(t *testing.T) {
	base := ent(manifest.FileKindAdd, "f", 0, 0)
	variants := []func(e *manifest.ManifestEntry){
		func(e *manifest.ManifestEntry) { e.Partition = manifest.SerializedRow{0, 0, 0, 1} },
		func(e *manifest.ManifestEntry) { e.Bucket = 1 },
		func(e *manifest.ManifestEntry) { e.File.Level = 1 },
		func(e *manifest.ManifestEntry) { e.File.FileName = "g" },
		func(e *manifest.ManifestEntry) { e.File.ExtraFiles = []string{"x"} },
		func(e *manifest.ManifestEntry) { e.File.EmbeddedIndex = []byte{} },
		func(e *manifest.ManifestEntry) { e.File.EmbeddedIndex = []byte{1} },
		func(e *manifest.ManifestEntry) { e.File.ExternalPath = p("") },
		func(e *manifest.ManifestEntry) { e.File.ExternalPath = p("s3://x") },
	}
	ids := map[manifest.FileIdentifier]int{base.Identifier(): -1}
	for i, v := range variants {
		e := base
		e.File.ExtraFiles = []string{}
		v(&e)
		id := e.Identifier()
		if j, dup := ids[id]; dup {
			t.Errorf("variant %d has the identifier of %d", i, j)
		}
		ids[id] = i
	}
	// Non-identifier fields do not matter.
	e := base
	e.File.RowCount, e.TotalBuckets = 99, 4
	if e.Identifier() != base.Identifier() {
		t.Error("row count changed the identifier")
	}
}

func idx(kind manifest.FileKind, typ, name string, bucket manifest.Bucket, dvFiles ...string) manifest.IndexManifestEntry {
	e := manifest.IndexManifestEntry{Kind: kind, Partition: manifest.EmptyRow, Bucket: bucket,
		IndexFile: manifest.IndexFileMeta{IndexType: typ, FileName: name}}
	for _, f := range dvFiles {
		e.IndexFile.DVRanges = append(e.IndexFile.DVRanges, manifest.DeletionVectorMeta{DataFileName: f})
	}
	return e
}

func idxNames(es []manifest.IndexManifestEntry) string {
	var s []string
	for _, e := range es {
		s = append(s, e.IndexFile.FileName)
	}
	return strings.Join(s, " ")
}

func TestCombineIndexEntriesBucketed(t *testing.T) {
	A, D := manifest.FileKindAdd, manifest.FileKindDelete
	dv, hash := manifest.IndexTypeDeletionVectors, manifest.IndexTypeHash
	prev := []manifest.IndexManifestEntry{idx(A, dv, "i0", 0), idx(A, dv, "i1", 1), idx(A, hash, "h0", 0)}
	changes := []manifest.IndexManifestEntry{
		idx(A, dv, "i2", 0), // replaces i0 (same bucket), even though listed before the DELETE
		idx(D, dv, "i0", 0),
		idx(D, dv, "i1", 1), // bucket 1 loses its DV file
		idx(A, hash, "h1", 1),
	}
	got, err := manifest.CombineIndexEntries(prev, changes, false)
	if err != nil {
		t.Fatal(err)
	}
	if want := "i2 h0 h1"; idxNames(got) != want {
		t.Fatalf("got %q want %q", idxNames(got), want)
	}
	if _, err := manifest.CombineIndexEntries([]manifest.IndexManifestEntry{idx(D, dv, "x", 0)}, nil, false); !errors.Is(err, manifest.ErrCorrupt) {
		t.Fatalf("DELETE in previous: %v", err)
	}
}

func TestCombineIndexEntriesBucketUnaware(t *testing.T) {
	A, D := manifest.FileKindAdd, manifest.FileKindDelete
	dv := manifest.IndexTypeDeletionVectors
	prev := []manifest.IndexManifestEntry{idx(A, dv, "i0", 0, "d1", "d2"), idx(A, dv, "i1", 0, "d3")}
	got, err := manifest.CombineIndexEntries(prev, []manifest.IndexManifestEntry{
		idx(D, dv, "i0", 0, "d1", "d2"), idx(A, dv, "i2", 0, "d1", "d4"),
	}, true)
	if err != nil {
		t.Fatal(err)
	}
	if want := "i1 i2"; idxNames(got) != want {
		t.Fatalf("got %q want %q", idxNames(got), want)
	}
	for name, changes := range map[string][]manifest.IndexManifestEntry{
		"add present file":   {idx(A, dv, "i0", 0)},
		"second DV for file": {idx(A, dv, "i9", 0, "d3")},
		"delete absent file": {idx(D, dv, "i9", 0)},
		"delete absent DV":   {idx(D, dv, "i1", 0, "d9")},
	} {
		if _, err := manifest.CombineIndexEntries(prev, changes, true); !errors.Is(err, manifest.ErrCorrupt) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
