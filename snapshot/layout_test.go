package snapshot_test

import (
	"testing"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/snapshot"
)

func TestLayoutPaths(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{snapshot.SnapshotPath("", 7), "snapshot/snapshot-7"},
		{snapshot.SnapshotPath("main", 7), "snapshot/snapshot-7"},
		{snapshot.SnapshotPath("rt", 1), "branch/branch-rt/snapshot/snapshot-1"},
		{snapshot.HintPath("", snapshot.LatestHint), "snapshot/LATEST"},
		{snapshot.HintPath("test", snapshot.EarliestHint), "branch/branch-test/snapshot/EARLIEST"},
		{snapshot.SchemaPath("", 0), "schema/schema-0"},
		{snapshot.SchemaPath("test", 12), "branch/branch-test/schema/schema-12"},
		{snapshot.TagPath("", "v1"), "tag/tag-v1"},
		{snapshot.TagPath("b", "2024-01-01"), "branch/branch-b/tag/tag-2024-01-01"},
		{snapshot.ConsumerPath("", "c1"), "consumer/consumer-c1"},
		{snapshot.BranchDir(""), ""},
		{snapshot.BranchDir("x"), "branch/branch-x"},
		{snapshot.TempFileName("snapshot-3", "7f0e-11"), ".snapshot-3.7f0e-11.tmp"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q want %q", tc.got, tc.want)
		}
	}
}

func TestLayoutRoundTrip(t *testing.T) {
	for _, id := range []snapshot.SnapshotID{0, 1, 9, 10, 123456789, 1<<63 - 1} {
		back, ok := snapshot.ParseSnapshotFileName(snapshot.SnapshotFileName(id))
		if !ok || back != id {
			t.Errorf("snapshot %d: %d %v", id, back, ok)
		}
	}
	for _, id := range []schema.SchemaID{0, 1, 42} {
		back, ok := snapshot.ParseSchemaFileName(snapshot.SchemaFileName(id))
		if !ok || back != id {
			t.Errorf("schema %d: %d %v", id, back, ok)
		}
	}
	for _, name := range []string{"v1", "daily 2025-08-27", "a-b.c", "ü"} {
		if back, ok := snapshot.ParseTagFileName(snapshot.TagFileName(name)); !ok || back != name {
			t.Errorf("tag %q: %q %v", name, back, ok)
		}
		if back, ok := snapshot.ParseBranchDirName(snapshot.BranchDirName(name)); !ok || back != name {
			t.Errorf("branch %q: %q %v", name, back, ok)
		}
		if back, ok := snapshot.ParseConsumerFileName(snapshot.ConsumerFileName(name)); !ok || back != name {
			t.Errorf("consumer %q: %q %v", name, back, ok)
		}
	}
	for _, name := range []string{"snapshot-3", "schema-0", "LATEST", "tag-a.b"} {
		target, uuid, ok := snapshot.ParseTempFileName(snapshot.TempFileName(name, "0b5e8c9e-1c1f-4a51-a5c6-1d1c6e6b3d40"))
		if !ok || target != name || uuid != "0b5e8c9e-1c1f-4a51-a5c6-1d1c6e6b3d40" {
			t.Errorf("temp %q: %q %q %v", name, target, uuid, ok)
		}
	}
	for _, bad := range []string{"snapshot-", "snapshot-01", "snapshot--1", "snapshot-+1", "snapshot-1a",
		"snapshot-99999999999999999999", "schema-1", "EARLIEST", ".snapshot-1.x.tmp"} {
		if id, ok := snapshot.ParseSnapshotFileName(bad); ok {
			t.Errorf("parsed %q as %d", bad, id)
		}
	}
	for _, bad := range []string{"tag-", "tag-a/b", "v1", "", "snapshot-1"} {
		if _, ok := snapshot.ParseTagFileName(bad); ok {
			t.Errorf("tag parsed %q", bad)
		}
		if _, _, ok := snapshot.ParseTempFileName(bad); ok {
			t.Errorf("temp parsed %q", bad)
		}
	}
}

func TestValidateNames(t *testing.T) {
	for _, name := range []string{"test", "rt", "b1", "2024-01"} {
		if err := snapshot.ValidateBranchName(name); err != nil {
			t.Errorf("%q: %v", name, err)
		}
	}
	for _, name := range []string{"", " ", "main", "123", "a/b"} {
		if err := snapshot.ValidateBranchName(name); err == nil {
			t.Errorf("branch %q accepted", name)
		}
	}
	if !snapshot.IsMainBranch("") || !snapshot.IsMainBranch("main") || snapshot.IsMainBranch("rt") {
		t.Error("IsMainBranch")
	}
}
