package storagetest

import (
	"context"
	"fmt"
	"iter"
	"time"

	"github.com/lakesql/lakesql/internal/storage"
)

// Skewed wraps a Storage whose clock is off by Skew from the local one
// (an object store's, by minutes): every modification time it reports
// (List, Stat, temporary files) is the wrapped store's plus Skew.
type Skewed struct {
	storage.Storage
	Skew time.Duration
}

// List implements storage.Storage.
func (s Skewed) List(ctx context.Context, prefix string) iter.Seq2[storage.ObjectInfo, error] {
	return s.shift(s.Storage.List(ctx, prefix))
}

// Stat implements storage.Stater.
func (s Skewed) Stat(ctx context.Context, p string) (storage.ObjectInfo, error) {
	st, ok := s.Storage.(storage.Stater)
	if !ok {
		return storage.ObjectInfo{}, fmt.Errorf("storagetest: %s cannot stat", s.Storage.URL())
	}
	info, err := st.Stat(ctx, p)
	if err == nil && !info.ModTime.IsZero() {
		info.ModTime = info.ModTime.Add(s.Skew)
	}
	return info, err
}

// ListTemps implements storage.TempLister.
func (s Skewed) ListTemps(ctx context.Context, dir string, depth int) iter.Seq2[storage.ObjectInfo, error] {
	return s.shift(storage.ListTempsTo(ctx, s.Storage, dir, depth))
}

// Sub implements storage.Storage.
func (s Skewed) Sub(dir string) storage.Storage { return Skewed{s.Storage.Sub(dir), s.Skew} }

func (s Skewed) shift(seq iter.Seq2[storage.ObjectInfo, error]) iter.Seq2[storage.ObjectInfo, error] {
	return func(yield func(storage.ObjectInfo, error) bool) {
		for info, err := range seq {
			if err == nil && !info.ModTime.IsZero() {
				info.ModTime = info.ModTime.Add(s.Skew)
			}
			if !yield(info, err) {
				return
			}
		}
	}
}
