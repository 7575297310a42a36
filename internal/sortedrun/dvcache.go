package sortedrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/lakesql/lakesql/internal/dv"
)

// DVCache loads deletion vectors, reading each index file once: the first
// load of a file reads it whole (index files roll at
// deletion-vector.index-file.target-size, 2 MB by default) and later loads
// decode their range from memory. It is safe for concurrent use; index files
// are immutable, so a cache may live as long as the read that made it (a
// plan) without going stale.
type DVCache struct {
	src   Source
	mu    sync.Mutex
	files map[string]*indexFile
	reads int // index files read, for tests
}

type indexFile struct {
	once sync.Once
	data []byte
	err  error
}

// NewDVCache returns an empty cache over src.
func NewDVCache(src Source) *DVCache {
	return &DVCache{src: src, files: map[string]*indexFile{}}
}

// Load returns the deletion vector d locates.
func (c *DVCache) Load(ctx context.Context, d *DeletionFile) (dv.DeletionVector, error) {
	c.mu.Lock()
	f, ok := c.files[d.Path]
	if !ok {
		f = &indexFile{}
		c.files[d.Path] = f
	}
	c.mu.Unlock()
	f.once.Do(func() {
		f.data, f.err = c.read(ctx, d.Path)
		c.mu.Lock()
		c.reads++
		c.mu.Unlock()
	})
	if f.err != nil {
		return nil, f.err
	}
	return dv.ReadDeletionVector(bytes.NewReader(f.data), d.Offset, d.Length)
}

func (c *DVCache) read(ctx context.Context, path string) ([]byte, error) {
	if !strings.Contains(path, ":") {
		data, err := c.src.Store.ReadAll(ctx, path)
		if err != nil {
			return nil, fmt.Errorf("sortedrun: read index file %s: %w", path, err)
		}
		return data, nil
	}
	f, err := c.src.openURL(ctx, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data := make([]byte, f.Size())
	if n, err := f.ReadAt(data, 0); err != nil && !(errors.Is(err, io.EOF) && n == len(data)) {
		return nil, fmt.Errorf("sortedrun: read index file %s: %w", path, err)
	}
	return data, nil
}

// IndexFilesRead is the number of index files the cache has read.
func (c *DVCache) IndexFilesRead() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reads
}
