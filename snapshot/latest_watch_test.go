package snapshot_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot"
)

// TestLatestSeesOtherWritersWithWatchedFolders: one store reads the latest
// snapshot and schema of a table (a server answering statements, its
// freshness checks shortened by the local store's folder versions) while
// another store of the same warehouse (another server) commits snapshots
// and schemas, rolls back, rewrites a snapshot id, and renames, drops and
// re-creates the table. Every read started after a change equals the
// model: no commit is missed, none is seen after it is gone.
func TestLatestSeesOtherWritersWithWatchedFolders(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	reader, err := storage.OpenLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	writer, err := storage.OpenLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	const table = "db.db/t"
	rst, wst := reader.Sub(table), writer.Sub(table)
	rSnaps, rSchemas := snapshot.NewSnapshotManager(rst, ""), snapshot.NewSchemaManager(rst, "")
	wSnaps, wSchemas := snapshot.NewSnapshotManager(wst, ""), snapshot.NewSchemaManager(wst, "")
	var (
		snaps   []string // commit user of snapshot i+1
		schemas int      // schema-0 … schema-(schemas-1)
		gen     int
	)
	commitSnap := func() {
		gen++
		snaps = append(snaps, fmt.Sprintf("u%d", gen))
		writeSnapshot(t, wst, wSnaps, snapshot.SnapshotID(len(snaps)), snaps[len(snaps)-1])
	}
	commitSchema := func() {
		if err := wst.WriteAll(ctx, wSchemas.Path(schema.SchemaID(schemas)), []byte("{}")); err != nil {
			t.Fatal(err)
		}
		schemas++
	}
	create := func() {
		snaps, schemas = nil, 0
		commitSchema()
		commitSnap()
	}
	create()
	check := func(step int, what string) {
		t.Helper()
		sctx := storage.WithStatementStart(ctx, time.Now())
		for range 2 { // the second read is the shortened one
			s, err := rSnaps.Latest(sctx)
			if err != nil || s.ID != snapshot.SnapshotID(len(snaps)) || s.CommitUser != snaps[len(snaps)-1] {
				t.Fatalf("step %d (%s): latest snapshot %v, %v; want %d by %s", step, what, s, err, len(snaps), snaps[len(snaps)-1])
			}
			id, ok, err := rSchemas.LatestID(sctx)
			if err != nil || !ok || id != schema.SchemaID(schemas-1) {
				t.Fatalf("step %d (%s): latest schema %d %v %v; want %d", step, what, id, ok, err, schemas-1)
			}
		}
	}
	check(0, "create")
	r := rand.New(rand.NewPCG(3, 4))
	for step := 1; step <= 300; step++ {
		var what string
		switch r.IntN(8) {
		case 0, 1:
			what = "commit"
			commitSnap()
		case 2:
			what = "schema"
			commitSchema()
		case 3:
			if len(snaps) < 2 {
				continue
			}
			what = "rollback"
			if err := wst.Delete(ctx, wSnaps.Path(snapshot.SnapshotID(len(snaps)))); err != nil {
				t.Fatal(err)
			}
			snaps = snaps[:len(snaps)-1]
		case 4:
			// The latest id written again by another writer, same size,
			// its modification time set back (an hour before the old
			// file's: size and time tell the files apart).
			what = "rewrite"
			gen++
			snaps[len(snaps)-1] = fmt.Sprintf("u%d", gen)
			p := filepath.Join(dir, table, wSnaps.Path(snapshot.SnapshotID(len(snaps))))
			info, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			writeSnapshot(t, wst, wSnaps, snapshot.SnapshotID(len(snaps)), snaps[len(snaps)-1])
			back := info.ModTime().Add(-time.Hour)
			if err := os.Chtimes(p, back, back); err != nil {
				t.Fatal(err)
			}
		case 5:
			what = "rename and re-create"
			if err := os.Rename(filepath.Join(dir, table), filepath.Join(dir, fmt.Sprintf("%s-%d", table, step))); err != nil {
				t.Fatal(err)
			}
			create()
			for range r.IntN(3) {
				commitSnap()
			}
		case 6:
			what = "drop and re-create"
			if err := os.RemoveAll(filepath.Join(dir, table)); err != nil {
				t.Fatal(err)
			}
			create()
		default:
			what = "nothing"
		}
		check(step, what)
	}
}
