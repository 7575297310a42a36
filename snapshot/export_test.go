package snapshot

// ForgetLayout drops what s remembers about the file it was decoded from,
// so that it encodes like a snapshot built in Go.
func ForgetLayout(s *Snapshot) { s.layout = nil }

// LiveSetsReused counts live-set merges that started from an earlier set.
func LiveSetsReused() int {
	lives.mu.Lock()
	defer lives.mu.Unlock()
	return lives.reused
}
