package lsmread

import (
	"errors"
	"fmt"
	"io"
	"math"
	"sync/atomic"

	"github.com/lakesql/lakesql/internal/datafile"
	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/sortedrun"
)

// readIntMerge, when false, merges keys of one integer column with the
// general heap of columnMerge as well (tests compare both).
var readIntMerge = true

// intMergedSections counts the sections merged by mergeInts (tests).
var intMergedSections atomic.Int64

// intHead is a run's current key in the heap of mergeInts.
type intHead struct {
	key int64
	run int32
}

// usesInts reports whether the merge runs on mergeInts: a key of one
// integer column (keyInt) without NULLs where the runs start, and no
// lookup (LookupMergeFunction picks its winner by level, which the general
// merge does).
func (m *columnMerge) usesInts() bool {
	if !readIntMerge || m.mode != keyInt || m.lookup {
		return false
	}
	for _, ri := range m.heap {
		if m.runs[ri].head.null {
			return false // NULL keys sort first: the general merge orders them
		}
	}
	return true
}

// startInts moves the runs of the general heap into the integer heap.
func (m *columnMerge) startInts() error {
	m.ints = true
	for _, ri := range m.heap {
		run := &m.runs[ri]
		if err := m.intKeys(run); err != nil {
			return err
		}
		m.iheap = append(m.iheap, intHead{key: run.keys[run.i], run: ri})
	}
	m.heap = nil
	for i := len(m.iheap)/2 - 1; i >= 0; i-- {
		m.siftInts(i)
	}
	intMergedSections.Add(1)
	return nil
}

// intKeys sets run.keys to the key column of the run's current batch as
// int64 values. A sorted run holds its NULL keys first: a NULL key after
// the merge started on integers is out of order.
func (m *columnMerge) intKeys(run *colRun) error {
	v := &run.b.Cols[m.keys[0]]
	if run.rows != nil {
		return fmt.Errorf("lsmread: %w: a selection in a KeyValue batch of a merge", datafile.ErrCorrupt)
	}
	if v.Nulls != nil {
		for _, null := range v.Nulls[:run.n] {
			if null {
				return fmt.Errorf("lsmread: %w: a NULL primary key after non-NULL keys in a sorted run", datafile.ErrCorrupt)
			}
		}
	}
	switch m.kinds[0] {
	case datafile.VectorInt32:
		run.keys = run.keys[:0]
		for _, x := range v.Int32[:run.n] {
			run.keys = append(run.keys, int64(x))
		}
	default:
		run.keys = v.Int64[:run.n]
	}
	return nil
}

// siftInts restores the integer heap below position i.
func (m *columnMerge) siftInts(i int) {
	h := m.iheap
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && h[r].key < h[l].key {
			c = r
		}
		if h[c].key >= h[i].key {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// mergeInts is merge's loop for keys of one integer column: the heap holds
// the runs' current keys by value, and each step either places a stretch
// of the top run (its records below every other run's current key that
// the run does not repeat, as stretch does) or merges every record of the
// top key at once (intKey), so no key is left half merged between steps.
func (m *columnMerge) mergeInts() error {
	for len(m.iheap) > 0 && m.n < sortedrun.BatchSize {
		h := m.iheap
		top := &h[0]
		run := &m.runs[top.run]
		if readStretch {
			bound := int64(math.MaxInt64) // keys strictly below it
			if len(h) > 1 {
				bound = h[1].key
				if len(h) > 2 && h[2].key < bound {
					bound = h[2].key
				}
			}
			from := run.i
			if to := stretchEnd(run.keys, from, min(run.n-1, from+sortedrun.BatchSize-m.n), bound); to > from {
				if err := m.placeRange(run, from, to); err != nil {
					return err
				}
				stretchedRecords.Add(int64(to - from))
				run.pos += int64(to - from)
				run.i, run.row = to, int32(to)
				top.key = run.keys[to]
				m.siftInts(0)
				continue
			}
		}
		if err := m.intKey(top.key); err != nil {
			return err
		}
	}
	return nil
}

// placeRange places the rows [from, to) of a run's batch that add a row.
func (m *columnMerge) placeRange(run *colRun, from, to int) error {
	if run.kind == nil {
		run.pend = appendGather(run.pend, int32(m.n), int32(from), int32(to-from))
		m.n += to - from
		return nil
	}
	for j := from; j < to; j++ {
		k := run.kind[j]
		if k < 0 || k > 3 {
			return fmt.Errorf("lsmread: %w: %s %d", datafile.ErrCorrupt, datafile.ValueKindName, k)
		}
		if kv.RowKind(k).IsAdd() {
			run.pend = appendGather(run.pend, int32(m.n), int32(j), 1)
			m.n++
		}
	}
	return nil
}

// intKey merges every record of key k, the top key of the integer heap:
// the latest eligible record (by sequence number, then run, then position,
// as colRecord.later orders them) wins, and adds its row unless it is a
// retraction. Each run holding k is read past it, across its batches.
func (m *columnMerge) intKey(k int64) error {
	var win colRecord
	placed := false
	for len(m.iheap) > 0 && m.iheap[0].key == k {
		ri := m.iheap[0].run
		run := &m.runs[ri]
		for {
			j := run.i
			for ; j < run.n && run.keys[j] == k; j++ {
				x := colRecord{ok: true, seq: run.rank, run: ri, row: int32(j), pos: run.pos, kind: kv.Insert}
				run.pos++
				if run.kind != nil {
					kd := run.kind[j]
					if kd < 0 || kd > 3 {
						return fmt.Errorf("lsmread: %w: %s %d", datafile.ErrCorrupt, datafile.ValueKindName, kd)
					}
					x.kind = kv.RowKind(kd)
				}
				if run.seq != nil {
					x.seq = run.seq[j]
				}
				if !m.eligible(&x) || (win.ok && !x.later(&win)) {
					continue
				}
				if placed {
					m.unplace(win.run)
					placed = false
				}
				win = x
				if x.kind.IsAdd() {
					run.pend = appendGather(run.pend, int32(m.n), int32(j), 1)
					m.n++
					placed = true
				}
			}
			if j < run.n {
				run.i, run.row = j, int32(j)
				m.iheap[0].key = run.keys[j]
				m.siftInts(0)
				break
			}
			// The batch ends inside (or right after) key k: gather its
			// rows, then read on.
			m.scatter(run)
			if err := m.load(run); errors.Is(err, io.EOF) {
				last := len(m.iheap) - 1
				m.iheap[0] = m.iheap[last]
				m.iheap = m.iheap[:last]
				if last > 0 {
					m.siftInts(0)
				}
				break
			} else if err != nil {
				return err
			}
		}
	}
	return nil
}
