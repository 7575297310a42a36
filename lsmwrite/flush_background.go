package lsmwrite

import (
	"cmp"
	"context"
	"runtime"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/metrics"
)

// Background flush. A statement's TableWrite (WriteStatement) hands full
// bucket buffers to a goroutine that sorts, merges, encodes and
// compresses them into level-0 files while Write goes on filling new
// buffers, instead of stopping the statement for every flush: on a
// LOAD DATA the reader, the conversion and the flush then run at once.
//
// Memory stays bounded by write-buffer-size: the bytes of the buffers in
// flight count until their files are written. A flush starts when the
// buffered bytes pass flushAheadAt of the write buffer (one flush in flight
// at a time); Write waits for it only when the buffered bytes pass the
// whole write buffer. A bucket's buffers are written in the order they
// were taken (one flush in flight), so its files keep their sequence
// order. Everything else that looks at the buckets' files (Flush,
// Prepare, Abort, FilesWritten) first waits for the flush in flight. A
// failed flush's error is returned by every later Write, Flush and
// Prepare.

// flushAheadAt is the fraction of write-buffer-size at which a
// background flush starts, and what it takes at least: the buffers of
// the largest buckets that together hold 1-flushAheadAt of the write
// buffer, so the rows written meanwhile fit in what is left.
const flushAheadAt = 0.75

// flushJob is a flush in flight: bucket buffers taken off the write
// buffer, written by a goroutine.
type flushJob struct {
	parts []flushPart
	done  chan struct{}
	err   error
}

// flushPart is one bucket's buffer taken for a flush.
type flushPart struct {
	bs    *bucketState
	buf   []kv.KeyValue
	bytes int64
}

// flushAhead starts a background flush when the buffered bytes pass
// flushAheadAt of the write buffer, and waits for the flush in flight
// when they pass the whole of it.
func (w *TableWrite) flushAhead(ctx context.Context) error {
	limit := w.core.WriteBufferSize
	if w.bufBytes > limit && w.inflight != nil {
		if err := w.waitFlush(); err != nil {
			return err
		}
	}
	if w.inflight != nil || float64(w.bufBytes) <= flushAheadAt*float64(limit) {
		return nil
	}
	w.startFlush(ctx, int64((1-flushAheadAt)*float64(limit)))
	if w.bufBytes > limit {
		return w.waitFlush() // the write buffer is full: wait for it
	}
	return nil
}

// startFlush takes the buffers of the largest buckets holding at least
// want bytes (at least one) and writes them in a new goroutine.
func (w *TableWrite) startFlush(ctx context.Context, want int64) {
	var all []*bucketState
	for _, p := range w.partOrder {
		for _, bs := range p.buckets {
			if bs.bytes > 0 {
				all = append(all, bs)
			}
		}
	}
	slices.SortFunc(all, func(a, b *bucketState) int { return cmp.Compare(b.bytes, a.bytes) })
	job := &flushJob{done: make(chan struct{})}
	var took int64
	for _, bs := range all {
		if took >= want && len(job.parts) > 0 {
			break
		}
		job.parts = append(job.parts, flushPart{bs: bs, buf: bs.buf, bytes: bs.bytes})
		took += bs.bytes
		bs.buf, bs.bytes = nil, 0
		if n := len(w.spare); n > 0 { // a used buffer, so the bucket does not grow one again
			bs.buf, w.spare = w.spare[n-1], w.spare[:n-1]
		}
	}
	if len(job.parts) == 0 {
		return
	}
	w.inflight = job
	go func() {
		defer close(job.done)
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(runtime.GOMAXPROCS(0))
		for i := range job.parts {
			part := &job.parts[i]
			g.Go(func() error {
				return w.writeSorted(gctx, part.bs, part.buf, w.sortBuffer(part.buf, nil))
			})
		}
		job.err = g.Wait()
	}()
}

// waitFlush waits for the flush in flight, if any, and gives its
// buffers' bytes back; it returns the first flush error of w.
func (w *TableWrite) waitFlush() error {
	job := w.inflight
	if job == nil {
		return w.flushErr
	}
	<-job.done
	w.inflight = nil
	for _, part := range job.parts {
		w.bufBytes -= part.bytes
		metrics.WriteBufferBytes.Add(-part.bytes)
		if cap(part.buf) > keepBufCap && len(w.spare) < maxSpareBufs && !w.closed {
			clear(part.buf)
			w.spare = append(w.spare, part.buf[:0])
		}
	}
	if job.err != nil && w.flushErr == nil {
		w.flushErr = job.err
	}
	return w.flushErr
}
