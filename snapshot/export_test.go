package snapshot

import (
	"context"

	"github.com/lakesql/lakesql/internal/storage"
)

// ForgetLayout drops what s remembers about the file it was decoded from,
// so that it encodes like a snapshot built in Go.
func ForgetLayout(s *Snapshot) { s.layout = nil }

// LiveSetsReused counts live-set merges that started from an earlier set.
func LiveSetsReused() int {
	lives.mu.Lock()
	defer lives.mu.Unlock()
	return lives.reused
}

// LiveSetsAppended counts the live sets made by appending new files to an
// earlier set (appendOnly).
func LiveSetsAppended() int {
	lives.mu.Lock()
	defer lives.mu.Unlock()
	return lives.appended
}

// DropCaches empties the process-wide caches of decoded manifests and live
// sets, as a restarted process starts.
func DropCaches() {
	manifests.mu.Lock()
	manifests.files, manifests.order, manifests.entries = map[string]cachedManifest{}, nil, 0
	manifests.mu.Unlock()
	lives.mu.Lock()
	lives.sets, lives.latest, lives.order, lives.entries = map[string]*liveSet{}, map[string]*liveSet{}, nil, 0
	lives.mu.Unlock()
}

// DeleteTableFiles is the drop of a table folder (DROP TABLE's, without
// the catalog's name checks and commit lock: what another server's drop
// does to the folder), judging other drops' markers by the clock of st.
func DeleteTableFiles(ctx context.Context, st storage.Storage) error {
	return deleteTableFiles(ctx, st, storage.NewClock(st))
}
