package snapshot_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/internal/testutil"
	"github.com/lakesql/lakesql/snapshot"
)

// fixtureSnapshotFiles returns every snapshot-N file of every fixture
// table, branches included.
func fixtureSnapshotFiles(t testing.TB) []string {
	t.Helper()
	var files []string
	for _, dir := range testutil.FixtureTables(t) {
		for _, pattern := range []string{"snapshot/snapshot-*", "branch/branch-*/snapshot/snapshot-*"} {
			m, err := filepath.Glob(filepath.Join(dir, pattern))
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, m...)
		}
	}
	if len(files) < 100 {
		t.Fatalf("found only %d fixture snapshot files", len(files))
	}
	return files
}

func TestRoundTripFixtureSnapshots(t *testing.T) {
	branchFiles := 0
	for _, f := range fixtureSnapshotFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s, err := snapshot.DecodeSnapshot(data)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if want := strings.TrimPrefix(filepath.Base(f), "snapshot-"); s.ID.String() != want {
			t.Errorf("%s: id %v", f, s.ID)
		}
		if !s.CommitKind.Valid() || s.Version != 3 || s.TimeMillis <= 0 {
			t.Errorf("%s: unexpected %v version %d time %d", f, s.CommitKind, s.Version, s.TimeMillis)
		}
		got, err := snapshot.EncodeSnapshot(s)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if !bytes.Equal(got, data) {
			t.Errorf("%s: re-encoded bytes differ\n--- got\n%s\n--- want\n%s", f, got, data)
		}
		// A copy without the remembered layout must encode the same: Java
		// 1.3 fixtures are in canonical order.
		fresh := *s
		snapshot.ForgetLayout(&fresh)
		got2, err := snapshot.EncodeSnapshot(&fresh)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got2, data) {
			t.Errorf("%s: canonical encoding differs\n--- got\n%s\n--- want\n%s", f, got2, data)
		}
		if strings.Contains(f, "/branch/") {
			branchFiles++
		}
	}
	if branchFiles < 3 {
		t.Errorf("only %d branch snapshot files checked", branchFiles)
	}
}

func TestSnapshotFieldsFromFixture(t *testing.T) {
	data := []byte(`{
  "version" : 3,
  "id" : 4,
  "schemaId" : 0,
  "baseManifestList" : "manifest-list-a-6",
  "baseManifestListSize" : 1026,
  "deltaManifestList" : "manifest-list-a-7",
  "deltaManifestListSize" : 994,
  "changelogManifestList" : null,
  "indexManifest" : "index-manifest-b-0",
  "commitUser" : "7ffc1250",
  "commitIdentifier" : 9223372036854775807,
  "commitKind" : "COMPACT",
  "timeMillis" : 1756266171505,
  "logOffsets" : { },
  "totalRecordCount" : 10,
  "deltaRecordCount" : -1,
  "changelogRecordCount" : 0,
  "nextRowId" : 0
}`)
	s, err := snapshot.DecodeSnapshot(data)
	if err != nil {
		t.Fatal(err)
	}
	if s.ID != 4 || s.SchemaID != 0 || s.BaseManifestList != "manifest-list-a-6" || *s.BaseManifestListSize != 1026 ||
		*s.DeltaManifestListSize != 994 || s.ChangelogManifestList != nil || *s.IndexManifest != "index-manifest-b-0" ||
		s.CommitIdentifier != snapshot.BatchCommitIdentifier || s.CommitKind != snapshot.CommitKindCompact ||
		s.TimeMillis != 1756266171505 || s.LogOffsets == nil || len(s.LogOffsets) != 0 || s.TotalRecordCount != 10 ||
		s.DeltaRecordCount != -1 || *s.ChangelogRecordCount != 0 || *s.NextRowID != 0 || s.Watermark != nil ||
		s.Statistics != nil || s.Properties != nil || s.UUID != nil {
		t.Fatalf("decoded %+v", s)
	}
}

