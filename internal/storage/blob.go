package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// blobStorage is a Storage over a gocloud.dev/blob bucket (mem://, s3://).
// Objects are keyed prefix + "/" + path inside the bucket.
type blobStorage struct {
	b      *blob.Bucket
	base   string // "mem://name", "s3://bucket"
	prefix string // "" or "a/b", no trailing '/'
	query  string // raw query kept in URL() so Open(URL()) reopens the same store
	// closeBucket is set on the Storage that owns b (a root that is not
	// shared); Subs and shared mem buckets never close it.
	closeBucket bool
}

var _ Storage = (*blobStorage)(nil)

func (s *blobStorage) URL() string {
	u := s.base
	if s.prefix != "" {
		u += "/" + s.prefix
	}
	if s.query != "" {
		u += "?" + s.query
	}
	return u
}

// read and written count bytes in the backend's storage metrics.
func (s *blobStorage) read(n int) {
	r, _ := backendCounters(s.scheme())
	r.Add(uint64(n))
}

func (s *blobStorage) written(n int) {
	_, w := backendCounters(s.scheme())
	w.Add(uint64(n))
}

func (s *blobStorage) scheme() string {
	sc, _, _ := strings.Cut(s.base, "://")
	return sc
}

func (s *blobStorage) Close() error {
	if !s.closeBucket {
		return nil
	}
	if err := s.b.Close(); err != nil {
		return fmt.Errorf("storage: close %s: %w", s.URL(), err)
	}
	return nil
}

func (s *blobStorage) Sub(dir string) Storage {
	dir = strings.TrimSuffix(dir, "/")
	if dir == "" {
		return &blobStorage{b: s.b, base: s.base, prefix: s.prefix, query: s.query}
	}
	if err := checkPath(dir); err != nil {
		return errStorage{fmt.Errorf("storage: sub %s of %s: %w", dir, s.URL(), err)}
	}
	return &blobStorage{b: s.b, base: s.base, prefix: joinPath(s.prefix, dir), query: s.query}
}

// key validates p and returns its bucket key.
func (s *blobStorage) key(op, p string) (string, error) {
	if err := checkPath(p); err != nil {
		return "", fmt.Errorf("storage: %s in %s: %w", op, s.URL(), err)
	}
	return joinPath(s.prefix, p), nil
}

// blobErr names the object and maps gocloud's error codes to our sentinels.
func (s *blobStorage) blobErr(op, key string, err error) error {
	name := s.base + "/" + key
	switch gcerrors.Code(err) {
	case gcerrors.NotFound:
		return fmt.Errorf("storage: %s %s: %w", op, name, ErrNotExist)
	case gcerrors.FailedPrecondition:
		if op == opCreateIfNotExists {
			return fmt.Errorf("storage: %s %s: %w", op, name, ErrExist)
		}
	}
	return fmt.Errorf("storage: %s %s: %w", op, name, err)
}

const opCreateIfNotExists = "create-if-not-exists"

func (s *blobStorage) Open(ctx context.Context, p string) (File, error) {
	key, err := s.key("open", p)
	if err != nil {
		return nil, err
	}
	attrs, err := s.b.Attributes(ctx, key)
	if err != nil {
		return nil, s.blobErr("open", key, err)
	}
	return &blobFile{ctx: ctx, s: s, key: key, size: attrs.Size}, nil
}

// blobFile serves each ReadAt with one range request. It keeps the context
// of Open, since io.ReaderAt takes none.
type blobFile struct {
	ctx  context.Context
	s    *blobStorage
	key  string
	size int64
}

func (f *blobFile) Size() int64  { return f.size }
func (f *blobFile) Close() error { return nil }

func (f *blobFile) ReadAt(p []byte, off int64) (int, error) {
	if err := f.ctx.Err(); err != nil {
		return 0, f.s.blobErr("read", f.key, err)
	}
	if off < 0 {
		return 0, fmt.Errorf("storage: read %s/%s: negative offset %d", f.s.base, f.key, off)
	}
	if off >= f.size {
		return 0, io.EOF
	}
	want := min(int64(len(p)), f.size-off)
	if want == 0 {
		return 0, nil
	}
	r, err := f.s.b.NewRangeReader(f.ctx, f.key, off, want, nil)
	if err != nil {
		return 0, f.s.blobErr("read", f.key, err)
	}
	n, err := io.ReadFull(r, p[:want])
	f.s.read(n)
	if cerr := r.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			err = fmt.Errorf("object shrank below %d bytes: %w", f.size, io.ErrUnexpectedEOF)
		}
		return n, f.s.blobErr("read", f.key, err)
	}
	if int64(len(p)) > want {
		return n, io.EOF
	}
	return n, nil
}

