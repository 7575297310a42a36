package lsmwrite

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/lakesql/lakesql/snapshot/manifest"
)

// SortedRun is a list of files of one bucket whose key ranges do not
// overlap, in key order (Java: org.apache.paimon.mergetree.SortedRun).
type SortedRun struct {
	Files []manifest.DataFileMeta
}

// TotalSize is the sum of the run's file sizes, the size the picker weighs.
func (r SortedRun) TotalSize() int64 {
	var n int64
	for i := range r.Files {
		n += r.Files[i].FileSize
	}
	return n
}

// LevelSortedRun is a sorted run and the level it lives on (Java:
// LevelSortedRun).
type LevelSortedRun struct {
	Level int
	Run   SortedRun
}

// Levels holds one bucket's files by level, as Java's
// org.apache.paimon.mergetree.Levels does: every level-0 file is a sorted
// run of its own, newest first (larger _MAX_SEQUENCE_NUMBER first, then file
// name ascending); each level >= 1 is one sorted run ordered by min key.
// Levels is a value built from a snapshot's files; it does not change.
type Levels struct {
	level0 []manifest.DataFileMeta
	levels []SortedRun // levels[i] is level i+1
}

// NewLevels groups files by their level. numLevels is the table's
// num-levels; like Java it grows to hold the highest level present in files
// and must be at least 2. keyCmp orders the files of a level >= 1 by their
// min key (Java SortedRun.fromUnsorted); nil keeps files in the given order.
func NewLevels(files []manifest.DataFileMeta, numLevels int, keyCmp func(a, b manifest.SerializedRow) int) (*Levels, error) {
	n := numLevels
	for i := range files {
		if files[i].Level < 0 {
			return nil, fmt.Errorf("lsmwrite: file %s has negative level %d", files[i].FileName, files[i].Level)
		}
		n = max(n, int(files[i].Level)+1)
	}
	if n < 2 {
		return nil, fmt.Errorf("lsmwrite: number of levels must be at least 2, got %d", n)
	}
	l := &Levels{levels: make([]SortedRun, n-1)}
	for _, f := range files {
		if f.Level == 0 {
			l.level0 = append(l.level0, f)
		} else {
			l.levels[f.Level-1].Files = append(l.levels[f.Level-1].Files, f)
		}
	}
	slices.SortStableFunc(l.level0, func(a, b manifest.DataFileMeta) int {
		if c := cmp.Compare(b.MaxSequenceNumber, a.MaxSequenceNumber); c != 0 {
			return c
		}
		return cmp.Compare(a.FileName, b.FileName)
	})
	if keyCmp != nil {
		for i := range l.levels {
			slices.SortStableFunc(l.levels[i].Files, func(a, b manifest.DataFileMeta) int {
				return keyCmp(a.MinKey, b.MinKey)
			})
		}
	}
	return l, nil
}

// NumberOfLevels is num-levels as restored (at least the highest level + 1).
func (l *Levels) NumberOfLevels() int { return len(l.levels) + 1 }

// MaxLevel is NumberOfLevels - 1, the level full compaction writes.
func (l *Levels) MaxLevel() int { return len(l.levels) }

// NumberOfSortedRuns counts the level-0 files plus the non-empty levels.
func (l *Levels) NumberOfSortedRuns() int {
	n := len(l.level0)
	for _, r := range l.levels {
		if len(r.Files) > 0 {
			n++
		}
	}
	return n
}

// NonEmptyHighestLevel is the highest level holding a file, or -1 when the
// bucket is empty.
func (l *Levels) NonEmptyHighestLevel() int {
	for i := len(l.levels) - 1; i >= 0; i-- {
		if len(l.levels[i].Files) > 0 {
			return i + 1
		}
	}
	if len(l.level0) > 0 {
		return 0
	}
	return -1
}

// LevelSortedRuns lists the sorted runs newest first: each level-0 file,
// then levels 1..max that hold files. This is the picker's input.
func (l *Levels) LevelSortedRuns() []LevelSortedRun {
	runs := make([]LevelSortedRun, 0, l.NumberOfSortedRuns())
	for _, f := range l.level0 {
		runs = append(runs, LevelSortedRun{Level: 0, Run: SortedRun{Files: []manifest.DataFileMeta{f}}})
	}
	for i, r := range l.levels {
		if len(r.Files) > 0 {
			runs = append(runs, LevelSortedRun{Level: i + 1, Run: r})
		}
	}
	return runs
}

// CountSortedRuns counts the sorted runs of one bucket's files (what
// Levels.NumberOfSortedRuns counts, without building Levels).
func CountSortedRuns(files []manifest.DataFileMeta) int { return manifest.SortedRuns(files) }
