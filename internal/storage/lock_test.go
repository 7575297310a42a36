package storage_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/metrics"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/internal/storage/storagetest"
)

// overwriting is a local folder whose CreateIfNotExists overwrites (a
// store that ignores If-None-Match: *).
func overwriting(t *testing.T) storage.Storage {
	return storage.NewFaulty(open(t, t.TempDir()), &storage.Injector{Overwrite: true})
}

func parseLock(t *testing.T, spec string, timeout time.Duration) storage.Locker {
	t.Helper()
	l, err := storage.ParseLock(spec, timeout)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestCommitLockConformance: a store without conditional create, wrapped
// with a file: commit lock, passes the whole conformance suite (16 racers
// per path, one winner); the same store without the lock does not.
func TestCommitLockConformance(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Storage {
		return storage.WithLock(overwriting(t), parseLock(t, "file:"+t.TempDir(), time.Minute))
	})
	t.Run("WithoutLock", func(t *testing.T) {
		s := overwriting(t)
		ctx := context.Background()
		if err := s.CreateIfNotExists(ctx, "snapshot/snapshot-1", []byte("a")); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateIfNotExists(ctx, "snapshot/snapshot-1", []byte("b")); err != nil {
			t.Fatalf("the overwriting store refused the second create (%v): it is not the store this test needs", err)
		}
	})
}

