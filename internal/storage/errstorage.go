package storage

import (
	"context"
	"io"
	"iter"
)

// errStorage is what Sub returns for an invalid folder: every call fails
// with err.
type errStorage struct{ err error }

var _ Storage = errStorage{}

func (s errStorage) Open(context.Context, string) (File, error)      { return nil, s.err }
func (s errStorage) ReadAll(context.Context, string) ([]byte, error) { return nil, s.err }
func (s errStorage) Create(context.Context, string) (io.WriteCloser, error) {
	return nil, s.err
}
func (s errStorage) WriteAll(context.Context, string, []byte) error          { return s.err }
func (s errStorage) CreateIfNotExists(context.Context, string, []byte) error { return s.err }
func (s errStorage) Delete(context.Context, string) error                    { return s.err }
func (s errStorage) Exists(context.Context, string) (bool, error)            { return false, s.err }
func (s errStorage) List(context.Context, string) iter.Seq2[ObjectInfo, error] {
	return func(yield func(ObjectInfo, error) bool) { yield(ObjectInfo{}, s.err) }
}
func (s errStorage) Sub(string) Storage { return s }
func (s errStorage) URL() string        { return "invalid:" + s.err.Error() }
func (s errStorage) Close() error       { return nil }
