package lsmread

import (
	"math/rand/v2"
	"testing"

	"github.com/lakesql/lakesql/snapshot/manifest"
)

// TestPartitionSetCountsLikeAMap: Narrow's count of distinct partitions
// equals a map's, below and above the slice's size.
func TestPartitionSetCountsLikeAMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for range 2000 {
		var ps partitionSet
		model := map[string]bool{}
		width := 1 + r.IntN(20)
		for range r.IntN(40) {
			part := manifest.SerializedRow{byte(r.IntN(width)), byte(r.IntN(2))}
			if r.IntN(5) == 0 {
				part = nil
			}
			ps.add(part)
			model[string(part)] = true
			if ps.len() != len(model) {
				t.Fatalf("%d distinct partitions counted as %d", len(model), ps.len())
			}
		}
	}
}
