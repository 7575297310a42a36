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

// TestReservedWordModel: the length-first check equals comparing with
// every reserved word by strings.EqualFold, on random words (ASCII, mixed
// case, the Kelvin sign that folds to k, other non-ASCII letters).
func TestReservedWordModel(t *testing.T) {
	pieces := []string{"SEL", "ect", "fr", "OM", "li", "KE", "\u212a", "é", "in", "IS", "_", "x", "version", "SYSTEM_TIME", "a"}
	r := rand.New(rand.NewPCG(4, 4))
	hits := 0
	for range 100000 {
		var b strings.Builder
		for range 1 + r.IntN(3) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		w := b.String()
		want := false
		for _, kw := range reservedWords {
			want = want || strings.EqualFold(w, kw)
		}
		if got := reservedWord(w); got != want {
			t.Fatalf("reservedWord(%q) = %v, want %v", w, got, want)
		}
		if want {
			hits++
		}
	}
	if hits == 0 {
		t.Fatal("no reserved word generated")
	}
}
