package lsmwrite

import (
	"cmp"
	"slices"
	"strings"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
)

// fastKeyComparator returns a comparator equivalent to kv.NewKeyComparator
// for single-column keys of common types (integers, STRING/VARCHAR/CHAR),
// without going through schema.Compare per value; nil when there is none.
func fastKeyComparator(types []schema.DataType) kv.Comparator {
	if len(types) != 1 {
		return nil
	}
	nullFirst := func(a, b any) (int, bool) {
		switch {
		case a == nil && b == nil:
			return 0, true
		case a == nil:
			return -1, true
		case b == nil:
			return 1, true
		}
		return 0, false
	}
	switch types[0].Root {
	case schema.TypeBigInt:
		return func(a, b []any) int {
			if c, done := nullFirst(a[0], b[0]); done {
				return c
			}
			return cmp.Compare(a[0].(int64), b[0].(int64))
		}
	case schema.TypeInt:
		return func(a, b []any) int {
			if c, done := nullFirst(a[0], b[0]); done {
				return c
			}
			return cmp.Compare(a[0].(int32), b[0].(int32))
		}
	case schema.TypeVarChar, schema.TypeChar:
		return func(a, b []any) int {
			if c, done := nullFirst(a[0], b[0]); done {
				return c
			}
			return strings.Compare(a[0].(string), b[0].(string))
		}
	}
	return nil
}

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
