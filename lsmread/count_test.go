package lsmread_test

import (
	"context"
	"testing"

	"github.com/lakesql/lakesql/lsmread"
)

// TestCountFromStatsEqualsRead: wherever the manifest statistics answer
// COUNT(*) (no filter; raw splits, and merge splits of deduplicate tables
// whose files do not overlap), the count equals the number of rows a full
// read returns, on every snapshot of every readable fixture (Java-written,
// compacted by Java for some).
func TestCountFromStatsEqualsRead(t *testing.T) {
	ctx := context.Background()
	answered, reads, merged := 0, 0, 0
	for _, s := range fixtureSnapshotReads(t) {
		reads++
		n, ok, err := s.plan.CountFromStats(ctx)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if !ok {
			continue
		}
		answered++
		for _, sp := range s.plan.Splits {
			if sp.Mode == lsmread.ReadMerge {
				merged++
				break
			}
		}
		if n != int64(len(s.rows)) {
			t.Errorf("%s: statistics count %d rows, the read returns %d", s, n, len(s.rows))
		}
	}
	t.Logf("%d of %d snapshot reads counted from statistics, %d with merge splits", answered, reads, merged)
	if answered == 0 || answered == reads || merged == 0 {
		t.Fatalf("statistics answered %d of %d reads: the test checks neither side", answered, reads)
	}
}
