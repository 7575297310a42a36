package snapshot_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/testutil"
	"github.com/lakesql/lakesql/snapshot"
)

const tagJSON = `{
  "version" : 3,
  "id" : 1,
  "schemaId" : 0,
  "baseManifestList" : "manifest-list-aa-0",
  "baseManifestListSize" : 20,
  "deltaManifestList" : "manifest-list-aa-1",
  "deltaManifestListSize" : 50,
  "changelogManifestList" : null,
  "commitUser" : "cu",
  "commitIdentifier" : 9223372036854775807,
  "commitKind" : "OVERWRITE",
  "timeMillis" : 1711692199281,
  "logOffsets" : { },
  "totalRecordCount" : 3,
  "deltaRecordCount" : 3,
  "changelogRecordCount" : 0,
  "tagCreateTime" : [ 2026, 1, 3, 5, 7, 9, 11 ],
  "tagTimeRetained" : 4.000000000
}`

func TestDecodeTag(t *testing.T) {
	tag, err := snapshot.DecodeTag([]byte(tagJSON))
	if err != nil {
		t.Fatal(err)
	}
	if tag.ID != 1 || tag.CommitKind != snapshot.CommitKindOverwrite || tag.TotalRecordCount != 3 {
		t.Fatalf("snapshot part: %+v", tag.Snapshot)
	}
	if want := time.Date(2026, 1, 3, 5, 7, 9, 11, time.UTC); !tag.TagCreateTime.Equal(want) {
		t.Errorf("create time %v", tag.TagCreateTime)
	}
	if *tag.TagTimeRetained != 4*time.Second || tag.TimeRetainedString() != "PT4S" {
		t.Errorf("retained %v %q", *tag.TagTimeRetained, tag.TimeRetainedString())
	}
	got, err := snapshot.EncodeTag(tag)
	if err != nil || string(got) != tagJSON {
		t.Fatalf("re-encode: %v\n%s", err, got)
	}
	// The snapshot part alone drops the tag fields.
	s, err := snapshot.EncodeSnapshot(&tag.Snapshot)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(s), "tag") || !strings.HasSuffix(string(s), "\"changelogRecordCount\" : 0\n}") {
		t.Errorf("trimmed snapshot:\n%s", s)
	}
	// Read as a snapshot, a tag file keeps its tag fields as unknown ones.
	asSnap, err := snapshot.DecodeSnapshot([]byte(tagJSON))
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := snapshot.EncodeSnapshot(asSnap); string(again) != tagJSON {
		t.Errorf("tag read as snapshot did not round-trip:\n%s", again)
	}
}

