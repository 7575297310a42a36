package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gocloud.dev/blob"
)

// DirLister is the optional capability to list the immediate sub-folders of
// a folder without listing every object below it (catalogs list databases
// and tables on every statement). Every backend here implements it.
type DirLister interface {
	// ListDirs returns the names of the sub-folders directly under dir
	// ("" = the root), sorted. A missing dir has none.
	ListDirs(ctx context.Context, dir string) ([]string, error)
}

// DirMaker is the optional capability to create an empty folder. Object
// stores have no folders; only the local backend implements it.
type DirMaker interface {
	MkdirAll(ctx context.Context, dir string) error
}

// ListDirs lists the immediate sub-folders of dir on st, using DirLister
// when st has it and a full listing otherwise.
func ListDirs(ctx context.Context, st Storage, dir string) ([]string, error) {
	if dl, ok := st.(DirLister); ok {
		return dl.ListDirs(ctx, dir)
	}
	prefix := strings.TrimSuffix(dir, "/")
	if prefix != "" {
		prefix += "/"
	}
	seen := map[string]bool{}
	for obj, err := range st.List(ctx, prefix) {
		if err != nil {
			return nil, err
		}
		rest := strings.TrimPrefix(obj.Path, prefix)
		if i := strings.IndexByte(rest, '/'); i > 0 {
			seen[rest[:i]] = true
		}
	}
	out := make([]string, 0, len(seen))
	for d := range seen {
		out = append(out, d)
	}
	sort.Strings(out)
	return out, nil
}

var (
	_ DirLister = (*localStorage)(nil)
	_ DirMaker  = (*localStorage)(nil)
	_ DirLister = (*blobStorage)(nil)
)

func (s *localStorage) ListDirs(ctx context.Context, dir string) ([]string, error) {
	dir = strings.TrimSuffix(dir, "/")
	if dir != "" {
		if err := checkPrefix(dir + "/"); err != nil {
			return nil, fmt.Errorf("storage: list folders of %s: %w", dir, err)
		}
	}
	p := filepath.Join(s.root, filepath.FromSlash(dir))
	entries, err := os.ReadDir(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("storage: list folders of %s: %w", p, err)
	}
	var out []string
	for _, e := range entries {
		// Like on an object store, a folder exists while it holds a
		// file: folders emptied by deletes are not listed.
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && hasFile(filepath.Join(p, e.Name())) {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

// hasFile reports whether dir holds a regular file (temp files aside)
// anywhere below it; it stops at the first one.
func hasFile(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if e.Type().IsRegular() && !isTempName(e.Name()) {
			return true
		}
	}
	for _, e := range entries {
		if e.IsDir() && hasFile(filepath.Join(dir, e.Name())) {
			return true
		}
	}
	return false
}

func (s *localStorage) MkdirAll(ctx context.Context, dir string) error {
	p := filepath.Join(s.root, filepath.FromSlash(strings.TrimSuffix(dir, "/")))
	if err := os.MkdirAll(p, dirPerm); err != nil {
		return fmt.Errorf("storage: create folder %s: %w", p, err)
	}
	return nil
}

func (s *blobStorage) ListDirs(ctx context.Context, dir string) ([]string, error) {
	prefix := strings.TrimSuffix(dir, "/")
	if prefix != "" {
		prefix += "/"
	}
	if s.prefix != "" {
		prefix = s.prefix + "/" + prefix
	}
	it := s.b.List(&blob.ListOptions{Prefix: prefix, Delimiter: "/"})
	var out []string
	for {
		obj, err := it.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, s.blobErr("list folders", prefix, err)
		}
		if obj.IsDir {
			out = append(out, strings.TrimSuffix(strings.TrimPrefix(obj.Key, prefix), "/"))
		}
	}
	sort.Strings(out)
	return out, nil
}
