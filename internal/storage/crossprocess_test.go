package storage_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/storage"
)

// Environment of the child processes of TestCreateIfNotExistsAcrossProcesses.
const (
	envRaceDir   = "LAKESQL_STORAGE_RACE_DIR"   // the shared folder; marks a child
	envRaceChild = "LAKESQL_STORAGE_RACE_CHILD" // the child's number
	envRacePaths = "LAKESQL_STORAGE_RACE_PATHS" // how many paths to race on
	// envRaceLock, when set, is a commit lock (file:DIR): the child races
	// through a store without conditional create wrapped with it.
	envRaceLock = "LAKESQL_STORAGE_RACE_LOCK"
)

func racePath(j int) string { return fmt.Sprintf("snapshot/snapshot-%d", j) }

// raceContent is what child i writes to path j: large enough that a torn
// or interleaved write would show.
func raceContent(child, j int) []byte {
	return bytes.Repeat([]byte(fmt.Sprintf("child %d path %d\n", child, j)), 2000)
}

// TestCreateIfNotExistsAcrossProcesses re-executes this test binary as
// several processes that race CreateIfNotExists on the same file:// paths
// and checks that every path has exactly one winner overall, whose content
// is stored intact.
func TestCreateIfNotExistsAcrossProcesses(t *testing.T) { raceAcrossProcesses(t, "") }

// TestCommitLockAcrossProcesses: the same race through a store whose
// CreateIfNotExists overwrites, each process wrapping it with the same
// file: commit lock: still exactly one winner per path (without the lock
// every path has several).
func TestCommitLockAcrossProcesses(t *testing.T) {
	raceAcrossProcesses(t, "file:"+filepath.Join(t.TempDir(), "locks"))
}

func raceAcrossProcesses(t *testing.T, lock string) {
	const children, paths = 4, 200
	dir := t.TempDir()
	startFile := filepath.Join(dir, "start")
	cmds := make([]*exec.Cmd, children)
	outs := make([]*bytes.Buffer, children)
	for i := range children {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCreateIfNotExistsRaceChild$", "-test.count=1")
		cmd.Env = append(os.Environ(),
			envRaceDir+"="+filepath.Join(dir, "warehouse"),
			envRaceChild+"="+strconv.Itoa(i),
			envRacePaths+"="+strconv.Itoa(paths),
			envRaceLock+"="+lock,
		)
		outs[i] = new(bytes.Buffer)
		cmd.Stdout, cmd.Stderr = outs[i], outs[i]
		if err := cmd.Start(); err != nil {
			t.Fatalf("start child %d: %v", i, err)
		}
		cmds[i] = cmd
	}
	// Release all children at once so their attempts overlap.
	if err := os.WriteFile(startFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	winner := make(map[int]int) // path → child
	wins := make([]int, children)
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("child %d: %v\n%s", i, err, outs[i])
		}
		sc := bufio.NewScanner(outs[i])
		for sc.Scan() {
			var j, c int
			if _, err := fmt.Sscanf(sc.Text(), "WIN %d %d", &j, &c); err != nil {
				continue
			}
			if prev, ok := winner[j]; ok {
				t.Errorf("%s: won by child %d and child %d", racePath(j), prev, c)
			}
			winner[j] = c
			wins[c]++
		}
	}
	if len(winner) != paths {
		t.Fatalf("%d paths have a winner, want %d", len(winner), paths)
	}
	t.Logf("wins per child: %v", wins)

	s := open(t, filepath.Join(dir, "warehouse"))
	ctx := context.Background()
	for j := range paths {
		got, err := s.ReadAll(ctx, racePath(j))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, raceContent(winner[j], j)) {
			t.Fatalf("%s: content is not child %d's", racePath(j), winner[j])
		}
	}
	n := 0
	for info, err := range s.List(ctx, "") {
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(info.Path, "snapshot/snapshot-") {
			t.Errorf("unexpected object %q (a leaked temp file?)", info.Path)
		}
		n++
	}
	if n != paths {
		t.Fatalf("List found %d objects, want %d", n, paths)
	}
}

// TestCreateIfNotExistsRaceChild is the child process of
// TestCreateIfNotExistsAcrossProcesses; on its own it does nothing.
func TestCreateIfNotExistsRaceChild(t *testing.T) {
	dir := os.Getenv(envRaceDir)
	if dir == "" {
		t.Skip("helper process for TestCreateIfNotExistsAcrossProcesses")
	}
	child, err := strconv.Atoi(os.Getenv(envRaceChild))
	if err != nil {
		t.Fatal(err)
	}
	paths, err := strconv.Atoi(os.Getenv(envRacePaths))
	if err != nil {
		t.Fatal(err)
	}
	s, err := storage.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if spec := os.Getenv(envRaceLock); spec != "" {
		l, err := storage.ParseLock(spec, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		s = storage.WithLock(storage.NewFaulty(s, &storage.Injector{Overwrite: true}), l)
	}
	startFile := filepath.Join(filepath.Dir(dir), "start")
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(time.Millisecond) {
		if _, err := os.Stat(startFile); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("start signal never came")
		}
	}
	ctx := context.Background()
	for j := range paths {
		err := s.CreateIfNotExists(ctx, racePath(j), raceContent(child, j))
		switch {
		case err == nil:
			fmt.Printf("WIN %d %d\n", j, child)
		case !errors.Is(err, storage.ErrExist):
			t.Fatalf("child %d, %s: %v", child, racePath(j), err)
		}
	}
}
