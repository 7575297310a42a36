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
	// or a lookup-join probe: no goroutine is worth starting).
	inline RowIterator
	// inlineDone: the inline iterator's rows are converted already.
	inlineDone bool
	convert    func([]any) error
	ctx        context.Context
	cancel     context.CancelFunc
	rows       chan [][]any
	errc       chan error
	wg         sync.WaitGroup
	batch      [][]any
	i          int
	err        error
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
// the splits that need no merge (ReadRaw: append, deletion-vector and
// first-row tables, read-optimized scans; and merged splits whose files
// hold disjoint keys, mergeIsRaw) are read as column batches
// (ReadBatches) and their rows made by convertBatch straight from the
// vectors; merged splits are read as rows through convert.
func (r *Reader) ReadParallelBatches(ctx context.Context, splits []*DataSplit, convert func(row []any) error, convertBatch BatchRows) *ParallelRows {
	if len(splits) <= 1 {
		it := &ParallelRows{ctx: ctx, cancel: func() {}, convert: convert}
		if len(splits) == 0 {
			it.inline = &sliceRows{}
		} else if convertBatch != nil && r.batchable(ctx, splits[0]) {
			var bi BatchIterator
			if bi, it.err = r.ReadBatches(ctx, splits[0]); it.err != nil {
				it.inline = &sliceRows{}
			} else {
				it.inline, it.inlineDone = &batchRowIter{it: bi, conv: convertBatch}, true
			}
		} else if it.inline, it.err = r.Read(ctx, splits[0]); it.err != nil {
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
				var err error
				if convertBatch != nil && r.batchable(cctx, s) {
					err = it.readSplitBatches(r, s, convertBatch)
				} else {
					err = it.readSplit(r, s, convert)
				}
				if err != nil {
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

func (it *ParallelRows) readSplit(r *Reader, s *DataSplit, convert func([]any) error) error {
	ri, err := r.Read(it.ctx, s)
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
		if convert != nil {
			if err := convert(row); err != nil {
				return err
			}
		}
		batch = append(batch, row)
		if len(batch) == parallelBatch && !flush() {
			return nil
		}
	}
	flush()
	return ri.Close()
}

// readSplitBatches reads a raw split as column batches and hands the rows
// convert makes of them to the consumer.
func (it *ParallelRows) readSplitBatches(r *Reader, s *DataSplit, convert BatchRows) error {
	bi, err := r.ReadBatches(it.ctx, s)
	if err != nil {
		return err
	}
	defer bi.Close()
	var b Batch
	rows := make([][]any, 0, parallelBatch)
	for {
		err := bi.Next(&b)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if rows, err = convert(&b, rows); err != nil {
			return err
		}
		if len(rows) >= parallelBatch {
			select {
			case it.rows <- rows:
				rows = make([][]any, 0, parallelBatch)
			case <-it.ctx.Done():
				return nil
			}
		}
	}
	if len(rows) > 0 {
		select {
		case it.rows <- rows:
		case <-it.ctx.Done():
			return nil
		}
	}
	return bi.Close()
}

// batchRowIter is a RowIterator over the rows convert makes of a split's
// column batches.
type batchRowIter struct {
	it   BatchIterator
	conv BatchRows
	b    Batch
	rows [][]any
	i    int
}

func (x *batchRowIter) Next() ([]any, error) {
	for x.i >= len(x.rows) {
		if err := x.it.Next(&x.b); err != nil {
			return nil, err
		}
		rows, err := x.conv(&x.b, x.rows[:0])
		if err != nil {
			return nil, err
		}
		x.rows, x.i = rows, 0
	}
	row := x.rows[x.i]
	x.i++
	return row, nil
}

func (x *batchRowIter) Close() error { return x.it.Close() }

// Next returns the next row, io.EOF after the last one, or the first error
// of any worker (or of the context).
func (it *ParallelRows) Next() ([]any, error) {
	if it.inline != nil {
		if it.err != nil {
			return nil, it.err
		}
		row, err := it.inline.Next()
		if err == nil && it.convert != nil && !it.inlineDone {
			err = it.convert(row)
		}
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
// merge (mergeIsRaw; an error there leaves the split to the row path,
// which reports it).
func (r *Reader) batchable(ctx context.Context, split *DataSplit) bool {
	if split.Mode == ReadRaw {
		// Keys the filter pins are looked up (Read), not scanned.
		return !r.lookupReadable(split, r.splitKeys(split))
	}
	ok, err := r.mergeIsRaw(ctx, split)
	return err == nil && ok
}
