package lookup

import (
	"container/list"
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/lakesql/lakesql/internal/kv"
)

// Options configure a Cache.
type Options struct {
	// MaxDiskBytes bounds the lookup files kept (least recently used go
	// first); 0 means DefaultMaxDiskBytes.
	MaxDiskBytes int64
	// MaxResidentBytes bounds the mapped lookup files whose pages may stay
	// in the process's memory (least recently used go first: their pages
	// are given back to the kernel and read again from the file when a
	// lookup reaches them); 0 means DefaultMaxResidentBytes. Java's
	// counterpart is lookup.cache-max-memory-size (256 mb).
	MaxResidentBytes int64
	// BlockBytes is the target block size; 0 means DefaultBlockBytes.
	BlockBytes int
	// Dir holds the (unlinked) lookup files; "" is os.TempDir().
	Dir string
}

// Defaults.
const (
	DefaultMaxDiskBytes     = 8 << 30
	DefaultMaxResidentBytes = 256 << 20
	DefaultBlockBytes       = 4 << 10
)

// Cache keeps lookup files by id (the caller's name for a data file read
// with one layout).
type Cache struct {
	opts Options
	mu   struct {
		sync.Mutex
		entries map[string]*entry
		lru     list.List // of *entry, most recent first
		bytes   int64
		// hot are the mapped files whose pages may be resident, most
		// recent first, hotBytes their sizes (≤ MaxResidentBytes but for
		// the newest one).
		hot      list.List // of *entry
		hotBytes int64
	}
	stats struct {
		hits, builds atomic.Int64
	}
}

type entry struct {
	id    string
	ready chan struct{} // closed when the build ended
	file  *File
	err   error
	elem  *list.Element
	hot   *list.Element // in Cache.mu.hot, or nil
}

// Shared is the process-wide cache of lookup files: point reads (lsmread)
// and lookup compaction (lsmwrite) share it, and the files they build with
// one layout under one id.
var Shared = NewCache(Options{})

// NewCache returns an empty cache.
func NewCache(opts Options) *Cache {
	if opts.MaxDiskBytes <= 0 {
		opts.MaxDiskBytes = DefaultMaxDiskBytes
	}
	if opts.MaxResidentBytes <= 0 {
		opts.MaxResidentBytes = DefaultMaxResidentBytes
	}
	if opts.BlockBytes <= 0 {
		opts.BlockBytes = DefaultBlockBytes
	}
	c := &Cache{opts: opts}
	c.mu.entries = map[string]*entry{}
	return c
}

// Source opens the data file a lookup file is built from: its records in
// key order, and the LSM level they carry.
type Source struct {
	Layout *Layout
	Level  int
	Open   func(ctx context.Context) (kv.RecordReader, error)
}

