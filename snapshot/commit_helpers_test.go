package snapshot_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// The test table: partitioned by f1 INT, primary key (f0, f1, f2), so the
// trimmed key is (f0 STRING, f2 INT), 2 buckets.
const testSchemaJSON = `{
  "version" : 3,
  "id" : 0,
  "fields" : [ {
    "id" : 0,
    "name" : "f0",
    "type" : "STRING NOT NULL"
  }, {
    "id" : 1,
    "name" : "f1",
    "type" : "INT NOT NULL"
  }, {
    "id" : 2,
    "name" : "f2",
    "type" : "INT NOT NULL"
  }, {
    "id" : 3,
    "name" : "f3",
    "type" : "DOUBLE"
  } ],
  "highestFieldId" : 3,
  "partitionKeys" : [ "f1" ],
  "primaryKeys" : [ "f0", "f1", "f2" ],
  "options" : {
    "bucket" : "2"
  },
  "timeMillis" : 1756266931880
}`

var (
	partTypes = []schema.DataType{schema.MustParseDataType("INT NOT NULL")}
	keyTypes  = []schema.DataType{schema.MustParseDataType("STRING NOT NULL"), schema.MustParseDataType("INT NOT NULL")}
)

// newTestTable writes schema-0 of the test table into st.
func newTestTable(t testing.TB, st storage.Storage) {
	t.Helper()
	ts, err := schema.DecodeTableSchema([]byte(testSchemaJSON))
	if err != nil {
		t.Fatal(err)
	}
	if err := snapshot.NewSchemaManager(st, "").Commit(context.Background(), ts); err != nil {
		t.Fatal(err)
	}
}

func partition(t testing.TB, v int32) manifest.SerializedRow {
	t.Helper()
	b, err := binaryrow.EncodeSerialized(partTypes, []any{v})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func key(t testing.TB, s string, n int32) manifest.SerializedRow {
	t.Helper()
	b, err := binaryrow.EncodeSerialized(keyTypes, []any{s, n})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fileSpec describes a data file of the test table.
type fileSpec struct {
	name   string
	part   int32
	bucket int32
	level  int32
	rows   int64
	minKey string
	maxKey string
}

func entry(t testing.TB, kind manifest.FileKind, f fileSpec) manifest.ManifestEntry {
	t.Helper()
	if f.minKey == "" {
		f.minKey, f.maxKey = "a", "z"
	}
	ct := int64(1756266931880)
	src := manifest.FileSourceAppend
	if f.level > 0 {
		src = manifest.FileSourceCompact
	}
	zero := int64(0)
	return manifest.ManifestEntry{
		Kind:         kind,
		Partition:    partition(t, f.part),
		Bucket:       manifest.Bucket(f.bucket),
		TotalBuckets: 2,
		File: manifest.DataFileMeta{
			FileName:          f.name,
			FileSize:          1000 + f.rows,
			RowCount:          f.rows,
			MinKey:            key(t, f.minKey, 0),
			MaxKey:            key(t, f.maxKey, 0),
			KeyStats:          manifest.EmptyStats(),
			ValueStats:        manifest.EmptyStats(),
			MinSequenceNumber: 0,
			MaxSequenceNumber: f.rows - 1,
			Level:             manifest.Level(f.level),
			ExtraFiles:        []string{},
			CreationTime:      &ct,
			DeleteRowCount:    &zero,
			FileSource:        &src,
		},
	}
}

func add(t testing.TB, f fileSpec) manifest.ManifestEntry { return entry(t, manifest.FileKindAdd, f) }
func del(t testing.TB, f fileSpec) manifest.ManifestEntry {
	return entry(t, manifest.FileKindDelete, f)
}

// model is the expected set of live files.
type model map[manifest.FileIdentifier]manifest.ManifestEntry

func (m model) apply(t testing.TB, entries []manifest.ManifestEntry) {
	t.Helper()
	for _, e := range entries {
		id := e.Identifier()
		switch e.Kind {
		case manifest.FileKindAdd:
			if _, ok := m[id]; ok {
				t.Fatalf("model: %s added twice", e.File.FileName)
			}
			m[id] = e
		case manifest.FileKindDelete:
			if _, ok := m[id]; !ok {
				t.Fatalf("model: %s deleted but not live", e.File.FileName)
			}
			delete(m, id)
		}
	}
}

func (m model) clone() model { return maps.Clone(m) }

func (m model) rows() int64 {
	var n int64
	for _, e := range m {
		n += e.File.RowCount
	}
	return n
}

func (m model) summary() []string {
	return summarize(slices.Collect(maps.Values(m)))
}

func summarize(entries []manifest.ManifestEntry) []string {
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		out = append(out, fmt.Sprintf("%v p=%x b=%d l=%d f=%s rows=%d", e.Kind, []byte(e.Partition), e.Bucket, e.File.Level, e.File.FileName, e.File.RowCount))
	}
	slices.Sort(out)
	return out
}

// checkLive compares the live files of snap with the model.
func checkLive(t testing.TB, st storage.Storage, snap *snapshot.Snapshot, want model) {
	t.Helper()
	got, err := snapshot.LiveEntries(context.Background(), st, snap, nil)
	if err != nil {
		t.Fatalf("LiveEntries(snapshot %d): %v", snap.ID, err)
	}
	g, w := summarize(got), want.summary()
	if !slices.Equal(g, w) {
		t.Fatalf("snapshot %d live files:\ngot  %s\nwant %s", snap.ID, strings.Join(g, "\n     "), strings.Join(w, "\n     "))
	}
	if snap.TotalRecordCount != want.rows() {
		t.Fatalf("snapshot %d totalRecordCount = %d, want %d", snap.ID, snap.TotalRecordCount, want.rows())
	}
}

// manifestFiles lists the files of the manifest folder.
func manifestFiles(t testing.TB, st storage.Storage) []string {
	t.Helper()
	var out []string
	for info, err := range st.List(context.Background(), manifest.ManifestDir+"/") {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, info.Path)
	}
	return out
}

func testOptions() snapshot.CommitOptions {
	return snapshot.CommitOptions{MinRetryWait: 1e6, MaxRetryWait: 20e6}
}
