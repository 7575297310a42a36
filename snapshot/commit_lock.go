package snapshot

import (
	"context"
	"slices"
	"sync"

	"github.com/lakesql/lakesql/internal/storage"
)

// Commits to one table (branch) from one process take turns: a commit
// attempt holds its table's lock from reading the latest snapshot to
// publishing the next one. Two writers of one process (a statement and a
// background compaction) then never lose the race for a snapshot id to
// each other, which would cost the loser a re-plan, rewritten manifests and
// a backoff sleep; writers in other processes still race, and the commit
// protocol resolves that. (Java gets the same from its single committer per
// table.)
//
// A multi-table transaction holds the locks of all its tables at once
// (LockCommits, in sorted order, so two of them never deadlock) while it
// checks its conflicts and publishes; its own commits run under a context
// that says so and do not lock again.
var commitLocks struct {
	mu sync.Mutex
	m  map[string]*sync.Mutex
}

// CommitLockKey names the commit lock of one branch of the table rooted
// at st.
func CommitLockKey(st storage.Storage, branch string) string {
	if IsMainBranch(branch) {
		branch = MainBranch
	}
	return st.URL() + "#" + branch
}

type heldLocksKey struct{}

// lockCommits takes the commit lock of key, unless ctx says the caller
// holds it already (LockCommits), and returns its release.
func lockCommits(ctx context.Context, key string) (unlock func()) {
	if held, _ := ctx.Value(heldLocksKey{}).([]string); slices.Contains(held, key) {
		return func() {}
	}
	l := commitLock(key)
	l.Lock()
	return l.Unlock
}

func commitLock(key string) *sync.Mutex {
	commitLocks.mu.Lock()
	defer commitLocks.mu.Unlock()
	if commitLocks.m == nil {
		commitLocks.m = map[string]*sync.Mutex{}
	}
	l, ok := commitLocks.m[key]
	if !ok {
		l = &sync.Mutex{}
		commitLocks.m[key] = l
	}
	return l
}

// LockCommits takes the commit locks of keys (CommitLockKey), in sorted
// order, and returns a context under which commits to those tables do not
// take them again, and the release (which may be called more than once). While they are held no other writer of
// this process commits to those tables.
func LockCommits(ctx context.Context, keys []string) (context.Context, func()) {
	keys = slices.Clone(keys)
	slices.Sort(keys)
	keys = slices.Compact(keys)
	held, _ := ctx.Value(heldLocksKey{}).([]string)
	var locked []*sync.Mutex
	for _, k := range keys {
		if slices.Contains(held, k) {
			continue
		}
		l := commitLock(k)
		l.Lock()
		locked = append(locked, l)
	}
	all := append(slices.Clone(held), keys...)
	var once sync.Once
	return context.WithValue(ctx, heldLocksKey{}, all), func() {
		once.Do(func() {
			for i := len(locked) - 1; i >= 0; i-- {
				locked[i].Unlock()
			}
		})
	}
}
