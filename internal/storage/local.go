package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// localStorage is the file:// backend: a folder on the OS filesystem.
//
// Writes go to a hidden temp file in the target's folder (".<name>.<rand>.tmp",
// skipped by List) and are renamed into place on Close. CreateIfNotExists
// publishes its temp file with link(2), which fails with EEXIST when the
// target exists, so it is atomic across OS processes on any POSIX
// filesystem with hard links.
type localStorage struct {
	root   string // absolute, OS separators
	noSync bool   // skip fsync before publishing (file URL query fsync=false)
	top    string // the root of the store opened (Sub keeps it): DirVersion watches the folders up to it
	watch  bool   // DirVersion trusts inotify on this file system (watchable)
	// watchNames are the OS paths of the folders DirVersion was asked
	// about (dir → string), kept per store.
	watchNames *sync.Map
}

var _ Storage = (*localStorage)(nil)

// OpenLocal opens the local folder dir as a Storage, creating it if missing.
// A relative dir is made absolute against the working directory.
func OpenLocal(dir string) (Storage, error) { return openLocal(dir, false) }

func openLocal(dir string, noSync bool) (Storage, error) {
	if dir == "" {
		return nil, fmt.Errorf("%w: empty local folder", ErrInvalidPath)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("storage: open local folder %s: %w", dir, err)
	}
	if err := os.MkdirAll(abs, dirPerm); err != nil {
		return nil, fmt.Errorf("storage: create local folder %s: %w", abs, err)
	}
	return &localStorage{root: abs, noSync: noSync, top: abs, watch: watchable(abs), watchNames: &sync.Map{}}, nil
}

// openFileURL opens "file://<path>[?fsync=false]": everything after
// "file://" up to '?' is the path, so file:///abs is /abs and file://./rel
// is ./rel. fsync=false skips fsync before publishing a file: much faster,
// not crash-safe; meant for tests and scratch warehouses.
func openFileURL(_ context.Context, location string) (Storage, error) {
	_, p, _ := strings.Cut(location, "://")
	p, query, _ := strings.Cut(p, "?")
	noSync := false
	switch query {
	case "", "fsync=true":
	case "fsync=false":
		noSync = true
	default:
		return nil, fmt.Errorf("storage: open %s: unsupported file URL query %q (only fsync=false)", location, query)
	}
	return openLocal(p, noSync)
}

func (s *localStorage) URL() string {
	u := "file://" + filepath.ToSlash(s.root)
	if s.noSync {
		u += "?fsync=false"
	}
	return u
}

// sync flushes f to stable storage unless the store was opened fsync=false.
func (s *localStorage) sync(f *os.File) error {
	if s.noSync {
		return nil
	}
	return f.Sync()
}

func (s *localStorage) Close() error { return nil }

func (s *localStorage) Sub(dir string) Storage {
	dir = strings.TrimSuffix(dir, "/")
	if dir == "" {
		return s
	}
	if err := checkPath(dir); err != nil {
		return errStorage{fmt.Errorf("storage: sub %s of %s: %w", dir, s.URL(), err)}
	}
	return &localStorage{root: filepath.Join(s.root, filepath.FromSlash(dir)), noSync: s.noSync, top: s.top, watch: s.watch, watchNames: &sync.Map{}}
}

// osPath validates p and returns its OS path.
func (s *localStorage) osPath(op, p string) (string, error) {
	if err := checkPath(p); err != nil {
		return "", fmt.Errorf("storage: %s in %s: %w", op, s.URL(), err)
	}
	return filepath.Join(s.root, filepath.FromSlash(p)), nil
}

// localErr names the path and maps "missing" OS errors to ErrNotExist.
func localErr(op, name string, err error) error {
	if isMissing(err) {
		return fmt.Errorf("storage: %s %s: %w", op, name, ErrNotExist)
	}
	return fmt.Errorf("storage: %s %s: %w", op, name, err)
}

// isMissing reports whether an OS error means the object is absent
// (including "a parent is a file", ENOTDIR).
func isMissing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

func (s *localStorage) Open(ctx context.Context, p string) (File, error) {
	name, err := s.osPath("open", p)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, localErr("open", name, err)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, localErr("open", name, err)
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fs.ErrNotExist // a folder is not an object
	}
	if err != nil {
		_ = f.Close() // read-only file: nothing to lose
		return nil, localErr("open", name, err)
	}
	return &localFile{ctx: ctx, f: f, size: st.Size()}, nil
}