func TestTagTimeForms(t *testing.T) {
	base := strings.TrimSuffix(tagJSON[:strings.Index(tagJSON, `  "tagCreateTime"`)], ",\n")
	for _, tc := range []struct {
		create, retained string
		wantCreate       time.Time
		wantRetained     time.Duration
		canonical        bool
	}{
		{`[ 2024, 1, 2, 3, 4 ]`, `0.0`, time.Date(2024, 1, 2, 3, 4, 0, 0, time.UTC), 0, true},
		{`[ 2024, 1, 2, 3, 4, 5 ]`, `86400.000000000`, time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), 24 * time.Hour, true},
		{`[ 2024, 12, 31, 23, 59, 0, 500 ]`, `1.500000000`, time.Date(2024, 12, 31, 23, 59, 0, 500, time.UTC), 1500 * time.Millisecond, true},
		{`[ 2024, 1, 2, 3, 4 ]`, `1E-9`, time.Date(2024, 1, 2, 3, 4, 0, 0, time.UTC), 1, true},
		{`[ 2024, 1, 2, 3, 4 ]`, `0.000001000`, time.Date(2024, 1, 2, 3, 4, 0, 0, time.UTC), time.Microsecond, true},
		{`"2024-01-02T03:04:05.123"`, `"PT1H30M"`, time.Date(2024, 1, 2, 3, 4, 5, 123000000, time.UTC), 90 * time.Minute, false},
		{`"2024-01-02T03:04"`, `7`, time.Date(2024, 1, 2, 3, 4, 0, 0, time.UTC), 7 * time.Second, false},
		{`[ 2024, 1, 2, 3, 4 ]`, `"P2DT0.5S"`, time.Date(2024, 1, 2, 3, 4, 0, 0, time.UTC), 48*time.Hour + 500*time.Millisecond, false},
	} {
		data := base + ",\n  \"tagCreateTime\" : " + tc.create + ",\n  \"tagTimeRetained\" : " + tc.retained + "\n}"
		tag, err := snapshot.DecodeTag([]byte(data))
		if err != nil {
			t.Errorf("%s %s: %v", tc.create, tc.retained, err)
			continue
		}
		if !tag.TagCreateTime.Equal(tc.wantCreate) || *tag.TagTimeRetained != tc.wantRetained {
			t.Errorf("%s %s: got %v %v", tc.create, tc.retained, tag.TagCreateTime, *tag.TagTimeRetained)
		}
		// Unchanged values re-encode as they were, in whatever form.
		if got, _ := snapshot.EncodeTag(tag); string(got) != data {
			t.Errorf("%s %s: not preserved:\n%s", tc.create, tc.retained, got)
		}
		// A fresh tag writes Jackson's canonical forms.
		fresh := &snapshot.Tag{Snapshot: tag.Snapshot, TagCreateTime: new(*tag.TagCreateTime), TagTimeRetained: new(*tag.TagTimeRetained)}
		snapshot.ForgetLayout(&fresh.Snapshot)
		got, err := snapshot.EncodeTag(fresh)
		if err != nil {
			t.Fatal(err)
		}
		if tc.canonical && string(got) != data {
			t.Errorf("%s %s: canonical encoding\n%s", tc.create, tc.retained, got)
		}
		back, err := snapshot.DecodeTag(got)
		if err != nil || !back.TagCreateTime.Equal(tc.wantCreate) || *back.TagTimeRetained != tc.wantRetained {
			t.Errorf("%s %s: canonical form does not decode back: %v", tc.create, tc.retained, err)
		}
	}
	for _, bad := range []string{`[ 2024, 13, 1, 0, 0 ]`, `[ 2024, 2, 30, 0, 0 ]`, `[ 2024, 1 ]`, `"yesterday"`, `5`, `[ 2024, 1, 1, 0, "0" ]`} {
		data := base + ",\n  \"tagCreateTime\" : " + bad + "\n}"
		if _, err := snapshot.DecodeTag([]byte(data)); !errors.Is(err, snapshot.ErrCorrupt) || !strings.Contains(err.Error(), "tagCreateTime") {
			t.Errorf("create time %s: %v", bad, err)
		}
	}
	for _, bad := range []string{`"4 seconds"`, `[ ]`, `1e300`, `"PT"`} {
		data := base + ",\n  \"tagTimeRetained\" : " + bad + "\n}"
		if _, err := snapshot.DecodeTag([]byte(data)); !errors.Is(err, snapshot.ErrCorrupt) || !strings.Contains(err.Error(), "tagTimeRetained") {
			t.Errorf("retained %s: %v", bad, err)
		}
	}
}

func TestJavaDurationString(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                      "PT0S",
		4 * time.Second:        "PT4S",
		time.Hour:              "PT1H",
		24 * time.Hour:         "PT24H",
		90 * time.Minute:       "PT1H30M",
		500 * time.Millisecond: "PT0.5S",
		time.Hour + time.Second + time.Microsecond: "PT1H1.000001S",
		time.Nanosecond:          "PT0.000000001S",
		-time.Second:             "PT-1S",
		-500 * time.Millisecond:  "PT-0.5S",
		-90 * time.Second:        "PT-1M-30S",
		-1500 * time.Millisecond: "PT-1.5S",
	} {
		if got := snapshot.JavaDurationString(d); got != want {
			t.Errorf("%v: got %q want %q", d, got, want)
		}
	}
}