// TestCommitLockTwoLockers: two lockers of one folder (two servers) on
// one key exclude each other: a read-modify-write counter under the lock
// loses no increment.
func TestCommitLockTwoLockers(t *testing.T) {
	dir := t.TempDir()
	lockers := []storage.Locker{parseLock(t, "file:"+dir, time.Minute), parseLock(t, "file:"+dir, time.Minute)}
	ctx := context.Background()
	counter := 0
	var wg sync.WaitGroup
	const each = 200
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l := lockers[g%2]
			for range each {
				unlock, err := l.Lock(ctx, "db.db/t/snapshot")
				if err != nil {
					errs <- err
					return
				}
				v := counter
				time.Sleep(time.Microsecond)
				counter = v + 1
				if err := unlock(); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if counter != 8*each {
		t.Fatalf("counter = %d, want %d: the lockers did not exclude each other", counter, 8*each)
	}
}

// TestCommitLockTimeoutAndCancel: a held lock makes a waiter fail after
// the timeout with ErrLockTimeout, a canceled wait fails at once with the
// context's error, a wait stopped by WithLockWaitStop with
// context.Canceled; all wrap ErrLock and the guarded create writes
// nothing. Other keys are not held.
func TestCommitLockTimeoutAndCancel(t *testing.T) {
	dir := t.TempDir()
	holder := parseLock(t, "file:"+dir, time.Minute)
	ctx := context.Background()
	unlock, err := holder.Lock(ctx, "db.db/t/snapshot")
	if err != nil {
		t.Fatal(err)
	}
	failures, waits := metrics.CommitLockFailures.Load(), metrics.CommitLockWait.Snapshot().Count
	st := storage.WithLock(overwriting(t), parseLock(t, "file:"+dir, 50*time.Millisecond))
	err = st.Sub("db.db/t").CreateIfNotExists(ctx, "snapshot/snapshot-1", []byte("x"))
	if !errors.Is(err, storage.ErrLockTimeout) || !errors.Is(err, storage.ErrLock) || !strings.Contains(err.Error(), "commit-lock-timeout") {
		t.Fatalf("create under a held lock: %v, want ErrLockTimeout naming commit-lock-timeout", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	err = st.CreateIfNotExists(cctx, "db.db/t/snapshot/snapshot-1", []byte("x"))
	if !errors.Is(err, storage.ErrLock) || !errors.Is(err, context.Canceled) {
		t.Fatalf("create with a canceled context: %v, want ErrLock wrapping context.Canceled", err)
	}
	// A wait stopped through WithLockWaitStop under a context that is
	// never canceled.
	stop := make(chan struct{})
	time.AfterFunc(20*time.Millisecond, func() { close(stop) })
	slow := storage.WithLock(overwriting(t), parseLock(t, "file:"+dir, time.Minute))
	err = slow.CreateIfNotExists(storage.WithLockWaitStop(context.WithoutCancel(ctx), stop), "db.db/t/snapshot/snapshot-1", []byte("x"))
	if !errors.Is(err, storage.ErrLock) || !errors.Is(err, context.Canceled) || errors.Is(err, storage.ErrLockTimeout) {
		t.Fatalf("create whose lock wait was stopped: %v, want ErrLock wrapping context.Canceled", err)
	}
	if ok, err := st.Exists(ctx, "db.db/t/snapshot/snapshot-1"); err != nil || ok {
		t.Fatalf("a create that did not get the lock wrote its file (exists %v, %v)", ok, err)
	}
	if err := st.CreateIfNotExists(ctx, "db.db/t/tag/tag-a", []byte("x")); err != nil {
		t.Fatalf("another key: %v", err)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	if err := st.CreateIfNotExists(ctx, "db.db/t/snapshot/snapshot-1", []byte("x")); err != nil {
		t.Fatalf("after the release: %v", err)
	}
	if err := st.CreateIfNotExists(ctx, "db.db/t/snapshot/snapshot-1", []byte("y")); !errors.Is(err, storage.ErrExist) {
		t.Fatalf("second create: %v, want ErrExist", err)
	}
	// lakesql_commit_lock_failures_total and _wait_seconds: 3 failures
	// (timeout, cancel, stop), 3 locks taken (tag, create, second create);
	// other tests of the package may run in parallel only by -parallel,
	// which these do not use.
	if got := metrics.CommitLockFailures.Load() - failures; got != 3 {
		t.Errorf("lock failures counted: %d, want 3", got)
	}
	if got := metrics.CommitLockWait.Snapshot().Count - waits; got != 3 {
		t.Errorf("lock waits observed: %d, want 3", got)
	}
}

// Environment of the child process of TestCommitLockHolderKilled.
const envLockHolder = "LAKESQL_STORAGE_LOCK_HOLDER" // the lock folder; marks the child

// TestCommitLockHolderKilled: a process killed (SIGKILL) while it holds
// the lock does not block the others: while it lives a waiter times out,
// once it is dead the lock is taken at once.
func TestCommitLockHolderKilled(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCommitLockHolderChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), envLockHolder+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	sc := bufio.NewScanner(out)
	held := false
	for sc.Scan() {
		if sc.Text() == "HELD" {
			held = true
			break
		}
	}
	if !held {
		t.Fatalf("the child never held the lock (%v)", sc.Err())
	}
	ctx := context.Background()
	waiter := parseLock(t, "file:"+dir, 100*time.Millisecond)
	if _, err := waiter.Lock(ctx, "db.db/t/snapshot"); !errors.Is(err, storage.ErrLockTimeout) {
		t.Fatalf("lock held by a live process: %v, want ErrLockTimeout", err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	waiter = parseLock(t, "file:"+dir, 10*time.Second)
	unlock, err := waiter.Lock(ctx, "db.db/t/snapshot")
	if err != nil {
		t.Fatalf("lock of a killed holder: %v", err)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
}

// TestCommitLockHolderChild is the child of TestCommitLockHolderKilled:
// it takes the lock, says so and waits to be killed. On its own it does
// nothing.
func TestCommitLockHolderChild(t *testing.T) {
	dir := os.Getenv(envLockHolder)
	if dir == "" {
		return
	}
	l := parseLock(t, "file:"+dir, time.Minute)
	if _, err := l.Lock(context.Background(), "db.db/t/snapshot"); err != nil {
		t.Fatal(err)
	}
	fmt.Println("HELD")
	time.Sleep(time.Minute)
	t.Fatal("not killed within a minute")
}

// TestParseLock: the setting's forms, and clear errors for the others.
func TestParseLock(t *testing.T) {
	dir := t.TempDir()
	for _, spec := range []string{"", "none", " NONE "} {
		if l, err := storage.ParseLock(spec, 0); l != nil || err != nil {
			t.Errorf("ParseLock(%q) = %v, %v, want no lock", spec, l, err)
		}
	}
	for _, spec := range []string{"file:" + dir + "/a", "file://" + dir + "/b"} {
		l, err := storage.ParseLock(spec, 0)
		if err != nil {
			t.Fatalf("ParseLock(%q): %v", spec, err)
		}
		if want := "file:" + filepath.Join(dir, spec[len(spec)-1:]); l.String() != want {
			t.Errorf("ParseLock(%q).String() = %q, want %q", spec, l.String(), want)
		}
	}
	for _, spec := range []string{"file:", "zookeeper:x", "flock", "/tmp/x"} {
		if _, err := storage.ParseLock(spec, 0); err == nil || !strings.Contains(err.Error(), "file:") {
			t.Errorf("ParseLock(%q) = %v, want an error naming the file: form", spec, err)
		}
	}
	// A lock folder that cannot be created.
	f := filepath.Join(dir, "plain")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := storage.ParseLock("file:"+f+"/sub", 0); err == nil {
		t.Error("ParseLock of a folder under a file: no error")
	}
}

// FuzzCheckLock: any setting either is refused with an error naming the
// accepted forms, or is none or a file: lock with a folder.
func FuzzCheckLock(f *testing.F) {
	for _, s := range []string{"", "none", "file:/x", "file:///x", "file:", "file://", "zk:x", " NONE ", "file:rel/dir"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		err := storage.CheckLock(spec)
		trimmed := strings.TrimSpace(spec)
		switch {
		case err != nil:
			if !strings.Contains(err.Error(), "file:/path/to/lock-folder") {
				t.Fatalf("CheckLock(%q) = %v: does not name the accepted form", spec, err)
			}
		case trimmed == "" || strings.EqualFold(trimmed, "none"):
		case strings.HasPrefix(trimmed, "file:") && strings.TrimPrefix(strings.TrimPrefix(trimmed, "file:"), "//") != "":
		default:
			t.Fatalf("CheckLock(%q) accepted a setting that is neither none nor file:DIR", spec)
		}
	})
}
