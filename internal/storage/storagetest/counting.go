package storagetest

import (
	"context"
	"iter"
	"sync/atomic"

	"github.com/lakesql/lakesql/internal/storage"
)

// Counting wraps a Storage and counts the List calls made through it and
// the Storages its Sub returns (tests of what an operation lists).
type Counting struct {
	storage.Storage
	lists *atomic.Int64
}

// NewCounting wraps st.
func NewCounting(st storage.Storage) Counting { return Counting{st, &atomic.Int64{}} }

// Lists is the number of List calls so far.
func (c Counting) Lists() int64 { return c.lists.Load() }

// List implements storage.Storage.
func (c Counting) List(ctx context.Context, prefix string) iter.Seq2[storage.ObjectInfo, error] {
	c.lists.Add(1)
	return c.Storage.List(ctx, prefix)
}

// Sub implements storage.Storage.
func (c Counting) Sub(dir string) storage.Storage { return Counting{c.Storage.Sub(dir), c.lists} }
