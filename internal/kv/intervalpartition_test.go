package kv_test

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
)

// testFile is the little file description the tests partition.
type testFile struct {
	Name           string
	MinKey, MaxKey []any
}

func fileMin(f testFile) []any { return f.MinKey }
func fileMax(f testFile) []any { return f.MaxKey }

func int64Cmp(t testing.TB) kv.Comparator {
	return kv.NewKeyComparator([]schema.DataType{{Root: schema.TypeBigInt}})
}

// TestIntervalPartition runs testdata/interval_partition. Command
// "partition": one "name min max" line per file (single BIGINT keys);
// prints one line per section with its runs in brackets.
func TestIntervalPartition(t *testing.T) {
	cmp := int64Cmp(t)
	datadriven.RunTest(t, "testdata/interval_partition", func(t *testing.T, d *datadriven.TestData) string {
		if d.Cmd != "partition" {
			t.Fatalf("%s: unknown command %q", d.Pos, d.Cmd)
		}
		var files []testFile
		for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
			parts := strings.Fields(line)
			if len(parts) == 0 {
				continue
			}
			if len(parts) != 3 {
				t.Fatalf("%s: want 'name min max', got %q", d.Pos, line)
			}
			lo, err1 := strconv.ParseInt(parts[1], 10, 64)
			hi, err2 := strconv.ParseInt(parts[2], 10, 64)
			if err1 != nil || err2 != nil {
				t.Fatalf("%s: bad keys in %q", d.Pos, line)
			}
			files = append(files, testFile{Name: parts[0], MinKey: []any{lo}, MaxKey: []any{hi}})
		}
		return formatSections(kv.IntervalPartition(files, fileMin, fileMax, cmp))
	})
}

func formatSections(sections [][][]testFile) string {
	if len(sections) == 0 {
		return "<empty>\n"
	}
	var b strings.Builder
	for _, sec := range sections {
		for i, run := range sec {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteByte('[')
			for j, f := range run {
				if j > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(f.Name)
			}
			b.WriteByte(']')
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// TestIntervalPartitionRandom checks the invariants on random files: every
// file appears once; sections are in key order and do not overlap; inside a
// run files are in key order and do not overlap; the number of runs of a
// section equals the maximum number of its files covering one key (the
// greedy packing is optimal).
func TestIntervalPartitionRandom(t *testing.T) {
	cmp := int64Cmp(t)
	for seed := uint64(0); seed < 500; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		n := rng.IntN(25)
		files := make([]testFile, n)
		for i := range files {
			lo := rng.Int64N(100)
			files[i] = testFile{Name: fmt.Sprint(i), MinKey: []any{lo}, MaxKey: []any{lo + rng.Int64N(15)}}
		}
		sections := kv.IntervalPartition(files, fileMin, fileMax, cmp)
		seen := map[string]bool{}
		var prevMax []any
		for si, sec := range sections {
			secMin, secMax := []any(nil), []any(nil)
			for _, run := range sec {
				for j, f := range run {
					if seen[f.Name] {
						t.Fatalf("seed %d: file %s twice", seed, f.Name)
					}
					seen[f.Name] = true
					if j > 0 && cmp(f.MinKey, run[j-1].MaxKey) <= 0 {
						t.Fatalf("seed %d: run overlaps: %s", seed, formatSections(sections))
					}
					if secMin == nil || cmp(f.MinKey, secMin) < 0 {
						secMin = f.MinKey
					}
					if secMax == nil || cmp(f.MaxKey, secMax) > 0 {
						secMax = f.MaxKey
					}
				}
			}
			if si > 0 && cmp(secMin, prevMax) <= 0 {
				t.Fatalf("seed %d: sections overlap: %s", seed, formatSections(sections))
			}
			prevMax = secMax
			depth := 0
			for k := secMin[0].(int64); k <= secMax[0].(int64); k++ {
				d := 0
				for _, run := range sec {
					for _, f := range run {
						if f.MinKey[0].(int64) <= k && k <= f.MaxKey[0].(int64) {
							d++
						}
					}
				}
				depth = max(depth, d)
			}
			if len(sec) != depth {
				t.Fatalf("seed %d: section with %d runs but depth %d: %s", seed, len(sec), depth, formatSections(sections))
			}
		}
		if len(seen) != n {
			t.Fatalf("seed %d: %d of %d files placed", seed, len(seen), n)
		}
	}
}
