package kv

import (
	"errors"
	"fmt"
)

// SortMergeReader merges sorted runs, mirroring Java's
// SortMergeReaderWithMinHeap: for each key in ascending key order it feeds all
// records of that key, ordered by (user sequence fields if configured,
// _SEQUENCE_NUMBER) ascending, to a MergeFunction and yields the result.
// Records that tie on all of these come in run order (lower run index first).
//
// Keys are yielded in ascending order, once each, so a SortMergeReader is
// itself a RecordReader and can feed another merge. The KeyValue returned by
// Next is valid until the following call to Next (it may live in the merge
// function's buffer). Not safe for concurrent use.
//
// The merge loop allocates nothing: records move from the runs to the merge
// function by value, and the heap holds run indexes.
type SortMergeReader struct {
	readers []RecordReader
	heads   []KeyValue // current record of each run in the heap
	heap    []int32    // run indexes, a binary min-heap
	keyCmp  Comparator
	seqCmp  Comparator
	mf      MergeFunction
	started bool
	err     error
	closed  bool
}

var _ RecordReader = (*SortMergeReader)(nil)

// NewSortMergeReader merges readers with mf. keyCmp orders keys (see
// NewKeyComparator); seqCmp, when not nil, orders the value rows of records
// with equal keys before the sequence number is looked at (see
// NewFieldsComparator and MergeOptions.SequenceComparator). The reader owns
// the runs: Close closes them all.
func NewSortMergeReader(readers []RecordReader, keyCmp, seqCmp Comparator, mf MergeFunction) *SortMergeReader {
	return &SortMergeReader{
		readers: readers,
		heads:   make([]KeyValue, len(readers)),
		heap:    make([]int32, 0, len(readers)),
		keyCmp:  keyCmp,
		seqCmp:  seqCmp,
		mf:      mf,
	}
}

func (r *SortMergeReader) less(i, j int32) bool {
	a, b := &r.heads[i], &r.heads[j]
	if c := r.keyCmp(a.Key, b.Key); c != 0 {
		return c < 0
	}
	if r.seqCmp != nil {
		if c := r.seqCmp(a.Value, b.Value); c != 0 {
			return c < 0
		}
	}
	if a.Seq != b.Seq {
		return a.Seq < b.Seq
	}
	return i < j
}

func (r *SortMergeReader) down(i int) {
	h := r.heap
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if rr := l + 1; rr < n && r.less(h[rr], h[l]) {
			m = rr
		}
		if !r.less(h[m], h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

func (r *SortMergeReader) start() error {
	r.started = true
	for i, rd := range r.readers {
		kv, ok, err := rd.Next()
		if err != nil {
			return fmt.Errorf("kv: sort-merge: run %d: %w", i, err)
		}
		if ok {
			r.heads[i] = kv
			r.heap = append(r.heap, int32(i))
		}
	}
	for i := len(r.heap)/2 - 1; i >= 0; i-- {
		r.down(i)
	}
	return nil
}

// advanceTop moves the run at the top of the heap to its next record.
func (r *SortMergeReader) advanceTop() error {
	top := r.heap[0]
	kv, ok, err := r.readers[top].Next()
	if err != nil {
		return fmt.Errorf("kv: sort-merge: run %d: %w", top, err)
	}
	if ok {
		r.heads[top] = kv
	} else {
		r.heads[top] = KeyValue{}
		last := len(r.heap) - 1
		r.heap[0] = r.heap[last]
		r.heap = r.heap[:last]
	}
	if len(r.heap) > 0 {
		r.down(0)
	}
	return nil
}

// Next implements RecordReader: it returns the merged record of the next key
// for which the merge function has a result.
func (r *SortMergeReader) Next() (KeyValue, bool, error) {
	if r.err != nil {
		return KeyValue{}, false, r.err
	}
	if r.closed {
		return KeyValue{}, false, errors.New("kv: sort-merge: Next after Close")
	}
	if !r.started {
		if err := r.start(); err != nil {
			r.err = err
			return KeyValue{}, false, err
		}
	}
	for len(r.heap) > 0 {
		r.mf.Reset()
		key := r.heads[r.heap[0]].Key
		for len(r.heap) > 0 {
			top := &r.heads[r.heap[0]]
			if r.keyCmp(top.Key, key) != 0 {
				break
			}
			if err := r.mf.Add(*top); err != nil {
				r.err = err
				return KeyValue{}, false, err
			}
			if err := r.advanceTop(); err != nil {
				r.err = err
				return KeyValue{}, false, err
			}
		}
		kv, ok, err := r.mf.Result()
		if err != nil {
			r.err = err
			return KeyValue{}, false, err
		}
		if ok {
			return kv, true, nil
		}
	}
	return KeyValue{}, false, nil
}

// Close implements RecordReader: it closes every run.
func (r *SortMergeReader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	var errs []error
	for _, rd := range r.readers {
		if err := rd.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// ConcatReader reads several RecordReaders one after the other, as Java's
// ConcatRecordReader does for the files of one sorted run or for the merged
// sections of a split. Close closes every reader.
type ConcatReader struct {
	readers []RecordReader
	pos     int
	closed  bool
}

var _ RecordReader = (*ConcatReader)(nil)

// NewConcatReader returns a reader over readers in order.
func NewConcatReader(readers ...RecordReader) *ConcatReader {
	return &ConcatReader{readers: readers}
}

// Next implements RecordReader.
func (c *ConcatReader) Next() (KeyValue, bool, error) {
	for c.pos < len(c.readers) {
		kv, ok, err := c.readers[c.pos].Next()
		if err != nil || ok {
			return kv, ok, err
		}
		c.pos++
	}
	return KeyValue{}, false, nil
}

// Close implements RecordReader.
func (c *ConcatReader) Close() error {
	if c.closed {
		return nil
	}
	c.closed = true
	var errs []error
	for _, rd := range c.readers {
		if err := rd.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
