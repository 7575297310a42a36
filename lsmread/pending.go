package lsmread

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/lakesql/lakesql/internal/kv"
)

// ReadPending reads the table as a transaction sees it: the rows of spec's
// snapshot merged with the transaction's pending records (read-your-writes).
// The committed rows are planned without spec's projection and with only
// the conjuncts of spec's filter that read key fields alone (keyFilter: a
// pending record can change whether a committed row matches, but not its
// key), merged key by key with the pending records through the table's
// merge function, then filtered by spec.Filter (only True passes) and
// projected to spec.Projection. So an UPDATE … WHERE key = k in a
// transaction with pending writes reads the key's bucket and files, not the
// whole table. Keys that only the pending records hold follow the
// committed rows, in the order the transaction first wrote them; for
// append tables the pending rows follow the committed ones.
//
// It streams: memory is bounded by the pending records whose keys pass the
// filter's key conjuncts, not by the table; records that spilled are read
// from the spill file, and those the read keeps must fit in the buffer's
// limit (else an error wrapping kv.ErrSpilled). The records present when
// ReadPending is called are read; later ones are not. The returned plan is
// the committed read's (its Snapshot is the snapshot read).
func (t *Table) ReadPending(ctx context.Context, spec ScanSpec, pending *kv.PendingWrites) (RowIterator, *Plan, error) {
	full := spec
	full.Filter, full.Projection = keyFilter(spec.Filter, pending.KeyIndexes()), nil
	p, err := t.Plan(ctx, full)
	if err != nil {
		return nil, nil, err
	}
	r, err := p.NewReader()
	if err != nil {
		return nil, nil, err
	}
	it := &pendingIterator{ctx: ctx, r: r, splits: p.Splits, filter: spec.Filter, keyIdx: pending.KeyIndexes()}
	if spec.Projection != nil {
		proj, err := p.Schema.ProjectedFields(spec.Projection)
		if err != nil {
			return nil, nil, err
		}
		it.proj = make([]int, 0, len(proj)) // non-nil: project, maybe to no column
		for _, f := range proj {
			it.proj = append(it.proj, p.Schema.FieldIndex(f.Name))
		}
	}
	// Only the records whose key passes the key conjuncts can give a row
	// that passes the filter (a merge keeps the key): a DELETE … WHERE
	// key IN (…) after a large LOAD holds the records of its keys, not
	// every record of the transaction.
	kf := keyFilter(spec.Filter, it.keyIdx)
	var rec0 []any
	passes := func(row []any) bool {
		if kf == nil {
			return true
		}
		rec0 = row
		return Test(kf, func(f int) (any, bool) { return rec0[f], true }) == True
	}
	// Records that spilled (more than write-buffer-size) are streamed
	// from the spill file; the ones this read keeps must fit in
	// write-buffer-size too, or the read fails with kv.ErrSpilled.
	var held int64
	limit := pending.Limit()
	hold := func(rec kv.KeyValue) error {
		if !pending.Spilled() {
			return nil
		}
		held += kv.KVOverhead + kv.RowSize(rec.Value)
		if limit > 0 && held > limit {
			return fmt.Errorf("%w: the rows this read needs from it exceed write-buffer-size (%d bytes)", kv.ErrSpilled, limit)
		}
		return nil
	}
	if len(pending.Schema().PrimaryKeys) == 0 {
		// Append tables: the pending inserts follow the committed rows; a
		// pending delete (deletion vectors) removes one equal committed row.
		// Spilled records hold no deletes (kv.PendingWrites.Add).
		if pending.Spilled() {
			err := pending.Each(func(rec kv.KeyValue) error {
				if !passes(rec.Value) {
					return nil
				}
				it.tail = append(it.tail, rec)
				return hold(rec)
			})
			if err != nil {
				return nil, nil, err
			}
			return it, p, nil
		}
		for _, rec := range pending.AppendNet() {
			if rec.Kind.IsAdd() {
				if passes(rec.Value) {
					it.tail = append(it.tail, rec)
				}
				continue
			}
			if it.deleted == nil {
				it.deleted = map[string]int{}
			}
			it.key = kv.AppendKey(it.key[:0], rec.Value, it.keyIdx)
			it.deleted[string(it.key)]++
		}
		return it, p, nil
	}
	if it.merge, err = pending.NewMerger(); err != nil {
		return nil, nil, err
	}
	it.byKey = make(map[string][]kv.KeyValue)
	var key []byte
	err = pending.Each(func(rec kv.KeyValue) error {
		if !passes(rec.Value) {
			return nil
		}
		key = kv.AppendKey(key[:0], rec.Value, it.keyIdx)
		rs, ok := it.byKey[string(key)]
		if !ok {
			it.order = append(it.order, string(key))
		}
		it.byKey[string(key)] = append(rs, rec)
		return hold(rec)
	})
	if err != nil {
		return nil, nil, err
	}
	return it, p, nil
}

