package storage

import (
	"context"
	"errors"
	"io/fs"
	"iter"
	"path/filepath"
	"strings"
)

// TempLister is the optional capability of a store whose writes go
// through temporary files (the local backend: ".<name>.<random>.tmp"
// next to the target, renamed or linked into place): it lists the
// temporary files below dir, which List never shows. A writer killed
// before it published or removed its temporary file leaves it behind; orphan
// cleaning deletes those older than its guard (Java's
// OrphanFilesClean deletes every unreferenced file of the folders it
// lists, hidden temporary files included). Object stores write objects
// whole and have none.
type TempLister interface {
	// ListTemps yields the temporary files below dir ("" = the root),
	// with paths relative to the store's root: all of them (depth 0), or
	// those at most depth folders down (1: directly in dir; 2: also in
	// its sub-folders). A missing dir has none.
	ListTemps(ctx context.Context, dir string, depth int) iter.Seq2[ObjectInfo, error]
}

// ListTemps lists the temporary files below dir on st, recursively; a
// store without the capability has none.
func ListTemps(ctx context.Context, st Storage, dir string) iter.Seq2[ObjectInfo, error] {
	return ListTempsTo(ctx, st, dir, 0)
}

// ListTempsTo lists the temporary files below dir on st at most depth
// folders down (TempLister.ListTemps).
func ListTempsTo(ctx context.Context, st Storage, dir string, depth int) iter.Seq2[ObjectInfo, error] {
	if tl, ok := st.(TempLister); ok {
		return tl.ListTemps(ctx, dir, depth)
	}
	return func(func(ObjectInfo, error) bool) {}
}

// IsTempPath reports whether the object path p names a temporary file of
// the local backend.
func IsTempPath(p string) bool {
	return isTempName(p[strings.LastIndexByte(p, '/')+1:])
}

var (
	_ TempLister = (*localStorage)(nil)
	_ TempLister = (*faulty)(nil)
	_ TempLister = (*locked)(nil)
)

func (s *localStorage) ListTemps(ctx context.Context, dir string, depth int) iter.Seq2[ObjectInfo, error] {
	return func(yield func(ObjectInfo, error) bool) {
		root := s.root
		if dir = strings.TrimSuffix(dir, "/"); dir != "" {
			var err error
			if root, err = s.osPath("list temporary files", dir); err != nil {
				yield(ObjectInfo{}, err)
				return
			}
		}
		stop := errors.New("stop")
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if isMissing(err) {
					return nil // gone meanwhile (or dir never was): nothing below
				}
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			if d.IsDir() {
				if depth > 0 && p != root {
					if rel, err := filepath.Rel(root, p); err == nil && strings.Count(rel, string(filepath.Separator))+1 >= depth {
						return fs.SkipDir
					}
				}
				return nil
			}
			if !isTempName(d.Name()) {
				return nil
			}
			info, err := d.Info()
			if isMissing(err) {
				return nil // published or removed since the listing
			}
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(s.root, p)
			if err != nil {
				return err
			}
			if !yield(ObjectInfo{Path: filepath.ToSlash(rel), Size: info.Size(), ModTime: info.ModTime()}, nil) {
				return stop
			}
			return nil
		})
		if err != nil && err != stop {
			yield(ObjectInfo{}, localErr("list temporary files", root, err))
		}
	}
}

func (f *faulty) ListTemps(ctx context.Context, dir string, depth int) iter.Seq2[ObjectInfo, error] {
	return f.list(dir, func() iter.Seq2[ObjectInfo, error] { return ListTempsTo(ctx, f.st, dir, depth) })
}
