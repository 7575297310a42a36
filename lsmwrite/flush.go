package lsmwrite

import (
	"context"
)

// Flush writes every buffered record of a primary-key table to level-0
// files now. Records written after it go to new files with higher sequence
// numbers, so they are never merged with the records before it inside the
// write buffer: the merge happens at read time, in order, against the rows
// already in the table. Callers use it to keep a retraction (-U/-D) and a
// later write of the same key apart, which the buffer's merge function could
// otherwise fold without the row being retracted (aggregation, partial
// update). Append tables have nothing to flush.
func (w *TableWrite) Flush(ctx context.Context) error {
	if w.closed {
		return ErrClosed
	}
	if !w.spec.pk {
		return nil
	}
	if err := w.waitFlush(); err != nil {
		return err
	}
	for _, p := range w.partOrder {
		for _, b := range p.sortedBuckets() {
			if err := w.flush(ctx, p.buckets[b]); err != nil {
				return err
			}
		}
	}
	return nil
}
