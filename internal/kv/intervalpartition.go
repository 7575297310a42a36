package kv

import (
	"container/heap"
	"slices"
)

// IntervalPartition mirrors org.apache.paimon.mergetree.compact.IntervalPartition.
// It splits files into sections whose key ranges do not overlap, and each
// section into sorted runs of files with non-overlapping, ascending key
// ranges. Only the runs of one section need to be merged together.
//
// Files are first sorted (stably) by min key, then max key. A new section
// starts when a file's min key is above the largest max key seen in the
// current section. Inside a section each file is appended to the run whose
// last max key is smallest, if the file's min key is above it; otherwise the
// file opens a new run.
//
// minKey and maxKey return a file's key bounds (decoded trimmed primary keys),
// cmp orders keys. The result lists sections in ascending key order; within a
// section, runs are listed in the order they were opened (Java leaves that
// order unspecified), and each run lists its files in ascending key order.
func IntervalPartition[F any](files []F, minKey, maxKey func(F) []any, cmp Comparator) [][][]F {
	if len(files) == 0 {
		return nil
	}
	sorted := slices.Clone(files)
	slices.SortStableFunc(sorted, func(a, b F) int {
		if c := cmp(minKey(a), minKey(b)); c != 0 {
			return c
		}
		return cmp(maxKey(a), maxKey(b))
	})

	var result [][][]F
	start := 0
	var bound []any
	for i, f := range sorted {
		if i > start && cmp(minKey(f), bound) > 0 {
			result = append(result, partitionSection(sorted[start:i], minKey, maxKey, cmp))
			start = i
			bound = nil
		}
		if bound == nil || cmp(maxKey(f), bound) > 0 {
			bound = maxKey(f)
		}
	}
	return append(result, partitionSection(sorted[start:], minKey, maxKey, cmp))
}

func partitionSection[F any](metas []F, minKey, maxKey func(F) []any, cmp Comparator) [][]F {
	runs := [][]F{{metas[0]}}
	h := &runHeap[F]{runs: runs, maxKey: maxKey, cmp: cmp, idx: []int{0}}
	for _, m := range metas[1:] {
		// Any run whose last max key is below m's min key would do; like
		// Java, take the one with the smallest last max key.
		top := h.idx[0]
		last := h.runs[top][len(h.runs[top])-1]
		if cmp(minKey(m), maxKey(last)) > 0 {
			h.runs[top] = append(h.runs[top], m)
			heap.Fix(h, 0)
		} else {
			h.runs = append(h.runs, []F{m})
			heap.Push(h, len(h.runs)-1)
		}
	}
	return h.runs
}

// runHeap orders run indexes by the max key of their last file, then by
// index, to keep the result deterministic.
type runHeap[F any] struct {
	runs   [][]F
	idx    []int
	maxKey func(F) []any
	cmp    Comparator
}

func (h *runHeap[F]) Len() int { return len(h.idx) }
func (h *runHeap[F]) Less(i, j int) bool {
	a, b := h.runs[h.idx[i]], h.runs[h.idx[j]]
	if c := h.cmp(h.maxKey(a[len(a)-1]), h.maxKey(b[len(b)-1])); c != 0 {
		return c < 0
	}
	return h.idx[i] < h.idx[j]
}
func (h *runHeap[F]) Swap(i, j int) { h.idx[i], h.idx[j] = h.idx[j], h.idx[i] }
func (h *runHeap[F]) Push(x any)    { h.idx = append(h.idx, x.(int)) }
func (h *runHeap[F]) Pop() any {
	n := len(h.idx)
	x := h.idx[n-1]
	h.idx = h.idx[:n-1]
	return x
}
