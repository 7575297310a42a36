package lsmread_test

import (
	"fmt"
	"testing"

	"github.com/lakesql/lakesql/lsmread"
)

// TestTinySplitTargetChangesNothing: on every snapshot of every readable
// Java fixture, a split target of one byte (every file that needs no merge,
// and every section of a bucket that merges, a split of its own) reads the
// same rows as one split per bucket; it fails if no bucket of either kind
// was ever cut.
func TestTinySplitTargetChangesNothing(t *testing.T) {
	var rawCut, mergeCut int
	for _, s := range fixtureSnapshotReads(t) {
		spec := s.spec()
		spec.OptionOverrides = map[string]string{"source.split.target-size": "1b"}
		plan, got := mustRead(t, s.plan.Table, spec)
		sameMultiset(t, s.String()+" target 1b", got, s.rows)
		if len(plan.Splits) < len(s.plan.Splits) {
			t.Fatalf("%s: %d splits with a tiny target, %d without", s, len(plan.Splits), len(s.plan.Splits))
		}
		pieces := map[string]int{}
		for _, sp := range plan.Splits {
			pieces[fmt.Sprint(sp.Partition, sp.Bucket)]++
		}
		for _, sp := range s.plan.Splits {
			if pieces[fmt.Sprint(sp.Partition, sp.Bucket)] < 2 {
				continue
			}
			switch sp.Mode {
			case lsmread.ReadRaw:
				rawCut++
			case lsmread.ReadMerge:
				mergeCut++
			}
		}
	}
	t.Logf("buckets cut: %d read as they are, %d merged", rawCut, mergeCut)
	if rawCut == 0 || mergeCut == 0 {
		t.Fatalf("no bucket cut: %d raw, %d merged", rawCut, mergeCut)
	}
}
