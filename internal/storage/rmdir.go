package storage

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// EmptyDirRemover is the optional capability to remove folders left empty
// after their files were deleted (branches dropped, data files expired).
// Object stores have no folders; only the local backend implements it.
type EmptyDirRemover interface {
	// RemoveEmptyDirs removes dir and every folder below it that holds no
	// file, deepest first; folders that hold files stay. A missing dir is
	// not an error. An empty dir is the storage's own root (a dropped
	// table's folder, through the table's storage).
	RemoveEmptyDirs(ctx context.Context, dir string) error
}

var _ EmptyDirRemover = (*localStorage)(nil)

func (s *localStorage) RemoveEmptyDirs(ctx context.Context, dir string) error {
	root := s.root
	if dir != "" {
		var err error
		if root, err = s.osPath("remove empty folders", dir); err != nil {
			return err
		}
	}
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() {
			dirs = append(dirs, p)
		}
		return ctx.Err()
	})
	if err != nil {
		return localErr("remove empty folders", root, err)
	}
	slices.Reverse(dirs) // children before parents
	for _, d := range dirs {
		_ = os.Remove(d) // fails, harmlessly, while the folder holds anything
	}
	return nil
}
