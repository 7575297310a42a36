package snapshot_test

import (
	"context"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot"
)

// TestOrphanFilesRemovesOldTemporaryFiles: the hidden temporary files a
// killed writer leaves in the folders of a table on a local store (the
// kill -9 test finds 17–19 per run) are orphans: cleaning deletes those
// older than its guard in every folder of the table, keeps the younger
// ones (a writer may be writing them), lists them in a dry run without
// deleting, and the table still reads every snapshot.
func TestOrphanFilesRemovesOldTemporaryFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := storage.Open(ctx, "file://"+filepath.ToSlash(dir)+"?fsync=false")
	if err != nil {
		t.Fatal(err)
	}
	newTestTable(t, st)
	m := &expireModel{t: t, ctx: ctx, st: st, rng: rand.New(rand.NewPCG(9, 7)),
		clock: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), content: map[string]string{},
		live: map[string]map[snapshot.SnapshotID]model{snapshot.MainBranch: {}}, consumers: map[string]snapshot.SnapshotID{}}
	for range 6 {
		m.commit(snapshot.MainBranch)
	}
	if err := os.MkdirAll(filepath.Join(dir, "tag"), 0o755); err != nil {
		t.Fatal(err)
	}
	guard := time.Now().Add(-24 * time.Hour)
	var oldTemps, youngTemps []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		for i, mod := range []time.Time{guard.Add(-time.Hour), guard.Add(time.Hour)} {
			name := filepath.Join(p, "."+filepath.Base(p)+"-file."+[]string{"old", "young"}[i]+".tmp")
			if err := os.WriteFile(name, []byte("partial"), 0o644); err != nil {
				return err
			}
			if err := os.Chtimes(name, mod, mod); err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, name)
			if i == 0 {
				oldTemps = append(oldTemps, filepath.ToSlash(rel))
			} else {
				youngTemps = append(youngTemps, filepath.ToSlash(rel))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(oldTemps) < 6 { // root, schema, snapshot, manifest, tag, bucket folders
		t.Fatalf("temporary files in %d folders: %v", len(oldTemps), oldTemps)
	}
	exists := func(p string) bool {
		_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p)))
		return err == nil
	}

	dry, err := snapshot.RemoveOrphanFiles(ctx, st, guard, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range oldTemps {
		if !slices.Contains(dry.Paths, p) {
			t.Errorf("the dry run does not list %s (older than the guard)", p)
		}
		if !exists(p) {
			t.Errorf("the dry run deleted %s", p)
		}
	}
	res, err := snapshot.RemoveOrphanFiles(ctx, st, guard, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Files != dry.Files {
		t.Errorf("the cleaning deleted %d files, the dry run listed %d", res.Files, dry.Files)
	}
	for _, p := range res.Paths {
		if !storage.IsTempPath(p) {
			t.Errorf("the cleaning deleted %s, not a temporary file (every file of the table is referenced)", p)
		}
	}
	for _, p := range oldTemps {
		if exists(p) {
			t.Errorf("%s is older than the guard and left", p)
		}
	}
	for _, p := range youngTemps {
		if !exists(p) {
			t.Errorf("%s is younger than the guard (a writer may be writing it) and was deleted", p)
		}
		if slices.Contains(res.Paths, p) {
			t.Errorf("the cleaning lists %s, younger than the guard", p)
		}
	}
	again, err := snapshot.RemoveOrphanFiles(ctx, st, guard, true)
	if err != nil || again.Files != 0 {
		t.Errorf("a second cleaning finds %v (%v)", again.Paths, err)
	}
	if !strings.HasPrefix(oldTemps[0], ".") { // the table root's own
		t.Errorf("no temporary file in the table's root folder: %v", oldTemps)
	}
	m.verify()
}

// TestOrphanFilesRemovesOldClockProbes: the empty clock probe an earlier
// lakesql's CREATE TABLE wrote at the top of the table folder
// (".lakesql-clock-<uuid>") and was killed before deleting is an orphan:
// cleaning deletes it once older than its guard and leaves a younger one
// and a drop's marker.
func TestOrphanFilesRemovesOldClockProbes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := storage.Open(ctx, "file://"+filepath.ToSlash(dir)+"?fsync=false")
	if err != nil {
		t.Fatal(err)
	}
	newTestTable(t, st)
	guard := time.Now().Add(-24 * time.Hour)
	files := map[string]time.Time{
		".lakesql-clock-old":                    guard.Add(-time.Hour),
		".lakesql-clock-young":                  guard.Add(time.Hour),
		snapshot.TableDroppingPrefix + "marker": guard.Add(-time.Hour),
	}
	for name, mod := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	res, err := snapshot.RemoveOrphanFiles(ctx, st, guard, false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Paths, []string{".lakesql-clock-old"}) {
		t.Errorf("the cleaning deleted %v, want the old clock probe", res.Paths)
	}
	for name := range files {
		_, err := os.Stat(filepath.Join(dir, name))
		if gone := err != nil; gone != (name == ".lakesql-clock-old") {
			t.Errorf("%s: gone %v after the cleaning", name, gone)
		}
	}
}