// Get returns the lookup file id, building it from src when the cache does
// not hold it. The caller must Release the file.
func (c *Cache) Get(ctx context.Context, id string, src Source) (*File, error) {
	c.mu.Lock()
	e := c.mu.entries[id]
	if e != nil && e.file != nil {
		// Built (the usual case): one lock.
		c.mu.lru.MoveToFront(e.elem)
		e.file.refs.Add(1)
		trim := c.touchLocked(e)
		c.mu.Unlock()
		giveBack(trim)
		c.stats.hits.Add(1)
		return e.file, nil
	}
	if e != nil {
		c.mu.lru.MoveToFront(e.elem)
		c.mu.Unlock()
		select {
		case <-e.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if e.err != nil {
			if ctx.Err() == nil && (errors.Is(e.err, context.Canceled) || errors.Is(e.err, context.DeadlineExceeded)) {
				return c.Get(ctx, id, src) // the builder's statement ended, not ours
			}
			return nil, e.err
		}
		c.mu.Lock()
		f := e.file
		ok := c.mu.entries[id] == e
		var trim []*File
		if ok {
			f.refs.Add(1)
			trim = c.touchLocked(e)
		}
		c.mu.Unlock()
		giveBack(trim)
		if ok {
			c.stats.hits.Add(1)
			return f, nil
		}
		return c.Get(ctx, id, src) // evicted meanwhile
	}
	e = &entry{id: id, ready: make(chan struct{})}
	e.elem = c.mu.lru.PushFront(e)
	c.mu.entries[id] = e
	c.mu.Unlock()

	f, err := c.build(ctx, src)
	c.mu.Lock()
	if err != nil {
		e.err = err
		c.removeLocked(e)
		c.mu.Unlock()
		close(e.ready)
		return nil, err
	}
	e.file = f
	f.refs.Store(2) // the cache's and the caller's
	c.mu.bytes += f.size
	c.evictLocked()
	var trim []*File
	if c.mu.entries[id] == e {
		trim = c.touchLocked(e)
	}
	c.mu.Unlock()
	giveBack(trim)
	close(e.ready)
	c.stats.builds.Add(1)
	return f, nil
}

func (c *Cache) build(ctx context.Context, src Source) (*File, error) {
	cs, err := src.Layout.codecs()
	if err != nil {
		return nil, err
	}
	run, err := src.Open(ctx)
	if err != nil {
		return nil, err
	}
	f, err := build(cs, run, src.Level, c.opts.BlockBytes, c.opts.Dir)
	if cerr := run.Close(); err == nil && cerr != nil {
		if f != nil {
			f.close()
		}
		return nil, cerr
	}
	return f, err
}

// Release gives back a file returned by Get.
func (c *Cache) Release(f *File) { f.release() }

// evictLocked drops least recently used built files beyond the budget.
func (c *Cache) evictLocked() {
	for el := c.mu.lru.Back(); el != nil && c.mu.bytes > c.opts.MaxDiskBytes; {
		prev := el.Prev()
		e := el.Value.(*entry)
		if e.file != nil && el != c.mu.lru.Front() {
			c.removeLocked(e)
		}
		el = prev
	}
}

// touchLocked makes e's file the most recently used mapped one and
// returns the files that fall out of the resident budget, each with a
// reference the caller gives back (giveBack) after unlocking.
func (c *Cache) touchLocked(e *entry) []*File {
	if e.file == nil || e.file.mapped == nil {
		return nil
	}
	if e.hot != nil {
		c.mu.hot.MoveToFront(e.hot)
		return nil
	}
	e.hot = c.mu.hot.PushFront(e)
	c.mu.hotBytes += e.file.size
	var trim []*File
	for c.mu.hotBytes > c.opts.MaxResidentBytes && c.mu.hot.Len() > 1 {
		old := c.mu.hot.Remove(c.mu.hot.Back()).(*entry)
		old.hot = nil
		c.mu.hotBytes -= old.file.size
		old.file.refs.Add(1) // the cache holds one while it is listed
		trim = append(trim, old.file)
	}
	return trim
}

// giveBack returns the pages of files out of the resident budget to the
// kernel (the mapping stays: a later lookup reads them from the file
// again) and drops the references touchLocked took.
func giveBack(files []*File) {
	for _, f := range files {
		adviseDontNeed(f.mapped)
		f.release()
	}
}

func (c *Cache) removeLocked(e *entry) {
	if c.mu.entries[e.id] != e {
		return
	}
	delete(c.mu.entries, e.id)
	c.mu.lru.Remove(e.elem)
	if e.hot != nil {
		c.mu.hot.Remove(e.hot)
		e.hot = nil
		c.mu.hotBytes -= e.file.size
	}
	if e.file != nil {
		c.mu.bytes -= e.file.size
		e.file.release()
	}
}

// Forget drops every lookup file whose id has the given prefix (a dropped
// table).
func (c *Cache) Forget(prefix string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, e := range c.mu.entries {
		if len(id) >= len(prefix) && id[:len(prefix)] == prefix && e.file != nil {
			c.removeLocked(e)
		}
	}
}

// Close drops every built lookup file.
func (c *Cache) Close() {
	c.Forget("")
}

// Stats are a cache's counters.
type Stats struct {
	Files int
	Bytes int64
	// ResidentBytes are the sizes of the mapped files whose pages may be
	// resident (MaxResidentBytes).
	ResidentBytes int64
	Hits, Builds  int64
}

// Stats returns the cache's counters.
func (c *Cache) Stats() Stats {
	c.mu.Lock()
	s := Stats{Files: len(c.mu.entries), Bytes: c.mu.bytes, ResidentBytes: c.mu.hotBytes}
	c.mu.Unlock()
	s.Hits, s.Builds = c.stats.hits.Load(), c.stats.builds.Load()
	return s
}