func TestTagManager(t *testing.T) {
	ctx := context.Background()
	dir := testutil.FixtureTables(t)["pk_table_scan_and_read_dv"]
	src, err := snapshot.NewSnapshotManager(openDir(t, dir), "").Snapshot(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	snapBytes, err := os.ReadFile(dir + "/snapshot/snapshot-3")
	if err != nil {
		t.Fatal(err)
	}
	for _, branch := range []string{"", "b1"} {
		st := openMem(t)
		tm := snapshot.NewTagManager(st, branch)
		if names, err := tm.List(ctx); err != nil || len(names) != 0 {
			t.Fatalf("empty: %v %v", names, err)
		}
		// Without retention the tag file is the snapshot file, byte for byte.
		if err := tm.Create(ctx, "v1", src, nil, time.Now()); err != nil {
			t.Fatal(err)
		}
		data, err := st.ReadAll(ctx, snapshot.TagPath(branch, "v1"))
		if err != nil || !bytes.Equal(data, snapBytes) {
			t.Fatalf("plain tag differs from snapshot file: %v\n%s", err, data)
		}
		retained := 36 * time.Hour
		created := time.Date(2025, 8, 27, 11, 42, 51, 123456789, time.FixedZone("X", 3600))
		if err := tm.Create(ctx, "daily 2025-08-27", src, &retained, created); err != nil {
			t.Fatal(err)
		}
		if err := tm.Create(ctx, "v1", src, nil, time.Now()); !errors.Is(err, snapshot.ErrTagExists) {
			t.Errorf("duplicate create: %v", err)
		}
		names, err := tm.List(ctx)
		if err != nil || !slices.Equal(names, []string{"daily 2025-08-27", "v1"}) {
			t.Errorf("List = %v %v", names, err)
		}
		tag, err := tm.Get(ctx, "daily 2025-08-27")
		if err != nil {
			t.Fatal(err)
		}
		wantCreate := time.Date(2025, 8, 27, 11, 42, 51, 123456789, time.UTC) // wall clock kept
		if tag.ID != 3 || !tag.TagCreateTime.Equal(wantCreate) || *tag.TagTimeRetained != retained {
			t.Errorf("tag %d %v %v", tag.ID, tag.TagCreateTime, tag.TagTimeRetained)
		}
		raw, _ := st.ReadAll(ctx, snapshot.TagPath(branch, "daily 2025-08-27"))
		if !strings.HasSuffix(string(raw), "  \"nextRowId\" : 0,\n  \"tagCreateTime\" : [ 2025, 8, 27, 11, 42, 51, 123456789 ],\n  \"tagTimeRetained\" : 129600.000000000\n}") {
			t.Errorf("tag file:\n%s", raw)
		}
		all, err := tm.All(ctx)
		if err != nil || len(all) != 2 || all[0].Name != "daily 2025-08-27" || all[1].Tag.TagCreateTime != nil || all[0].TimeRetainedString() != "PT36H" {
			t.Errorf("All = %+v %v", all, err)
		}
		if ok, err := tm.Exists(ctx, "v1"); !ok || err != nil {
			t.Errorf("Exists(v1) = %v %v", ok, err)
		}
		if err := tm.Delete(ctx, "v1"); err != nil {
			t.Fatal(err)
		}
		if err := tm.Delete(ctx, "v1"); !errors.Is(err, snapshot.ErrTagNotFound) {
			t.Errorf("second delete: %v", err)
		}
		if _, err := tm.Get(ctx, "v1"); !errors.Is(err, snapshot.ErrTagNotFound) {
			t.Errorf("Get deleted: %v", err)
		}
		for _, bad := range []string{"", " ", "a/b", ".."} {
			if err := tm.Create(ctx, bad, src, nil, time.Now()); !errors.Is(err, snapshot.ErrInvalidName) {
				t.Errorf("Create(%q) = %v", bad, err)
			}
		}
		if err := st.WriteAll(ctx, snapshot.TagPath(branch, "broken"), []byte("{")); err != nil {
			t.Fatal(err)
		}
		if _, err := tm.Get(ctx, "broken"); !errors.Is(err, snapshot.ErrCorrupt) {
			t.Errorf("corrupt tag: %v", err)
		}
	}
}

func FuzzDecodeTag(f *testing.F) {
	f.Add([]byte(tagJSON))
	f.Add([]byte(`{"id":1,"schemaId":0,"baseManifestList":"b","deltaManifestList":"d","commitKind":"APPEND","tagCreateTime":"2024-01-01T00:00","tagTimeRetained":"PT1S"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tag, err := snapshot.DecodeTag(data)
		if err != nil {
			if !errors.Is(err, snapshot.ErrCorrupt) {
				t.Fatalf("error does not wrap ErrCorrupt: %v", err)
			}
			return
		}
		enc, err := snapshot.EncodeTag(tag)
		if err != nil {
			return
		}
		tag2, err := snapshot.DecodeTag(enc)
		if err != nil {
			t.Fatalf("re-decode of %q: %v", enc, err)
		}
		if enc2, err := snapshot.EncodeTag(tag2); err != nil || !bytes.Equal(enc, enc2) {
			t.Fatalf("encoding not stable:\n%s\n%s", enc, enc2)
		}
	})
}
