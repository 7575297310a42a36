package lsmwrite

import (
	"cmp"
	"slices"

	"github.com/lakesql/lakesql/internal/kv"
)

// sortedRun is a RecordReader over a write buffer in sorted order: it sorts
// a permutation (int32 indexes) instead of moving the records.
type sortedRun struct {
	buf  []kv.KeyValue
	perm []int32
	i    int
}

func (w *TableWrite) sortBuffer(buf []kv.KeyValue, perm []int32) []int32 {
	perm = perm[:0]
	for i := range buf {
		perm = append(perm, int32(i))
	}
	keyCmp, seqCmp := w.keyCmp, w.seqCmp
	slices.SortFunc(perm, func(x, y int32) int {
		a, b := &buf[x], &buf[y]
		if c := keyCmp(a.Key, b.Key); c != 0 {
			return c
		}
		if seqCmp != nil {
			if c := seqCmp(a.Value, b.Value); c != 0 {
				return c
			}
		}
		return cmp.Compare(a.Seq, b.Seq)
	})
	return perm
}

func (r *sortedRun) Next() (kv.KeyValue, bool, error) {
	if r.i >= len(r.perm) {
		return kv.KeyValue{}, false, nil
	}
	rec := r.buf[r.perm[r.i]]
	r.i++
	return rec, true, nil
}

func (r *sortedRun) Close() error { return nil }
