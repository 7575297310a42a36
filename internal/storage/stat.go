package storage

import (
	"context"
	"fmt"
	"io/fs"
	"os"
)

// Stater is the optional capability of reading an object's size and
// modification time without reading it. Callers that cache decoded
// objects (the snapshot manager) use it to revalidate: an object rewritten
// under the same path (a snapshot id re-used after a rollback) changes its
// modification time or size.
type Stater interface {
	// Stat describes path; a missing path gives ErrNotExist.
	Stat(ctx context.Context, path string) (ObjectInfo, error)
}

var (
	_ Stater = (*localStorage)(nil)
	_ Stater = (*blobStorage)(nil)
)

func (s *localStorage) Stat(ctx context.Context, p string) (ObjectInfo, error) {
	name, err := s.osPath("stat", p)
	if err != nil {
		return ObjectInfo{}, err
	}
	if err := ctx.Err(); err != nil {
		return ObjectInfo{}, localErr("stat", name, err)
	}
	st, err := os.Stat(name)
	if err == nil && !st.Mode().IsRegular() {
		err = fs.ErrNotExist // folders are not objects
	}
	if err != nil {
		return ObjectInfo{}, localErr("stat", name, err)
	}
	return ObjectInfo{Path: p, Size: st.Size(), ModTime: st.ModTime()}, nil
}

func (s *blobStorage) Stat(ctx context.Context, p string) (ObjectInfo, error) {
	key, err := s.key("stat", p)
	if err != nil {
		return ObjectInfo{}, err
	}
	a, err := s.b.Attributes(ctx, key)
	if err != nil {
		return ObjectInfo{}, s.blobErr("stat", key, err)
	}
	if a == nil {
		return ObjectInfo{}, fmt.Errorf("storage: stat %s: no attributes", key)
	}
	return ObjectInfo{Path: p, Size: a.Size, ModTime: a.ModTime}, nil
}