func (s *blobStorage) ReadAll(ctx context.Context, p string) ([]byte, error) {
	key, err := s.key("read", p)
	if err != nil {
		return nil, err
	}
	b, err := s.b.ReadAll(ctx, key)
	if err != nil {
		return nil, s.blobErr("read", key, err)
	}
	s.read(len(b))
	return b, nil
}

// writerOptions skips gocloud's content sniffing; objects are opaque bytes.
func writerOptions(ifNotExist bool) *blob.WriterOptions {
	return &blob.WriterOptions{ContentType: "application/octet-stream", IfNotExist: ifNotExist}
}

func (s *blobStorage) Create(ctx context.Context, p string) (io.WriteCloser, error) {
	key, err := s.key("create", p)
	if err != nil {
		return nil, err
	}
	w, err := s.b.NewWriter(ctx, key, writerOptions(false))
	if err != nil {
		return nil, s.blobErr("create", key, err)
	}
	return &blobWriter{w: w, s: s, key: key, op: "write"}, nil
}

// blobWriter names the object in its errors.
type blobWriter struct {
	w   *blob.Writer
	s   *blobStorage
	key string
	op  string
}

func (w *blobWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	w.s.written(n)
	if err != nil {
		return n, w.s.blobErr(w.op, w.key, err)
	}
	return n, nil
}

func (w *blobWriter) Close() error {
	if err := w.w.Close(); err != nil {
		return w.s.blobErr(w.op, w.key, err)
	}
	return nil
}

func (s *blobStorage) WriteAll(ctx context.Context, p string, data []byte) error {
	key, err := s.key("write", p)
	if err != nil {
		return err
	}
	if err := s.b.WriteAll(ctx, key, data, writerOptions(false)); err != nil {
		return s.blobErr("write", key, err)
	}
	s.written(len(data))
	return nil
}

func (s *blobStorage) CreateIfNotExists(ctx context.Context, p string, data []byte) error {
	key, err := s.key(opCreateIfNotExists, p)
	if err != nil {
		return err
	}
	if err := s.b.WriteAll(ctx, key, data, writerOptions(true)); err != nil {
		return s.blobErr(opCreateIfNotExists, key, err)
	}
	s.written(len(data))
	return nil
}

func (s *blobStorage) Delete(ctx context.Context, p string) error {
	key, err := s.key("delete", p)
	if err != nil {
		return err
	}
	if err := s.b.Delete(ctx, key); err != nil {
		return s.blobErr("delete", key, err)
	}
	return nil
}

func (s *blobStorage) Exists(ctx context.Context, p string) (bool, error) {
	key, err := s.key("exists", p)
	if err != nil {
		return false, err
	}
	ok, err := s.b.Exists(ctx, key)
	if err != nil {
		return false, s.blobErr("exists", key, err)
	}
	return ok, nil
}

// List relies on the bucket listing keys in lexical order, which memblob and
// S3 (ListObjectsV2, UTF-8 binary order) both guarantee.
func (s *blobStorage) List(ctx context.Context, prefix string) iter.Seq2[ObjectInfo, error] {
	return func(yield func(ObjectInfo, error) bool) {
		if err := checkPrefix(prefix); err != nil {
			yield(ObjectInfo{}, fmt.Errorf("storage: list %s: %w", s.URL(), err))
			return
		}
		keyPrefix := prefix
		strip := 0
		if s.prefix != "" {
			keyPrefix = s.prefix + "/" + prefix
			strip = len(s.prefix) + 1
		}
		it := s.b.List(&blob.ListOptions{Prefix: keyPrefix})
		for {
			obj, err := it.Next(ctx)
			if err == io.EOF {
				return
			}
			if err != nil {
				yield(ObjectInfo{}, s.blobErr("list", keyPrefix, err))
				return
			}
			if obj.IsDir {
				continue
			}
			if !yield(ObjectInfo{Path: obj.Key[strip:], Size: obj.Size, ModTime: obj.ModTime}, nil) {
				return
			}
		}
	}
}
