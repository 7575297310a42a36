package snapshot_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot"
)

func writeSnapshot(t *testing.T, st storage.Storage, m *snapshot.SnapshotManager, id snapshot.SnapshotID, user string) {
	t.Helper()
	data, err := snapshot.EncodeSnapshot(&snapshot.Snapshot{Version: 3, ID: id, SchemaID: 0, BaseManifestList: "b", DeltaManifestList: "d",
		CommitUser: user, CommitIdentifier: 1, CommitKind: snapshot.CommitKindAppend, TimeMillis: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.WriteAll(context.Background(), m.Path(id), data); err != nil {
		t.Fatal(err)
	}
}

// TestSnapshotCacheSeesReusedIDs: the snapshot manager's cache of decoded
// snapshots and of the latest id never returns a stale snapshot: an id
// rewritten after a rollback (same id, other content) reads as the new
// file, and the latest id follows deletions and new snapshots.
func TestSnapshotCacheSeesReusedIDs(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := storage.OpenLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := snapshot.NewSnapshotManager(st, "")
	for id := snapshot.SnapshotID(1); id <= 3; id++ {
		writeSnapshot(t, st, m, id, "first")
	}
	latest := func(want snapshot.SnapshotID, user string) {
		t.Helper()
		s, err := m.Latest(ctx)
		if err != nil || s.ID != want || s.CommitUser != user {
			t.Fatalf("Latest = %v, %v; want snapshot %d by %s", s, err, want, user)
		}
	}
	latest(3, "first")
	latest(3, "first") // from the cache
	// A rollback to 2, then a new snapshot 3 by another writer.
	if err := st.Delete(ctx, m.Path(3)); err != nil {
		t.Fatal(err)
	}
	latest(2, "first")
	writeSnapshot(t, st, m, 3, "again")
	// Same size as the old file: the modification time tells them apart.
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(dir, m.Path(3)), old, old); err != nil {
		t.Fatal(err)
	}
	latest(3, "again")
	writeSnapshot(t, st, m, 4, "again")
	latest(4, "again")
	s, err := m.Snapshot(ctx, 3)
	if err != nil || s.CommitUser != "again" {
		t.Fatalf("Snapshot(3) = %v, %v", s, err)
	}
}
