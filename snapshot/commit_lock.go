package snapshot

import "sync"

// Commits to one table (branch) from one process take turns: a commit
// attempt holds its table's lock from reading the latest snapshot to
// publishing the next one. Two writers of one process (a statement and a
// background compaction) then never lose the race for a snapshot id to
// each other, which would cost the loser a re-plan, rewritten manifests and
// a backoff sleep; writers in other processes still race, and the commit
// protocol resolves that. (Java gets the same from its single committer per
// table.)
var commitLocks struct {
	mu sync.Mutex
	m  map[string]*sync.Mutex
}

// lockCommits takes the commit lock of key and returns its release.
func lockCommits(key string) (unlock func()) {
	commitLocks.mu.Lock()
	if commitLocks.m == nil {
		commitLocks.m = map[string]*sync.Mutex{}
	}
	l, ok := commitLocks.m[key]
	if !ok {
		l = &sync.Mutex{}
		commitLocks.m[key] = l
	}
	commitLocks.mu.Unlock()
	l.Lock()
	return l.Unlock
}
