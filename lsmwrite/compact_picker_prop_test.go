package lsmwrite

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/lakesql/lakesql/snapshot/manifest"
)

// TestCompactionPickerInvariants checks, over random buckets and options,
// what the merge tree needs from every pick: the unit is a non-empty prefix
// of the runs (newest first), it writes no lower than any of its inputs,
// never to level 0, strictly below the first run it leaves out (so levels
// stay one run each), and Full exactly when it takes every run to the max
// level.
func TestCompactionPickerInvariants(t *testing.T) {
	seed := rand.Uint64()
	rng := rand.New(rand.NewPCG(seed, 1))
	for iter := 0; iter < 5000; iter++ {
		numLevels := 2 + rng.IntN(6)
		var files []manifest.DataFileMeta
		for level := 0; level < numLevels; level++ {
			n := 0
			if level == 0 {
				n = rng.IntN(10)
			} else if rng.IntN(2) == 0 {
				n = 1 + rng.IntN(3)
			}
			for i := 0; i < n; i++ {
				files = append(files, manifest.DataFileMeta{
					FileName:          fmt.Sprintf("f%d", len(files)),
					FileSize:          1 + rng.Int64N(1<<uint(1+rng.IntN(20))),
					MaxSequenceNumber: rng.Int64N(100),
					Level:             manifest.Level(level),
				})
			}
		}
		levels, err := NewLevels(files, numLevels, nil)
		if err != nil {
			t.Fatal(err)
		}
		opts := CompactionOptions{
			NumSortedRunCompactionTrigger: 1 + rng.IntN(6),
			MaxSizeAmplificationPercent:   rng.IntN(400),
			SizeRatio:                     rng.IntN(50),
			ForceUpLevel0:                 rng.IntN(2) == 0,
		}
		runs := levels.LevelSortedRuns()
		unit, ok := PickCompaction(runs, levels.NumberOfLevels(), opts, nil)
		if !ok {
			continue
		}
		fail := func(msg string) {
			t.Fatalf("seed %d iter %d: %s\nruns %s\nopts %+v\nunit %s -> L%d full=%v", seed, iter, msg,
				formatRuns(runs), opts, formatRuns(unit.Runs), unit.OutputLevel, unit.Full)
		}
		k := len(unit.Runs)
		if k == 0 || k > len(runs) {
			fail("unit is not a non-empty prefix")
		}
		for i := 0; i < k; i++ {
			if unit.Runs[i].Level != runs[i].Level || len(unit.Runs[i].Run.Files) != len(runs[i].Run.Files) ||
				unit.Runs[i].Run.Files[0].FileName != runs[i].Run.Files[0].FileName {
				fail("unit is not a prefix of the runs")
			}
			if unit.Runs[i].Level > unit.OutputLevel {
				fail("output below an input level")
			}
		}
		if unit.OutputLevel == 0 {
			fail("output to level 0")
		}
		if k < len(runs) && unit.OutputLevel >= runs[k].Level {
			fail("output level not below the next run")
		}
		full := k == len(runs)
		if unit.Full != full || (full && unit.OutputLevel != levels.MaxLevel()) {
			fail("Full flag or full output level wrong")
		}
	}
}
