package sqlengine

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestMentionsSnapshotWordsModel: the one-pass check equals looking for
// each word with containsFold, on random texts of word pieces in mixed
// case.
func TestMentionsSnapshotWordsModel(t *testing.T) {
	pieces := []string{"VERSION", "version", "Vers", "ion", "TimeStamp", "time", "stamp", "SYSTEM_TIME", "system", "_time", "s", "t", "v", " ", "'", "é", "\x76", "V", "x"}
	r := rand.New(rand.NewPCG(3, 3))
	seen := 0
	for range 100000 {
		var b strings.Builder
		for range r.IntN(8) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		q := b.String()
		want := containsFold(q, "version") || containsFold(q, "timestamp") || containsFold(q, "system_time")
		if got := mentionsSnapshotWords(q); got != want {
			t.Fatalf("mentionsSnapshotWords(%q) = %v, want %v", q, got, want)
		}
		if want {
			seen++
		}
	}
	if seen == 0 {
		t.Fatal("no text mentioned a word")
	}
}