// pendingIterator streams the committed rows merged with pending records.
type pendingIterator struct {
	ctx    context.Context
	r      *Reader
	splits []*DataSplit
	filter Predicate
	proj   []int // nil: every field
	keyIdx []int

	merge func(base []any, recs []kv.KeyValue) ([]any, bool, error)
	byKey map[string][]kv.KeyValue // pending records of keys not met yet
	order []string                 // pending keys, first write first
	tail  []kv.KeyValue            // append tables: pending rows
	// deleted counts, by row key, the committed rows of an append table the
	// transaction deleted.
	deleted map[string]int

	cur  RowIterator
	next int // next split
	done bool
	key  []byte
}

// Next implements RowIterator.
func (it *pendingIterator) Next() ([]any, error) {
	for {
		row, err := it.nextMerged()
		if err != nil {
			return nil, err
		}
		if it.filter != nil && Test(it.filter, func(f int) (any, bool) { return row[f], true }) != True {
			continue
		}
		if it.proj == nil {
			return row, nil
		}
		out := make([]any, len(it.proj))
		for i, j := range it.proj {
			out[i] = row[j]
		}
		return out, nil
	}
}

// nextMerged returns the next whole row before filtering.
func (it *pendingIterator) nextMerged() ([]any, error) {
	for !it.done {
		if it.cur == nil {
			if it.next == len(it.splits) {
				it.done = true
				break
			}
			cur, err := it.r.Read(it.ctx, it.splits[it.next])
			if err != nil {
				return nil, err
			}
			it.cur, it.next = cur, it.next+1
		}
		row, err := it.cur.Next()
		if errors.Is(err, io.EOF) {
			err = it.cur.Close()
			it.cur = nil
			if err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		if it.byKey == nil {
			if it.deleted != nil {
				it.key = kv.AppendKey(it.key[:0], row, it.keyIdx)
				if n := it.deleted[string(it.key)]; n > 0 {
					it.deleted[string(it.key)] = n - 1
					continue
				}
			}
			return row, nil
		}
		it.key = kv.AppendKey(it.key[:0], row, it.keyIdx)
		recs, ok := it.byKey[string(it.key)]
		if !ok {
			return row, nil
		}
		delete(it.byKey, string(it.key))
		merged, ok, err := it.merge(row, recs)
		if err != nil {
			return nil, err
		}
		if ok {
			return merged, nil
		}
	}
	// Keys only the transaction holds (or append-table rows).
	for len(it.order) > 0 {
		k := it.order[0]
		it.order = it.order[1:]
		recs, ok := it.byKey[k]
		if !ok {
			continue
		}
		delete(it.byKey, k)
		merged, ok, err := it.merge(nil, recs)
		if err != nil {
			return nil, err
		}
		if ok {
			return merged, nil
		}
	}
	if len(it.tail) > 0 {
		row := it.tail[0].Value
		it.tail = it.tail[1:]
		return row, nil
	}
	return nil, io.EOF
}

// Close implements RowIterator.
func (it *pendingIterator) Close() error {
	if it.cur != nil {
		err := it.cur.Close()
		it.cur = nil
		return err
	}
	return nil
}

// keyFilter returns the conjuncts of p that refer to key fields only (nil
// when there are none). Merging a committed row with pending records keeps
// its key, so a row whose key fails such a conjunct fails p after the merge
// too: the committed read may leave it out. For append tables every field
// is a key field (kv.KeyIndexes) and p is kept whole: a pending delete of a
// row p leaves out removes nothing p would pass.
func keyFilter(p Predicate, keyIdx []int) Predicate {
	if p == nil {
		return nil
	}
	onKeys := func(c Predicate) bool {
		for f := range Fields(c) {
			if !slices.Contains(keyIdx, f) {
				return false
			}
		}
		return true
	}
	and, ok := p.(And)
	if !ok {
		if onKeys(p) {
			return p
		}
		return nil
	}
	var out And
	for _, c := range and {
		if onKeys(c) {
			out = append(out, c)
		}
	}
	switch len(out) {
	case 0:
		return nil
	case 1:
		return out[0]
	}
	return out
}