// localFile reads through *os.File's ReadAt (pread), safe for concurrent use.
// It keeps the context of Open, as blobFile does: a read after the context
// ended fails with its error, so a canceled scan stops at its next read.
type localFile struct {
	ctx  context.Context
	f    *os.File
	size int64
}

func (f *localFile) ReadAt(p []byte, off int64) (int, error) {
	if err := f.ctx.Err(); err != nil {
		return 0, localErr("read", f.f.Name(), err)
	}
	n, err := f.f.ReadAt(p, off)
	localRead.Add(uint64(n))
	return n, err
}
func (f *localFile) Size() int64  { return f.size }
func (f *localFile) Close() error { return f.f.Close() }

func (s *localStorage) ReadAll(ctx context.Context, p string) ([]byte, error) {
	name, err := s.osPath("read", p)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, localErr("read", name, err)
	}
	b, err := os.ReadFile(name)
	if errors.Is(err, syscall.EISDIR) {
		err = fs.ErrNotExist
	}
	if err != nil {
		return nil, localErr("read", name, err)
	}
	localRead.Add(uint64(len(b)))
	return b, nil
}

// Files are created 0644 and folders 0755, both less the process umask, so
// another engine running as another OS user (Flink, Spark, a second
// lakesql) can read the warehouse. os.CreateTemp would create 0600.
const (
	filePerm = 0o644
	dirPerm  = 0o755
)

// PrivateDir is the warehouse folder that holds lakesql's own secrets (the
// accounts, with their password hashes): a local backend creates what lies
// under it 0600 (folders 0700), readable by the server's OS user only, as
// MySQL keeps its data directory. Paimon catalogs ignore it (no .db suffix).
const PrivateDir = "_lakesql"

// isPrivate reports whether the warehouse-relative path p lies under PrivateDir.
func isPrivate(p string) bool {
	p = strings.TrimPrefix(filepath.ToSlash(p), "/")
	return p == PrivateDir || strings.HasPrefix(p, PrivateDir+"/")
}

// tempFile creates a hidden temp file next to name (mode filePerm, or 0600
// when private), creating the folder. The rename or link that publishes it
// keeps the mode.
func tempFile(name string, private bool) (*os.File, error) {
	dir, base := filepath.Split(name)
	fperm, dperm := os.FileMode(filePerm), os.FileMode(dirPerm)
	if private {
		fperm, dperm = 0o600, 0o700
	}
	if err := os.MkdirAll(dir, dperm); err != nil {
		return nil, err
	}
	for range 100 {
		tmp := filepath.Join(dir, "."+base+"."+strconv.FormatUint(rand.Uint64(), 36)+tempSuffix)
		f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, fperm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if errors.Is(err, fs.ErrNotExist) {
			// The folder was removed as empty meanwhile (a dropped table's
			// folders, RemoveEmptyDirs): make it again.
			if err := os.MkdirAll(dir, dperm); err != nil {
				return nil, err
			}
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("storage: no free temp name next to %s: %w", name, fs.ErrExist)
}

const tempSuffix = ".tmp"

// isTempName reports whether a file name is one of our temp files.
func isTempName(base string) bool {
	return strings.HasPrefix(base, ".") && strings.HasSuffix(base, tempSuffix)
}

func (s *localStorage) Create(ctx context.Context, p string) (io.WriteCloser, error) {
	name, err := s.osPath("create", p)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, localErr("create", name, err)
	}
	f, err := tempFile(name, isPrivate(p))
	if err != nil {
		return nil, localErr("create", name, err)
	}
	return &localWriter{ctx: ctx, s: s, f: f, name: name}, nil
}

// localWriter writes a temp file and renames it over name on Close.
type localWriter struct {
	ctx    context.Context
	s      *localStorage
	f      *os.File
	name   string
	closed bool
}

func (w *localWriter) Write(p []byte) (int, error) {
	if w.closed {
		return 0, fmt.Errorf("storage: write %s: %w", w.name, os.ErrClosed)
	}
	n, err := w.f.Write(p)
	localWritten.Add(uint64(n))
	if err != nil {
		return n, localErr("write", w.name, err)
	}
	return n, nil
}

// Close publishes the file unless the context was canceled or a write
// failed; on error nothing is published and the temp file is removed.
func (w *localWriter) Close() error {
	if w.closed {
		return fmt.Errorf("storage: close %s: %w", w.name, os.ErrClosed)
	}
	w.closed = true
	err := w.ctx.Err()
	if err == nil {
		err = w.s.sync(w.f)
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(w.f.Name(), w.name)
	}
	if err != nil {
		_ = os.Remove(w.f.Name()) // best effort; List hides temp files anyway
		return localErr("write", w.name, err)
	}
	return nil
}

func (s *localStorage) WriteAll(ctx context.Context, p string, data []byte) error {
	w, err := s.Create(ctx, p)
	if err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		_ = w.(*localWriter).abort()
		return err
	}
	return w.Close()
}

