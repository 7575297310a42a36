package access

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lakesql/lakesql/internal/storage"
)

// ErrConflict is returned by Store.Save when the stored accounts changed
// since the version the caller read.
var ErrConflict = errors.New("access: the accounts were changed by another server")

// Store keeps the serialized account data. A version is an opaque string;
// "" means nothing is stored yet.
type Store interface {
	// Version returns the current version without reading the data.
	Version(ctx context.Context) (string, error)
	// Load returns the current data and its version (nil, "" when empty).
	Load(ctx context.Context) ([]byte, string, error)
	// Save stores data as the successor of version base and returns the new
	// version; ErrConflict when base is no longer current.
	Save(ctx context.Context, data []byte, base string) (string, error)
	// String names the location for messages.
	String() string
}

// UsersDir is the warehouse folder of the account versions.
const UsersDir = storage.PrivateDir + "/users"

const usersPrefix = UsersDir + "/users-"

// keepVersions is how many old versions a Save leaves behind.
const keepVersions = 5

// WarehouseStore keeps the accounts in the warehouse as numbered versions.
type WarehouseStore struct{ st storage.Storage }

// NewWarehouseStore returns the store of a warehouse.
func NewWarehouseStore(st storage.Storage) *WarehouseStore { return &WarehouseStore{st: st} }

func (w *WarehouseStore) String() string { return w.st.URL() + "/" + UsersDir }

// versions lists the stored version numbers, ascending.
func (w *WarehouseStore) versions(ctx context.Context) ([]int64, error) {
	var out []int64
	for info, err := range w.st.List(ctx, usersPrefix) {
		if err != nil {
			if errors.Is(err, storage.ErrNotExist) {
				break
			}
			return nil, fmt.Errorf("access: list %s: %w", UsersDir, err)
		}
		n, err := strconv.ParseInt(strings.TrimPrefix(info.Path, usersPrefix), 10, 64)
		if err != nil || n <= 0 {
			continue // not ours
		}
		out = append(out, n)
	}
	// List is in lexical order; sort numerically.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out, nil
}

func (w *WarehouseStore) Version(ctx context.Context) (string, error) {
	vs, err := w.versions(ctx)
	if err != nil || len(vs) == 0 {
		return "", err
	}
	return strconv.FormatInt(vs[len(vs)-1], 10), nil
}

func (w *WarehouseStore) Load(ctx context.Context) ([]byte, string, error) {
	for attempt := 0; attempt < 3; attempt++ {
		v, err := w.Version(ctx)
		if err != nil || v == "" {
			return nil, "", err
		}
		data, err := w.st.ReadAll(ctx, usersPrefix+v)
		if errors.Is(err, storage.ErrNotExist) {
			continue // removed by a newer Save between list and read
		}
		if err != nil {
			return nil, "", fmt.Errorf("access: read %s%s: %w", usersPrefix, v, err)
		}
		return data, v, nil
	}
	return nil, "", fmt.Errorf("access: %s keeps changing; try again", UsersDir)
}

func (w *WarehouseStore) Save(ctx context.Context, data []byte, base string) (string, error) {
	cur, err := w.Version(ctx)
	if err != nil {
		return "", err
	}
	if cur != base {
		return "", ErrConflict
	}
	var n int64
	if base != "" {
		if n, err = strconv.ParseInt(base, 10, 64); err != nil {
			return "", fmt.Errorf("access: bad version %q: %w", base, err)
		}
	}
	next := strconv.FormatInt(n+1, 10)
	if err := w.st.CreateIfNotExists(ctx, usersPrefix+next, data); err != nil {
		if errors.Is(err, storage.ErrExist) {
			return "", ErrConflict
		}
		return "", fmt.Errorf("access: write %s%s: %w", usersPrefix, next, err)
	}
	if vs, err := w.versions(ctx); err == nil && len(vs) > keepVersions+1 {
		for _, old := range vs[:len(vs)-keepVersions-1] {
			_ = w.st.Delete(ctx, usersPrefix+strconv.FormatInt(old, 10)) // best effort; readers retry
		}
	}
	return next, nil
}

// FileStore keeps the accounts in one local file (--users-file), replaced
// atomically (temporary file, then rename). Its version is a hash of the
// content; the conflict check between two processes is best effort (read,
// compare, rename), unlike the warehouse store's.
type FileStore struct{ path string }

// NewFileStore returns the store of a local file.
func NewFileStore(path string) *FileStore { return &FileStore{path: path} }

func (f *FileStore) String() string { return f.path }

func (f *FileStore) Version(ctx context.Context) (string, error) {
	_, v, err := f.Load(ctx)
	return v, err
}

func (f *FileStore) Load(context.Context) ([]byte, string, error) {
	data, err := os.ReadFile(f.path)
	if errors.Is(err, os.ErrNotExist) || (err == nil && len(data) == 0) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("access: read %s: %w", f.path, err)
	}
	sum := sha256.Sum256(data)
	return data, hex.EncodeToString(sum[:8]), nil
}

func (f *FileStore) Save(ctx context.Context, data []byte, base string) (string, error) {
	if cur, err := f.Version(ctx); err != nil {
		return "", err
	} else if cur != base {
		return "", ErrConflict
	}
	dir := filepath.Dir(f.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("access: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(f.path)+".*")
	if err != nil {
		return "", fmt.Errorf("access: %w", err)
	}
	_, werr := tmp.Write(data)
	if serr := tmp.Sync(); werr == nil {
		werr = serr
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), f.path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("access: write %s: %w", f.path, werr)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8]), nil
}

// OpenStore opens the accounts store a command line names: the local file
// usersFile when set, else the warehouse's own store, written through the
// warehouse's commit lock commitLock (storage.ForCommits: "none" or
// "file:DIR"). close releases the warehouse.
func OpenStore(ctx context.Context, warehouse, usersFile, commitLock string) (store Store, close func() error, err error) {
	if usersFile != "" {
		abs, err := filepath.Abs(usersFile)
		if err != nil {
			return nil, nil, err
		}
		return NewFileStore(abs), func() error { return nil }, nil
	}
	st, err := storage.Open(ctx, warehouse)
	if err != nil {
		return nil, nil, fmt.Errorf("open warehouse %s: %w", warehouse, err)
	}
	w, err := storage.ForCommits(ctx, st, commitLock, 0)
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return NewWarehouseStore(w), st.Close, nil
}
