package lsmread

import (
	"context"
	"errors"
	"io"
	"runtime"
	"sync"
)

// ParallelRows reads the splits of one plan with up to GOMAXPROCS worker
// goroutines and hands their rows to one consumer. Rows of one split stay
// together and in order; splits interleave. Each row passes through the
// caller's convert in the worker that read it (converting values for the
// consumer in parallel), and then belongs to the consumer.
//
// The workers belong to the ParallelRows: Close (or the context ending)
// stops them and waits for them; the first error stops every worker and is
// returned by Next.
type ParallelRows struct {
	// inline reads one split in the consumer's goroutine (a point lookup
	// or a lookup-join probe: no goroutine is worth starting); its rows are
	// converted already.
	inline RowIterator
	ctx    context.Context
	cancel context.CancelFunc
	rows   chan [][]any
	errc   chan error
	wg     sync.WaitGroup
	batch  [][]any
	i      int
	err    error
}

// parallelBatch is how many rows a worker hands over at once.
const parallelBatch = 256

// ReadParallel starts reading splits (of the reader's plan) in parallel.
// convert, when not nil, is called in the worker on every row and may
// rewrite its values in place.
func (r *Reader) ReadParallel(ctx context.Context, splits []*DataSplit, convert func(row []any) error) *ParallelRows {
	return r.ReadParallelBatches(ctx, splits, convert, nil)
}

// BatchRows makes the consumer's rows from the selected rows of a column
// batch, appending them to rows; the rows must not share the batch's
// vectors, which the next batch overwrites.
type BatchRows func(b *Batch, rows [][]any) ([][]any, error)

// ReadParallelBatches is ReadParallel where, when convertBatch is not nil,
// what needs no merge is read as column batches and its rows made by
// convertBatch straight from the vectors: the splits that need no merge
// (ReadRaw: append, deletion-vector and first-row tables, read-optimized
// scans, buckets of one level without retract records) and the sections of
// merged splits that need none (one file without retract records); merged
// rows go through convert.
func (r *Reader) ReadParallelBatches(ctx context.Context, splits []*DataSplit, convert func(row []any) error, convertBatch BatchRows) *ParallelRows {
	if len(splits) <= 1 {
		it := &ParallelRows{ctx: ctx, cancel: func() {}}
		if len(splits) == 0 {
			it.inline = &sliceRows{}
		} else if it.inline, it.err = r.readConverted(ctx, splits[0], convert, convertBatch); it.err != nil {
			it.inline = &sliceRows{}
		}
		return it
	}
	cctx, cancel := context.WithCancel(ctx)
	it := &ParallelRows{ctx: cctx, cancel: cancel, rows: make(chan [][]any, 4), errc: make(chan error, 1)}
	work := make(chan *DataSplit)
	n := min(runtime.GOMAXPROCS(0), max(len(splits), 1))
	for w := 0; w < n; w++ {
		it.wg.Add(1)
		go func() {
			defer it.wg.Done()
			for s := range work {
				if err := it.readSplit(r, s, convert, convertBatch); err != nil {
					select {
					case it.errc <- err:
					default:
					}
					cancel()
					return
				}
			}
		}()
	}
	go func() {
		defer close(work)
		for _, s := range splits {
			select {
			case work <- s:
			case <-cctx.Done():
				return
			}
		}
	}()
	go func() {
		it.wg.Wait()
		close(it.rows)
	}()
	return it
}

// readConverted opens a split as rows converted for the consumer: through
// convertBatch from column batches where they need no merge (when
// convertBatch is not nil), through convert otherwise.
func (r *Reader) readConverted(ctx context.Context, s *DataSplit, convert func([]any) error, convertBatch BatchRows) (RowIterator, error) {
	if convertBatch != nil {
		if r.batchable(ctx, s) {
			bi, err := r.ReadBatches(ctx, s)
			if err != nil {
				return nil, err
			}
			return &batchRowIter{next: bi.Next, close: bi.Close, convRows: convRows{conv: convertBatch}}, nil
		}
		m, err := r.openMergeSections(ctx, s)
		if err != nil {
			return nil, err
		}
		if m != nil {
			return &mixedRowIter{m: m, convert: convert, convRows: convRows{conv: convertBatch}}, nil
		}
	}
	ri, err := r.Read(ctx, s)
	if err != nil {
		return nil, err
	}
	if convert == nil {
		return ri, nil
	}
	return &convertRows{rows: ri, convert: convert}, nil
}

