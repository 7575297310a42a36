//go:build linux

package storage

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestDirVersionSeesEveryChange: after every random change to a watched
// folder or a folder above it — by this process or by another (sh) — a
// statement started after the change gets a new version; a statement
// started with nothing changed gets the same one (the shortcut works). The
// path re-pointed at another folder (the table folder renamed away and
// created again) keeps being watched by path.
func TestDirVersionSeesEveryChange(t *testing.T) {
	root := t.TempDir()
	if !watchable(root) {
		t.Fatalf("%s: file system not watchable (the test needs ext4, xfs, btrfs, tmpfs or overlay)", root)
	}
	st, err := OpenLocal(root)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	w := st.(DirWatcher)
	dir := "db.db/t/snapshot"
	abs := filepath.Join(root, filepath.FromSlash(dir))
	mkdir := func() {
		if err := os.MkdirAll(abs, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mkdir()
	version := func() (uint64, bool) { return w.DirVersion(WithStatementStart(ctx, time.Now()), dir) }
	last, ok := version()
	if !ok {
		t.Fatal("a folder of a local store on a watchable file system is not watched")
	}
	sh := func(cmd string) {
		if out, err := exec.Command("sh", "-c", cmd).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v %s", cmd, err, out)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	n := 0
	changes := []func(){
		func() { // a new file (this process)
			n++
			if err := st.WriteAll(ctx, dir+"/snapshot-"+strconv.Itoa(n), []byte("x")); err != nil {
				t.Fatal(err)
			}
		},
		func() { // a new file from another process
			n++
			sh("echo x > " + filepath.Join(abs, "snapshot-"+strconv.Itoa(n)))
		},
		func() { // a file deleted by another process
			sh("rm -f " + filepath.Join(abs, "snapshot-*") + "; touch " + filepath.Join(abs, "keep"))
		},
		func() { // a file rewritten in place
			if err := os.WriteFile(filepath.Join(abs, "keep"), []byte(strconv.Itoa(r.Int())), 0o644); err != nil {
				t.Fatal(err)
			}
		},
		func() { // a modification time set back
			old := time.Now().Add(-time.Hour)
			_ = os.WriteFile(filepath.Join(abs, "keep"), nil, 0o644)
			if err := os.Chtimes(filepath.Join(abs, "keep"), old, old); err != nil {
				t.Fatal(err)
			}
		},
		func() { // the table folder renamed away and created again
			n++
			sh("mv " + filepath.Join(root, "db.db/t") + " " + filepath.Join(root, "db.db/t-"+strconv.Itoa(n)))
			mkdir()
		},
		func() { // the database folder renamed by another process and created again
			n++
			sh("mv " + filepath.Join(root, "db.db") + " " + filepath.Join(root, "old-"+strconv.Itoa(n)) + " && mkdir -p " + abs)
		},
		func() { // the folder removed and created again
			if err := os.RemoveAll(filepath.Join(root, "db.db/t")); err != nil {
				t.Fatal(err)
			}
			mkdir()
		},
	}
	shortcuts := 0
	for i := 0; i < 400; i++ {
		if r.IntN(3) == 0 {
			v, ok := version()
			if !ok || v != last {
				t.Fatalf("step %d: nothing changed, version %d→%d (ok %v)", i, last, v, ok)
			}
			shortcuts++
			continue
		}
		k := r.IntN(len(changes))
		changes[k]()
		v, ok := version()
		if !ok {
			t.Fatalf("step %d: change %d: not watched", i, k)
		}
		if v == last {
			t.Fatalf("step %d: change %d not seen: version %d unchanged", i, k, v)
		}
		last = v
		// A change inside the folder after it is watched again.
		if r.IntN(2) == 0 {
			n++
			sh("echo y > " + filepath.Join(abs, "x-"+strconv.Itoa(n)))
			if v, _ := version(); v == last {
				t.Fatalf("step %d: change after change %d not seen", i, k)
			}
			last, _ = version()
		}
	}
	if shortcuts == 0 {
		t.Fatal("no unchanged step")
	}
}

// TestDirVersionSharesOneCollection: a statement started before the last
// collection of changes is answered from it (a change after its start may
// or may not be seen); one started after a change always sees it.
func TestDirVersionSharesOneCollection(t *testing.T) {
	root := t.TempDir()
	st, err := OpenLocal(root)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	w := st.(DirWatcher)
	if err := os.MkdirAll(filepath.Join(root, "s"), 0o755); err != nil {
		t.Fatal(err)
	}
	early := WithStatementStart(ctx, time.Now())
	v1, ok := w.DirVersion(early, "s")
	if !ok {
		t.Fatal("not watched")
	}
	if err := st.WriteAll(ctx, "s/a", []byte("x")); err != nil {
		t.Fatal(err)
	}
	// The early statement started before the write: the collection made
	// for it serves it again.
	if v, _ := w.DirVersion(early, "s"); v != v1 {
		t.Fatalf("a statement's second check collected again: %d → %d", v1, v)
	}
	if v, _ := w.DirVersion(WithStatementStart(ctx, time.Now()), "s"); v == v1 {
		t.Fatal("a statement started after a write did not see it")
	}
	// Without a recorded start every call collects.
	v2, _ := w.DirVersion(ctx, "s")
	if err := st.WriteAll(ctx, "s/b", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if v, _ := w.DirVersion(ctx, "s"); v == v2 {
		t.Fatal("a call without a start did not see a write before it")
	}
	// A folder outside the store, or missing, is not watched.
	if _, ok := w.DirVersion(ctx, "missing"); ok {
		t.Fatal("a missing folder is watched")
	}
}
