package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Durability on the local backend: every object is fsynced before it is
// published, one after the other. A commit needs its data files, its
// metadata files and its snapshot durable, but only in that the snapshot
// must not be published before the others are: the capabilities here let
// it fsync them all at once and publish the snapshot last. Backends whose
// published objects are durable (S3, memory) do not need them; the helpers
// fall back to the plain operations there (and for wrappers such as the
// fault injector).

// DeferredCloser is the optional capability of a writer from Create to
// publish its object at Close and make it durable in the background:
// CloseDeferred publishes it (visible, not yet durable) and returns a
// function that waits until it is durable. Nothing may reference the
// object durably (a snapshot) before that function returned nil.
type DeferredCloser interface {
	CloseDeferred() (wait func() error, err error)
}

// CloseDeferred closes w, deferring its durability when w can (see
// DeferredCloser); otherwise it is w.Close and wait returns nil.
func CloseDeferred(w io.WriteCloser) (wait func() error, err error) {
	if d, ok := w.(DeferredCloser); ok {
		return d.CloseDeferred()
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return noWait, nil
}

func noWait() error { return nil }

// VolatileWriter is the optional capability of writing an object without
// making it durable: for hints that readers verify (LATEST, EARLIEST),
// which Java Paimon writes without fsync too.
type VolatileWriter interface {
	WriteAllVolatile(ctx context.Context, path string, data []byte) error
}

// WriteAllVolatile is WriteAll without the fsync where st can skip it.
func WriteAllVolatile(ctx context.Context, st Storage, path string, data []byte) error {
	if v, ok := st.(VolatileWriter); ok {
		return v.WriteAllVolatile(ctx, path, data)
	}
	return st.WriteAll(ctx, path, data)
}

var (
	_ DeferredCloser = (*localWriter)(nil)
	_ VolatileWriter = (*localStorage)(nil)
)

// CloseDeferred publishes the file (rename) at once and fsyncs it in the
// background; wait returns the fsync's error. A crash before the fsync
// may leave the published file short: it is an orphan, since nothing
// references it before wait returned.
func (w *localWriter) CloseDeferred() (func() error, error) {
	if w.s.noSync {
		if err := w.Close(); err != nil {
			return nil, err
		}
		return noWait, nil
	}
	if w.closed {
		return nil, localErr("close", w.name, os.ErrClosed)
	}
	w.closed = true
	err := w.ctx.Err()
	if err == nil {
		err = os.Rename(w.f.Name(), w.name)
	}
	if err != nil {
		_ = w.f.Close()
		_ = os.Remove(w.f.Name())
		return nil, localErr("write", w.name, err)
	}
	var (
		done = make(chan struct{})
		serr error
	)
	f, name := w.f, w.name
	go func() {
		defer close(done)
		serr = f.Sync()
		if cerr := f.Close(); serr == nil {
			serr = cerr
		}
		if serr != nil {
			serr = localErr("sync", name, serr)
		}
	}()
	return func() error {
		<-done
		return serr
	}, nil
}

// WriteAllVolatile writes through a temp file renamed into place, without
// fsync.
func (s *localStorage) WriteAllVolatile(ctx context.Context, p string, data []byte) error {
	if s.noSync {
		return s.WriteAll(ctx, p, data)
	}
	v := *s
	v.noSync = true
	return v.WriteAll(ctx, p, data)
}

// Staged is an object written where it will be published, not published
// yet (Stage).
type Staged interface {
	// Publish publishes the object as CreateIfNotExists does: atomically,
	// failing with ErrExist when the path exists by then.
	Publish(ctx context.Context) error
	// Discard drops the staged object.
	Discard()
}

// Stager is the optional capability of staging an object for
// CreateIfNotExists: its content is written and made durable in the
// background while the caller finishes what the object must follow.
type Stager interface {
	// StageIfNotExists starts writing data for path; it fails with
	// ErrExist at once when path exists already.
	StageIfNotExists(ctx context.Context, path string, data []byte) (Staged, error)
}

// StageIfNotExists stages data for CreateIfNotExists of path where st can
// (Stager); elsewhere Publish is CreateIfNotExists.
func StageIfNotExists(ctx context.Context, st Storage, path string, data []byte) (Staged, error) {
	if s, ok := st.(Stager); ok {
		return s.StageIfNotExists(ctx, path, data)
	}
	return &unstaged{st: st, path: path, data: data}, nil
}

type unstaged struct {
	st   Storage
	path string
	data []byte
}

func (u *unstaged) Publish(ctx context.Context) error {
	return u.st.CreateIfNotExists(ctx, u.path, u.data)
}

func (u *unstaged) Discard() {}

var _ Stager = (*localStorage)(nil)

// localStaged is a temp file being written and fsynced in the background;
// Publish links it into place (link(2) fails if the target exists).
type localStaged struct {
	syncDir bool // fsync the folder after the link (not fsync=false)
	name    string
	tmp     string
	done    chan struct{}
	err     error
}

func (s *localStorage) StageIfNotExists(ctx context.Context, p string, data []byte) (Staged, error) {
	name, err := s.osPath("create-if-not-exists", p)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, localErr("create-if-not-exists", name, err)
	}
	if _, err := os.Lstat(name); err == nil {
		return nil, fmt.Errorf("storage: create-if-not-exists %s: %w", name, ErrExist)
	}
	f, err := tempFile(name, isPrivate(p))
	if err != nil {
		return nil, localErr("create-if-not-exists", name, err)
	}
	st := &localStaged{syncDir: !s.noSync, name: name, tmp: f.Name(), done: make(chan struct{})}
	go func() {
		defer close(st.done)
		n, err := f.Write(data)
		localWritten.Add(uint64(n))
		if err == nil {
			err = s.sync(f)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		st.err = err
	}()
	return st, nil
}

func (s *localStaged) Publish(ctx context.Context) error {
	<-s.done
	defer os.Remove(s.tmp) // after a successful link the target keeps the inode
	err := s.err
	if err == nil {
		err = ctx.Err()
	}
	if err == nil {
		err = os.Link(s.tmp, s.name)
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("storage: create-if-not-exists %s: %w", s.name, ErrExist)
		}
	}
	if err == nil && s.syncDir {
		// The link is the publication (a snapshot): its folder is fsynced
		// so that it survives a power loss too, with the renames of the
		// files it references, which the file system journaled before it.
		err = syncDir(filepath.Dir(s.name))
	}
	if err != nil {
		return localErr("create-if-not-exists", s.name, err)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

func (s *localStaged) Discard() {
	<-s.done
	_ = os.Remove(s.tmp)
}