func TestEncodeNewSnapshotLikeJava(t *testing.T) {
	s := &snapshot.Snapshot{
		Version:               snapshot.CurrentSnapshotVersion,
		ID:                    1,
		BaseManifestList:      "manifest-list-x-0",
		BaseManifestListSize:  new(int64(884)),
		DeltaManifestList:     "manifest-list-x-1",
		DeltaManifestListSize: new(int64(990)),
		CommitUser:            "u",
		CommitIdentifier:      snapshot.BatchCommitIdentifier,
		CommitKind:            snapshot.CommitKindAppend,
		TimeMillis:            1755855515905,
		LogOffsets:            map[int32]int64{},
		TotalRecordCount:      2,
		DeltaRecordCount:      2,
		ChangelogRecordCount:  new(int64(0)),
		Watermark:             new(int64(-9223372036854775808)),
		Statistics:            new("stat-q\"\n\x01-0"),
		Properties:            map[string]string{"b": "2", "a": "ü"},
		NextRowID:             new(int64(0)),
	}
	got, err := snapshot.EncodeSnapshot(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "version" : 3,
  "id" : 1,
  "schemaId" : 0,
  "baseManifestList" : "manifest-list-x-0",
  "baseManifestListSize" : 884,
  "deltaManifestList" : "manifest-list-x-1",
  "deltaManifestListSize" : 990,
  "changelogManifestList" : null,
  "commitUser" : "u",
  "commitIdentifier" : 9223372036854775807,
  "commitKind" : "APPEND",
  "timeMillis" : 1755855515905,
  "logOffsets" : { },
  "totalRecordCount" : 2,
  "deltaRecordCount" : 2,
  "changelogRecordCount" : 0,
  "watermark" : -9223372036854775808,
  "statistics" : "stat-q\"\n\u0001-0",
  "properties" : {
    "a" : "ü",
    "b" : "2"
  },
  "nextRowId" : 0
}`
	if string(got) != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	back, err := snapshot.DecodeSnapshot(got)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := snapshot.EncodeSnapshot(back)
	if !bytes.Equal(again, got) {
		t.Fatalf("re-encode differs:\n%s", again)
	}
	if _, err := snapshot.EncodeSnapshot(&snapshot.Snapshot{ID: 1}); err == nil {
		t.Fatal("snapshot without commit kind encoded")
	}
}

// TestUnknownFieldsPreserved checks a 2.x-shaped snapshot with fields this
// package does not know: they survive a rewrite in place, also after a
// known field changes.
func TestUnknownFieldsPreserved(t *testing.T) {
	data := []byte(`{
  "version" : 3,
  "uuid" : "0b0c",
  "id" : 7,
  "schemaId" : 2,
  "baseManifestList" : "b",
  "deltaManifestList" : "d",
  "commitUser" : "u",
  "writerVersion" : "2.1",
  "commitIdentifier" : 5,
  "commitKind" : "OVERWRITE",
  "timeMillis" : 17,
  "totalRecordCount" : 1,
  "futureObject" : {
    "x" : [ 1, 2.5e3, true, null, "s" ],
    "y" : [ {
      "a" : { }
    }, [ ] ]
  },
  "deltaRecordCount" : 1,
  "totalFileSize" : 123,
  "operation" : "MERGE"
}`)
	s, err := snapshot.DecodeSnapshot(data)
	if err != nil {
		t.Fatal(err)
	}
	if *s.UUID != "0b0c" || *s.WriterVersion != "2.1" || *s.Operation != "MERGE" || s.ChangelogManifestList != nil ||
		s.LogOffsets != nil || s.CommitKind != snapshot.CommitKindOverwrite {
		t.Fatalf("decoded %+v", s)
	}
	got, err := snapshot.EncodeSnapshot(s)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) {
		t.Fatalf("round trip differs:\n%s", got)
	}
	// Change fields: a new watermark goes to its canonical place, unknown
	// fields stay where they were.
	s.Watermark = new(int64(99))
	s.DeltaRecordCount = 2
	got, err = snapshot.EncodeSnapshot(s)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(string(data), `"deltaRecordCount" : 1,`, `"deltaRecordCount" : 2,`, 1)
	want = strings.Replace(want, `  "totalFileSize" : 123,`, "  \"watermark\" : 99,\n  \"totalFileSize\" : 123,", 1)
	if string(got) != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestDecodeSnapshotErrors(t *testing.T) {
	base := `"id" : 1, "schemaId" : 0, "baseManifestList" : "b", "deltaManifestList" : "d", "commitKind" : "APPEND"`
	for _, tc := range []struct {
		name, json, field string
	}{
		{"not json", `{`, ""},
		{"array", `[ ]`, ""},
		{"trailing", `{` + base + `} x`, ""},
		{"id string", `{"id" : "1", "schemaId" : 0, "baseManifestList" : "b", "deltaManifestList" : "d", "commitKind" : "APPEND"}`, `"id"`},
		{"id float", `{"id" : 1.5, "schemaId" : 0, "baseManifestList" : "b", "deltaManifestList" : "d", "commitKind" : "APPEND"}`, `"id"`},
		{"kind", `{"id" : 1, "schemaId" : 0, "baseManifestList" : "b", "deltaManifestList" : "d", "commitKind" : "MERGE"}`, `"commitKind"`},
		{"kind number", `{"id" : 1, "schemaId" : 0, "baseManifestList" : "b", "deltaManifestList" : "d", "commitKind" : 1}`, `"commitKind"`},
		{"missing kind", `{"id" : 1, "schemaId" : 0, "baseManifestList" : "b", "deltaManifestList" : "d"}`, `"commitKind"`},
		{"log offsets", `{` + base + `, "logOffsets" : { "x" : 1 }}`, `"logOffsets"`},
		{"log offsets value", `{` + base + `, "logOffsets" : { "1" : "a" }}`, `"logOffsets.1"`},
		{"properties", `{` + base + `, "properties" : [ ]}`, `"properties"`},
		{"size", `{` + base + `, "baseManifestListSize" : "1"}`, `"baseManifestListSize"`},
		{"version", `{` + base + `, "version" : 4294967296}`, `"version"`},
		{"deep", strings.Repeat("[", 1000) + strings.Repeat("]", 1000), ""},
	} {
		_, err := snapshot.DecodeSnapshot([]byte(tc.json))
		if !errors.Is(err, snapshot.ErrCorrupt) {
			t.Errorf("%s: err = %v, want ErrCorrupt", tc.name, err)
			continue
		}
		if tc.field != "" && !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%s: error %q does not name %s", tc.name, err, tc.field)
		}
	}
}

func TestCommitKindNames(t *testing.T) {
	for _, k := range []snapshot.CommitKind{snapshot.CommitKindAppend, snapshot.CommitKindCompact,
		snapshot.CommitKindOverwrite, snapshot.CommitKindAnalyze} {
		back, err := snapshot.ParseCommitKind(k.String())
		if err != nil || back != k {
			t.Errorf("%v: %v %v", k, back, err)
		}
	}
	if _, err := snapshot.ParseCommitKind("append"); !errors.Is(err, snapshot.ErrCorrupt) {
		t.Errorf("lower-case kind parsed: %v", err)
	}
}

func FuzzDecodeSnapshot(f *testing.F) {
	for _, file := range fixtureSnapshotFiles(f) {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"id":1,"schemaId":0,"baseManifestList":"b","deltaManifestList":"d","commitKind":"APPEND","tagCreateTime":[2024,1,1,0,0],"x":{"y":[1,{}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := snapshot.DecodeSnapshot(data)
		if err != nil {
			if !errors.Is(err, snapshot.ErrCorrupt) {
				t.Fatalf("error does not wrap ErrCorrupt: %v", err)
			}
			return
		}
		enc, err := snapshot.EncodeSnapshot(s)
		if err != nil {
			return // e.g. a commit kind that cannot be written
		}
		s2, err := snapshot.DecodeSnapshot(enc)
		if err != nil {
			t.Fatalf("re-decode of %q: %v", enc, err)
		}
		enc2, err := snapshot.EncodeSnapshot(s2)
		if err != nil || !bytes.Equal(enc, enc2) {
			t.Fatalf("encoding not stable:\n%s\n%s", enc, enc2)
		}
	})
}