// readSplit reads one split in a worker and hands its converted rows to
// the consumer, parallelBatch at a time.
func (it *ParallelRows) readSplit(r *Reader, s *DataSplit, convert func([]any) error, convertBatch BatchRows) error {
	ri, err := r.readConverted(it.ctx, s, convert, convertBatch)
	if err != nil {
		return err
	}
	defer ri.Close()
	batch := make([][]any, 0, parallelBatch)
	flush := func() bool {
		if len(batch) == 0 {
			return true
		}
		select {
		case it.rows <- batch:
			batch = make([][]any, 0, parallelBatch)
			return true
		case <-it.ctx.Done():
			return false
		}
	}
	for {
		row, err := ri.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		batch = append(batch, row)
		if len(batch) == parallelBatch && !flush() {
			return nil
		}
	}
	flush()
	return ri.Close()
}

// convertRows passes each row of an iterator through convert.
type convertRows struct {
	rows    RowIterator
	convert func([]any) error
}

func (c *convertRows) Next() ([]any, error) {
	row, err := c.rows.Next()
	if err == nil {
		err = c.convert(row)
	}
	return row, err
}

func (c *convertRows) Close() error { return c.rows.Close() }

// convRows holds the rows conv made of one column batch and hands them out
// one at a time.
type convRows struct {
	conv BatchRows
	b    Batch
	rows [][]any
	i    int
}

// pop returns the next row made of the batch, if one is left.
func (c *convRows) pop() ([]any, bool) {
	if c.i >= len(c.rows) {
		return nil, false
	}
	row := c.rows[c.i]
	c.i++
	return row, true
}

// fill makes the rows of c.b, reusing the row slice.
func (c *convRows) fill() error {
	rows, err := c.conv(&c.b, c.rows[:0])
	if err != nil {
		return err
	}
	c.rows, c.i = rows, 0
	return nil
}

// batchRowIter is a RowIterator over the rows conv makes of column batches.
type batchRowIter struct {
	next  func(*Batch) error
	close func() error
	convRows
}

func (x *batchRowIter) Next() ([]any, error) {
	for {
		if row, ok := x.pop(); ok {
			return row, nil
		}
		if err := x.next(&x.b); err != nil {
			return nil, err
		}
		if err := x.fill(); err != nil {
			return nil, err
		}
	}
}

func (x *batchRowIter) Close() error { return x.close() }

// mixedRowIter is a RowIterator over a merged split: the rows of sections
// that need no merge are made by conv from their column batches, merged
// rows pass through convert.
type mixedRowIter struct {
	m       *mergeIterator
	convert func([]any) error
	convRows
}

func (x *mixedRowIter) Next() ([]any, error) {
	for {
		if row, ok := x.pop(); ok {
			return row, nil
		}
		row, isBatch, err := x.m.nextChunk(&x.b)
		if err != nil {
			return nil, err
		}
		if !isBatch {
			row = x.m.r.projectRow(row)
			if x.convert != nil {
				if err := x.convert(row); err != nil {
					return nil, err
				}
			}
			return row, nil
		}
		if err := x.fill(); err != nil {
			return nil, err
		}
	}
}

func (x *mixedRowIter) Close() error { return x.m.Close() }

// Next returns the next row, io.EOF after the last one, or the first error
// of any worker (or of the context).
func (it *ParallelRows) Next() ([]any, error) {
	if it.inline != nil {
		if it.err != nil {
			return nil, it.err
		}
		row, err := it.inline.Next()
		if err != nil && !errors.Is(err, io.EOF) {
			it.err = err
		}
		return row, err
	}
	for it.i >= len(it.batch) {
		b, ok := <-it.rows
		if !ok {
			select {
			case err := <-it.errc:
				it.err = err
			default:
			}
			if it.err != nil {
				return nil, it.err
			}
			if err := it.ctx.Err(); err != nil {
				return nil, err
			}
			return nil, io.EOF
		}
		it.batch, it.i = b, 0
	}
	row := it.batch[it.i]
	it.i++
	return row, nil
}

// Close stops the workers and waits for them.
func (it *ParallelRows) Close() error {
	if it.inline != nil {
		return it.inline.Close()
	}
	it.cancel()
	for range it.rows {
	}
	it.wg.Wait()
	return nil
}

// batchable reports whether ReadBatches reads split as column batches
// without merging rows: a raw split, or a merged one whose files need no
// merge (mergeIsRaw; an error there leaves the split to the other paths,
// which report it).
func (r *Reader) batchable(ctx context.Context, split *DataSplit) bool {
	if split.Mode == ReadRaw {
		// Keys the filter pins are looked up (Read), not scanned.
		return !r.lookupReadable(split, r.splitKeys(split))
	}
	ok, err := r.mergeIsRaw(ctx, split)
	return err == nil && ok
}
