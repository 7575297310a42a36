package snapshot_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

var errInjected = errors.New("injected fault")

// faultStorage fails the k-th mutating call (WriteAll, Create,
// CreateIfNotExists, Delete). With after set the call takes effect first
// and then reports the error (a lost acknowledgement).
type faultStorage struct {
	storage.Storage
	mu     sync.Mutex
	n      int
	failAt int
	after  bool
	fired  bool
	what   string
}

func (f *faultStorage) fail(op, path string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	if f.n == f.failAt {
		f.fired = true
		f.what = op + " " + path
		return true
	}
	return false
}

func (f *faultStorage) WriteAll(ctx context.Context, p string, data []byte) error {
	if f.fail("WriteAll", p) {
		if f.after {
			_ = f.Storage.WriteAll(ctx, p, data)
		}
		return errInjected
	}
	return f.Storage.WriteAll(ctx, p, data)
}

func (f *faultStorage) CreateIfNotExists(ctx context.Context, p string, data []byte) error {
	if f.fail("CreateIfNotExists", p) {
		if f.after {
			_ = f.Storage.CreateIfNotExists(ctx, p, data)
		}
		return errInjected
	}
	return f.Storage.CreateIfNotExists(ctx, p, data)
}

func (f *faultStorage) Create(ctx context.Context, p string) (io.WriteCloser, error) {
	if f.fail("Create", p) {
		return nil, errInjected
	}
	return f.Storage.Create(ctx, p)
}

func (f *faultStorage) Delete(ctx context.Context, p string) error {
	if f.fail("Delete", p) {
		if f.after {
			_ = f.Storage.Delete(ctx, p)
		}
		return errInjected
	}
	return f.Storage.Delete(ctx, p)
}

// TestCommitFaultAtEveryWrite commits an update (DELETE + ADDs + a DV
// index file + changelog, with manifest merging) while failing the k-th
// write, for every k, in both fault modes. The table must always read as
// either the old or the new state, a successful Commit must be visible,
// and a later commit must succeed on whatever was left.
func TestCommitFaultAtEveryWrite(t *testing.T) {
	for _, after := range []bool{false, true} {
		t.Run(fmt.Sprintf("after=%v", after), func(t *testing.T) {
			for k := 1; ; k++ {
				if !faultRun(t, k, after) {
					t.Logf("%d fault points", k-1)
					break
				}
				if k > 200 {
					t.Fatal("fault loop does not end")
				}
			}
		})
	}
}

// faultRun runs one scenario failing write k; it reports whether the
// fault fired.
func faultRun(t *testing.T, k int, after bool) bool {
	ctx := context.Background()
	st := openMem(t)
	newTestTable(t, st)
	opts := testOptions()
	opts.ManifestMergeMinCount = 2 // a merge happens in the faulty commit
	setup := snapshot.NewCommitter(st, opts)
	m := model{}
	f1 := fileSpec{name: "data-1.parquet", part: 1, bucket: 0, rows: 3}
	f2 := fileSpec{name: "data-2.parquet", part: 2, bucket: 1, rows: 4}
	for i, f := range []fileSpec{f1, f2} {
		e := []manifest.ManifestEntry{add(t, f)}
		commitOrFail(t, setup, &snapshot.CommitChanges{Kind: snapshot.CommitKindAppend, Entries: e, CommitUser: "setup", CommitIdentifier: int64(i)})
		m.apply(t, e)
	}
	oldModel := m.clone()
	sm := snapshot.NewSnapshotManager(st, "")
	oldLatest, err := sm.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}

	fs := &faultStorage{Storage: st, failAt: k, after: after}
	c := snapshot.NewCommitter(fs, opts)
	changes := []manifest.ManifestEntry{del(t, f1), add(t, fileSpec{name: "data-3.parquet", part: 1, rows: 2})}
	dv := manifest.IndexManifestEntry{Kind: manifest.FileKindAdd, Partition: partition(t, 1),
		IndexFile: manifest.IndexFileMeta{IndexType: manifest.IndexTypeDeletionVectors, FileName: "index-1", FileSize: 31, RowCount: 1}}
	res, cerr := c.Commit(ctx, 0, &snapshot.CommitChanges{
		Kind: snapshot.CommitKindAppend, Entries: changes, IndexChanges: []manifest.IndexManifestEntry{dv},
		ChangelogEntries: []manifest.ManifestEntry{add(t, fileSpec{name: "changelog-1.parquet", part: 1, rows: 2})},
		CommitUser:       "faulty", CommitIdentifier: 99,
	})
	// A failed publish is retried (and an acknowledgement lost after the
	// snapshot landed is recognized); a failed hint never fails a commit.
	if (strings.HasPrefix(fs.what, "CreateIfNotExists") || strings.HasSuffix(fs.what, snapshot.LatestHint)) && cerr != nil {
		t.Fatalf("k=%d (%s): Commit failed: %v", k, fs.what, cerr)
	}
	newModel := oldModel.clone()
	newModel.apply(t, changes)

	// Read back with the healthy storage.
	ids, err := sm.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	latest, err := sm.Latest(ctx)
	if err != nil {
		t.Fatalf("k=%d (%s): latest: %v", k, fs.what, err)
	}
	switch {
	case latest.ID == oldLatest.ID:
		if cerr == nil {
			t.Fatalf("k=%d (%s): Commit succeeded but no snapshot is visible", k, fs.what)
		}
		checkLive(t, st, latest, oldModel)
	case latest.ID == oldLatest.ID+1 && len(ids) == int(oldLatest.ID)+1:
		if latest.CommitUser != "faulty" || latest.CommitKind != snapshot.CommitKindOverwrite {
			t.Fatalf("k=%d: snapshot %+v", k, latest)
		}
		checkLive(t, st, latest, newModel)
		if latest.IndexManifest == nil {
			t.Fatalf("k=%d: no index manifest", k)
		}
		if res != nil && res.ID != latest.ID {
			t.Fatalf("k=%d: Commit returned snapshot %d, latest is %d", k, res.ID, latest.ID)
		}
	default:
		t.Fatalf("k=%d (%s): snapshots %v after one commit on %d (err %v)", k, fs.what, ids, oldLatest.ID, cerr)
	}
	for _, id := range ids {
		s, err := sm.Snapshot(ctx, id)
		if err != nil {
			t.Fatalf("k=%d: %v", k, err)
		}
		if _, err := snapshot.LiveEntries(ctx, st, s, nil); err != nil {
			t.Fatalf("k=%d: snapshot %d unreadable: %v", k, id, err)
		}
	}
	// Whatever was left, the next commit works.
	e := []manifest.ManifestEntry{add(t, fileSpec{name: "data-9.parquet", part: 9, rows: 1})}
	s, err := snapshot.NewCommitter(st, opts).Commit(ctx, 0, &snapshot.CommitChanges{Kind: snapshot.CommitKindAppend, Entries: e, CommitUser: "next"})
	if err != nil {
		t.Fatalf("k=%d: next commit: %v", k, err)
	}
	want := oldModel
	if latest.ID != oldLatest.ID {
		want = newModel
	}
	want.apply(t, e)
	checkLive(t, st, s, want)
	return fs.fired
}