// abort discards an unfinished write.
func (w *localWriter) abort() error {
	w.closed = true
	_ = w.f.Close()
	return os.Remove(w.f.Name())
}

func (s *localStorage) CreateIfNotExists(ctx context.Context, p string, data []byte) error {
	st, err := s.StageIfNotExists(ctx, p, data)
	if err != nil {
		return err
	}
	return st.Publish(ctx)
}

func (s *localStorage) Delete(ctx context.Context, p string) error {
	name, err := s.osPath("delete", p)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return localErr("delete", name, err)
	}
	st, err := os.Lstat(name)
	if err == nil && st.IsDir() {
		err = fs.ErrNotExist // never remove folders: they are not objects
	}
	if err == nil {
		err = os.Remove(name)
	}
	if err != nil {
		return localErr("delete", name, err)
	}
	return nil
}

func (s *localStorage) Exists(ctx context.Context, p string) (bool, error) {
	name, err := s.osPath("exists", p)
	if err != nil {
		return false, err
	}
	if err := ctx.Err(); err != nil {
		return false, localErr("exists", name, err)
	}
	st, err := os.Stat(name)
	switch {
	case err == nil:
		return st.Mode().IsRegular(), nil
	case isMissing(err):
		return false, nil
	default:
		return false, localErr("exists", name, err)
	}
}

// List walks the folder holding prefix's last element, depth first, ordering
// each folder's entries by name with '/' appended to sub-folders, which
// yields paths in lexical order ("a-c" < "a/b" < "a0").
func (s *localStorage) List(ctx context.Context, prefix string) iter.Seq2[ObjectInfo, error] {
	return func(yield func(ObjectInfo, error) bool) {
		if err := checkPrefix(prefix); err != nil {
			yield(ObjectInfo{}, fmt.Errorf("storage: list %s: %w", s.URL(), err))
			return
		}
		dir, rest := "", prefix
		if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
			dir, rest = prefix[:i], prefix[i+1:]
		}
		s.walk(ctx, dir, rest, yield)
	}
}

type dirEntry struct {
	key string // name, plus '/' for folders
	d   fs.DirEntry
}

// walk yields the objects below folder rel whose names start with
// namePrefix; it returns false when iteration must stop.
func (s *localStorage) walk(ctx context.Context, rel, namePrefix string, yield func(ObjectInfo, error) bool) bool {
	osDir := filepath.Join(s.root, filepath.FromSlash(rel))
	if err := ctx.Err(); err != nil {
		yield(ObjectInfo{}, localErr("list", osDir, err))
		return false
	}
	ents, err := os.ReadDir(osDir)
	if err != nil {
		if isMissing(err) {
			return true // nothing stored below: an empty listing
		}
		yield(ObjectInfo{}, localErr("list", osDir, err))
		return false
	}
	sorted := make([]dirEntry, 0, len(ents))
	for _, d := range ents {
		name := d.Name()
		if !strings.HasPrefix(name, namePrefix) || isTempName(name) {
			continue
		}
		key := name
		if d.IsDir() {
			key += "/"
		}
		sorted = append(sorted, dirEntry{key: key, d: d})
	}
	slices.SortFunc(sorted, func(a, b dirEntry) int { return strings.Compare(a.key, b.key) })
	for _, e := range sorted {
		p := joinPath(rel, e.d.Name())
		if e.d.IsDir() {
			if !s.walk(ctx, p, "", yield) {
				return false
			}
			continue
		}
		info, err := e.d.Info()
		if isMissing(err) {
			continue // deleted since ReadDir
		}
		if err != nil {
			yield(ObjectInfo{}, localErr("list", filepath.Join(osDir, e.d.Name()), err))
			return false
		}
		if !info.Mode().IsRegular() {
			continue
		}
		if !yield(ObjectInfo{Path: p, Size: info.Size(), ModTime: info.ModTime()}, nil) {
			return false
		}
	}
	return true
}
