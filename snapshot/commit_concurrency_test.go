package snapshot_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// appendFiles commits n single-file appends as writer w.
func appendFiles(t testing.TB, st storage.Storage, w string, n int) error {
	opts := testOptions()
	opts.MaxRetries = 1000
	c := snapshot.NewCommitter(st, opts)
	for i := range n {
		f := fileSpec{name: fmt.Sprintf("data-%s-%d.parquet", w, i), part: int32(i % 3), bucket: int32(i % 2), rows: 1}
		s, err := c.Commit(context.Background(), 0, &snapshot.CommitChanges{
			Kind: snapshot.CommitKindAppend, Entries: []manifest.ManifestEntry{add(t, f)},
			CommitUser: "writer-" + w, CommitIdentifier: int64(i),
		})
		if err != nil {
			return fmt.Errorf("writer %s commit %d: %w", w, i, err)
		}
		if s.CommitUser != "writer-"+w || s.CommitIdentifier != int64(i) {
			return fmt.Errorf("writer %s commit %d returned snapshot %d of %s/%d", w, i, s.ID, s.CommitUser, s.CommitIdentifier)
		}
	}
	return nil
}

// checkConcurrentResult checks that the table holds exactly the snapshots
// 1..total, one per commit, and that no file was lost.
func checkConcurrentResult(t *testing.T, st storage.Storage, writers []string, perWriter int) {
	t.Helper()
	ctx := context.Background()
	sm := snapshot.NewSnapshotManager(st, "")
	all, err := sm.All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	total := len(writers) * perWriter
	if len(all) != total {
		t.Fatalf("%d snapshots, want %d", len(all), total)
	}
	seen := map[string]bool{}
	for i, s := range all {
		if s.ID != snapshot.SnapshotID(i+1) {
			t.Fatalf("snapshot ids not consecutive at %d: %d", i, s.ID)
		}
		k := s.CommitUser + "/" + strconv.FormatInt(s.CommitIdentifier, 10)
		if seen[k] {
			t.Fatalf("commit %s published twice", k)
		}
		seen[k] = true
		if s.TotalRecordCount != int64(i+1) {
			t.Fatalf("snapshot %d totalRecordCount = %d", s.ID, s.TotalRecordCount)
		}
	}
	m := model{}
	for _, w := range writers {
		for i := range perWriter {
			m.apply(t, []manifest.ManifestEntry{add(t, fileSpec{name: fmt.Sprintf("data-%s-%d.parquet", w, i), part: int32(i % 3), bucket: int32(i % 2), rows: 1})})
		}
	}
	checkLive(t, st, all[len(all)-1], m)
	if id, ok, err := sm.LatestID(ctx); err != nil || !ok || id != snapshot.SnapshotID(total) {
		t.Fatalf("LatestID = %d, %v, %v", id, ok, err)
	}
}

func TestCommitConcurrentGoroutines(t *testing.T) {
	for _, backend := range []string{"mem", "dir"} {
		t.Run(backend, func(t *testing.T) {
			var st storage.Storage
			if backend == "mem" {
				st = openMem(t)
			} else {
				st = openDir(t, "file://"+t.TempDir()+"?fsync=false")
			}
			newTestTable(t, st)
			const goroutines, perWriter = 8, 6
			var writers []string
			for g := range goroutines {
				writers = append(writers, "g"+strconv.Itoa(g))
			}
			errs := make([]error, goroutines)
			var wg sync.WaitGroup
			for g, w := range writers {
				wg.Go(func() { errs[g] = appendFiles(t, st, w, perWriter) })
			}
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
			checkConcurrentResult(t, st, writers, perWriter)
		})
	}
}

const helperEnv = "LAKESQL_COMMIT_HELPER"

// TestCommitHelperProcess is the child of TestCommitConcurrentProcesses;
// it does nothing unless started by it.
func TestCommitHelperProcess(t *testing.T) {
	spec := os.Getenv(helperEnv)
	if spec == "" {
		return
	}
	// spec = <writer>:<commits>:<table dir>
	parts := splitN(spec, 3)
	n, err := strconv.Atoi(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	st, err := storage.Open(context.Background(), "file://"+parts[2]+"?fsync=false")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := appendFiles(t, st, parts[0], n); err != nil {
		t.Fatal(err)
	}
}

func splitN(s string, n int) []string {
	var out []string
	for range n - 1 {
		i := 0
		for i < len(s) && s[i] != ':' {
			i++
		}
		out = append(out, s[:i])
		s = s[min(i+1, len(s)):]
	}
	return append(out, s)
}

// TestCommitConcurrentProcesses: two OS processes (the test binary run
// again) and two goroutines of this one append to one table at once.
func TestCommitConcurrentProcesses(t *testing.T) {
	dir := t.TempDir()
	st := openDir(t, "file://"+dir+"?fsync=false")
	newTestTable(t, st)
	const perWriter = 10
	writers := []string{"p0", "p1", "local0", "local1"}
	var cmds []*exec.Cmd
	outs := make([]*bytes.Buffer, 2)
	for _, w := range writers[:2] {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCommitHelperProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s:%d:%s", helperEnv, w, perWriter, dir))
		outs[len(cmds)] = &bytes.Buffer{}
		cmd.Stdout, cmd.Stderr = outs[len(cmds)], outs[len(cmds)]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, w := range writers[2:] {
		wg.Go(func() { errs[i] = appendFiles(t, st, w, perWriter) })
	}
	wg.Wait()
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("process %s: %v\n%s", writers[i], err, outs[i])
		}
	}
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	checkConcurrentResult(t, st, writers, perWriter)
	// Every process committed: its commit user shows up.
	all, _ := snapshot.NewSnapshotManager(st, "").All(context.Background())
	users := map[string]int{}
	order := ""
	for _, s := range all {
		users[s.CommitUser]++
		order += s.CommitUser[len("writer-"):] + " "
	}
	t.Logf("commit order: %s", order)
	for _, w := range writers {
		if users["writer-"+w] != perWriter {
			t.Fatalf("commits per user = %v", users)
		}
	}
}

// TestRollbackWhileCommitting: rollbacks of a table while another
// goroutine of the process keeps committing to it (a server's background
// compaction during CALL sys.rollback_to) leave consecutive snapshot ids:
// a commit published while the rollback deleted the newer snapshots must
// not survive it after a gap.
func TestRollbackWhileCommitting(t *testing.T) {
	ctx := context.Background()
	st := openDir(t, "file://"+t.TempDir()+"?fsync=false")
	newTestTable(t, st)
	if err := appendFiles(t, st, "base", 3); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- appendFiles(t, st, "w", 150) }()
	tbl := snapshot.OpenTable(st, "")
	sm := snapshot.NewSnapshotManager(st, "")
	check := func(when string) {
		t.Helper()
		all, err := sm.All(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(all); i++ {
			if all[i].ID != all[i-1].ID+1 {
				t.Fatalf("%s: snapshot %d follows %d", when, all[i].ID, all[i-1].ID)
			}
		}
	}
	for round := 0; ; round++ {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			check("at the end")
			return
		default:
		}
		latest, ok, err := sm.LatestID(ctx)
		if err != nil || !ok {
			t.Fatalf("latest: %v %v", ok, err)
		}
		target := max(latest-1, 3)
		if _, err := tbl.RollbackToSnapshot(ctx, target); err != nil {
			t.Fatalf("round %d: rollback to %d: %v", round, target, err)
		}
		check(fmt.Sprintf("round %d, after the rollback to %d", round, target))
	}
}
