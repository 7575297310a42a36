package lsmread

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/lakesql/lakesql/snapshot/manifest"
)

// TestPackSplitsRandom holds packSplits to Java's BinPacking.packForOrdered
// on random buckets: a split that needs no merge is cut into consecutive
// runs of its files (deletion files alongside), each at most target bytes
// unless it holds one file, each closed only when the next file would take
// it past target (every file weighing max(size, openFileCost)); splits that
// merge and the order of splits stay as they were.
func TestPackSplitsRandom(t *testing.T) {
	r := rand.New(rand.NewSource(rand.Int63()))
	cut := 0
	for round := 0; round < 2000; round++ {
		target := int64(1 + r.Intn(1000))
		cost := int64(r.Intn(300))
		var in []*DataSplit
		for b := range 1 + r.Intn(5) {
			s := &DataSplit{Bucket: manifest.Bucket(b), Mode: []ReadMode{ReadRaw, ReadRaw, ReadMerge}[r.Intn(3)]}
			for f := range r.Intn(12) {
				s.Files = append(s.Files, manifest.DataFileMeta{FileName: fmt.Sprintf("b%d-f%d", b, f), FileSize: int64(r.Intn(700))})
			}
			if r.Intn(2) == 0 {
				s.DeletionFiles = make([]*DeletionFile, len(s.Files))
				for i := range s.DeletionFiles {
					s.DeletionFiles[i] = &DeletionFile{Path: s.Files[i].FileName + ".dv"}
				}
			}
			in = append(in, s)
		}
		out := packSplits(in, target, cost)
		weight := func(f manifest.DataFileMeta) int64 { return max(f.FileSize, cost) }
		j := 0
		for _, s := range in {
			if s.Mode != ReadRaw || len(s.Files) < 2 {
				if out[j] != s {
					t.Fatalf("round %d: split of bucket %d changed", round, s.Bucket)
				}
				j++
				continue
			}
			var files []manifest.DataFileMeta
			first := j
			for ; j < len(out) && out[j].Bucket == s.Bucket; j++ {
				o := out[j]
				if o.Mode != ReadRaw || len(o.Files) == 0 {
					t.Fatalf("round %d: packed split %v", round, o)
				}
				var w int64
				for i, f := range o.Files {
					w += weight(f)
					if s.DeletionFiles != nil && o.DeletionFiles[i].Path != f.FileName+".dv" {
						t.Fatalf("round %d: deletion file %s beside %s", round, o.DeletionFiles[i].Path, f.FileName)
					}
				}
				if w > target && len(o.Files) > 1 {
					t.Fatalf("round %d: split of %d files weighs %d > %d", round, len(o.Files), w, target)
				}
				if j+1 < len(out) && out[j+1].Bucket == s.Bucket && w+weight(out[j+1].Files[0]) <= target {
					t.Fatalf("round %d: split closed at %d with %d more fitting in %d", round, w, weight(out[j+1].Files[0]), target)
				}
				files = append(files, o.Files...)
			}
			cut += j - first - 1
			if fmt.Sprint(files) != fmt.Sprint(s.Files) {
				t.Fatalf("round %d: packed files %v, want %v", round, files, s.Files)
			}
		}
		if j != len(out) {
			t.Fatalf("round %d: %d splits out, %d accounted for", round, len(out), j)
		}
	}
	if cut < 1000 {
		t.Fatalf("only %d cuts in 2000 rounds", cut)
	}
}
