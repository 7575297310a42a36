package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"sync"
)

// Fault injection, in the style of pebble's vfs/errorfs: NewFaulty wraps a
// Storage so that one chosen operation fails, or the "process" crashes
// there. Operations are numbered from 1 in the order they are called
// (across Sub storages of the wrapper); an Injector decides per operation.
// Tests crash a commit, a compaction, … at every operation in turn, then
// reopen the underlying Storage and check what is left.

// OpKind is a kind of storage operation.
type OpKind uint8

// The operation kinds. Writes: OpCreate (the Close that publishes a
// streamed object), OpWriteAll, OpCreateIfNotExists, OpDelete, OpMkdir,
// OpRemoveEmptyDirs. Reads: the others.
const (
	OpOpen OpKind = iota + 1
	OpReadAll
	OpCreate
	OpWriteAll
	OpCreateIfNotExists
	OpDelete
	OpExists
	OpList
	OpStat
	OpListDirs
	OpMkdir
	OpRemoveEmptyDirs
)

var opKindNames = [...]string{
	OpOpen: "open", OpReadAll: "read", OpCreate: "create", OpWriteAll: "write", OpCreateIfNotExists: "create-if-not-exists",
	OpDelete: "delete", OpExists: "exists", OpList: "list", OpStat: "stat", OpListDirs: "list-dirs", OpMkdir: "mkdir",
	OpRemoveEmptyDirs: "remove-empty-dirs",
}

func (k OpKind) String() string {
	if int(k) < len(opKindNames) && opKindNames[k] != "" {
		return opKindNames[k]
	}
	return fmt.Sprintf("OpKind(%d)", uint8(k))
}

// IsWrite reports whether the operation changes the store.
func (k OpKind) IsWrite() bool {
	switch k {
	case OpCreate, OpWriteAll, OpCreateIfNotExists, OpDelete, OpMkdir, OpRemoveEmptyDirs:
		return true
	}
	return false
}

// Op is one storage operation: its kind, its path relative to the root of
// the Storage NewFaulty wrapped, and its number.
type Op struct {
	Kind OpKind
	Path string
	N    int64
}

func (o Op) String() string { return fmt.Sprintf("#%d %s %s", o.N, o.Kind, o.Path) }

// Fault is what an Injector does to an operation.
type Fault uint8

const (
	// NoFault lets the operation run.
	NoFault Fault = iota
	// FailBefore fails the operation without running it.
	FailBefore
	// FailAfter runs the operation, then reports an error (an unsure
	// outcome, such as a timeout after the store applied a write).
	FailAfter
	// CrashBefore fails the operation without running it, and every
	// operation after it: the process died there.
	CrashBefore
	// CrashAfter runs the operation, then fails it and every operation
	// after it.
	CrashAfter
)

// ErrInjected is wrapped by every error the wrapper injects.
var ErrInjected = errors.New("storage: injected fault")

// Injector numbers the operations of a faulty Storage and decides what
// happens to each. Safe for concurrent use.
type Injector struct {
	// Decide returns the fault for an operation (nil: none).
	Decide func(op Op) Fault
	// Listed, when set, is called with every object a List (op) yields,
	// before the caller gets it, and returns what the caller gets: a test
	// pauses a listing half-way there, or skews the store's clock.
	Listed func(op Op, obj ObjectInfo) ObjectInfo

	mu      sync.Mutex
	n       int64
	crashed bool
	writes  int64
	ops     []Op // when Record
	// Record keeps every operation (Ops).
	Record bool
	// Overwrite makes CreateIfNotExists overwrite an existing object
	// instead of failing with ErrExist: a store without conditional
	// create (an S3-compatible store that ignores If-None-Match: *).
	Overwrite bool
	// Stage keeps the wrapped store's staging (Stager: the local store's
	// temporary file linked into place): the operation is the publish
	// (OpCreateIfNotExists, decided before the link). Without it a
	// staged object is a CreateIfNotExists at its publish.
	Stage bool
}

// CrashAt returns an Injector that crashes at the n-th operation that
// match accepts (before it runs, or after when after is set).
func CrashAt(n int64, after bool, match func(Op) bool) *Injector {
	var seen int64
	var mu sync.Mutex
	f := CrashBefore
	if after {
		f = CrashAfter
	}
	return &Injector{Decide: func(op Op) Fault {
		if match != nil && !match(op) {
			return NoFault
		}
		mu.Lock()
		defer mu.Unlock()
		seen++
		if seen == n {
			return f
		}
		return NoFault
	}}
}

// Crashed reports whether a crash was injected.
func (in *Injector) Crashed() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.crashed
}

// Ops returns the number of operations so far and of writes among them.
func (in *Injector) Ops() (ops, writes int64) {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.n, in.writes
}

// Recorded returns the operations kept with Record.
func (in *Injector) Recorded() []Op {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]Op(nil), in.ops...)
}

// before numbers op and returns the fault to apply and, for faults before
// the operation, the error.
func (in *Injector) before(kind OpKind, path string) (Op, Fault, error) {
	in.mu.Lock()
	if in.crashed {
		in.mu.Unlock()
		return Op{Kind: kind, Path: path}, CrashBefore, fmt.Errorf("%w: %s %s after a crash", ErrInjected, kind, path)
	}
	in.n++
	op := Op{Kind: kind, Path: path, N: in.n}
	if kind.IsWrite() {
		in.writes++
	}
	if in.Record {
		in.ops = append(in.ops, op)
	}
	decide := in.Decide
	in.mu.Unlock()
	f := NoFault
	if decide != nil {
		f = decide(op)
	}
	switch f {
	case CrashBefore, CrashAfter:
		in.mu.Lock()
		in.crashed = true
		in.mu.Unlock()
	}
	switch f {
	case FailBefore, CrashBefore:
		return op, f, fmt.Errorf("%w: %v (%s)", ErrInjected, op, faultName(f))
	}
	return op, f, nil
}

// after turns the outcome of an operation that ran into the injected one.
func after(op Op, f Fault, err error) error {
	if err == nil && (f == FailAfter || f == CrashAfter) {
		return fmt.Errorf("%w: %v (%s)", ErrInjected, op, faultName(f))
	}
	return err
}

func faultName(f Fault) string {
	switch f {
	case FailBefore:
		return "failed before"
	case FailAfter:
		return "failed after it ran"
	case CrashBefore:
		return "crashed before"
	case CrashAfter:
		return "crashed after it ran"
	}
	return "no fault"
}

// faulty is the wrapper.
type faulty struct {
	st     Storage
	in     *Injector
	prefix string // of this Sub, relative to the wrapped root
}

var (
	_ Storage         = (*faulty)(nil)
	_ Stater          = (*faulty)(nil)
	_ DirLister       = (*faulty)(nil)
	_ DirMaker        = (*faulty)(nil)
	_ EmptyDirRemover = (*faulty)(nil)
)

// NewFaulty wraps st: every operation through it (and its Subs) goes
// through in. URL is st's, so the wrapper and st name the same objects.
func NewFaulty(st Storage, in *Injector) Storage { return &faulty{st: st, in: in} }

func (f *faulty) rel(p string) string { return joinPath(f.prefix, p) }

func (f *faulty) Open(ctx context.Context, p string) (File, error) {
	op, fl, err := f.in.before(OpOpen, f.rel(p))
	if err != nil {
		return nil, err
	}
	file, err := f.st.Open(ctx, p)
	if err = after(op, fl, err); err != nil {
		if file != nil {
			file.Close()
		}
		return nil, err
	}
	return file, nil
}

func (f *faulty) ReadAll(ctx context.Context, p string) ([]byte, error) {
	op, fl, err := f.in.before(OpReadAll, f.rel(p))
	if err != nil {
		return nil, err
	}
	b, err := f.st.ReadAll(ctx, p)
	if err = after(op, fl, err); err != nil {
		return nil, err
	}
	return b, nil
}

// Create numbers the Close that publishes the object; a fault before it
// (or a crash) publishes nothing.
func (f *faulty) Create(ctx context.Context, p string) (io.WriteCloser, error) {
	if f.in.Crashed() {
		_, _, err := f.in.before(OpCreate, f.rel(p))
		return nil, err
	}
	cctx, cancel := context.WithCancel(ctx)
	w, err := f.st.Create(cctx, p)
	if err != nil {
		cancel()
		return nil, err
	}
	return &faultyWriter{f: f, w: w, path: p, cancel: cancel}, nil
}

type faultyWriter struct {
	f      *faulty
	w      io.WriteCloser
	path   string
	cancel context.CancelFunc
	closed bool
}

func (w *faultyWriter) Write(b []byte) (int, error) {
	if w.f.in.Crashed() {
		return 0, fmt.Errorf("%w: write %s after a crash", ErrInjected, w.path)
	}
	return w.w.Write(b)
}

func (w *faultyWriter) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	defer w.cancel()
	op, fl, err := w.f.in.before(OpCreate, w.f.rel(w.path))
	if err != nil {
		w.cancel() // a canceled context at Close publishes nothing
		_ = w.w.Close()
		return err
	}
	return after(op, fl, w.w.Close())
}

func (f *faulty) WriteAll(ctx context.Context, p string, data []byte) error {
	op, fl, err := f.in.before(OpWriteAll, f.rel(p))
	if err != nil {
		return err
	}
	return after(op, fl, f.st.WriteAll(ctx, p, data))
}

func (f *faulty) CreateIfNotExists(ctx context.Context, p string, data []byte) error {
	op, fl, err := f.in.before(OpCreateIfNotExists, f.rel(p))
	if err != nil {
		return err
	}
	if f.in.Overwrite {
		return after(op, fl, f.st.WriteAll(ctx, p, data))
	}
	return after(op, fl, f.st.CreateIfNotExists(ctx, p, data))
}

var _ Stager = (*faulty)(nil)

func (f *faulty) StageIfNotExists(ctx context.Context, p string, data []byte) (Staged, error) {
	inner, ok := f.st.(Stager)
	if !f.in.Stage || !ok {
		return &unstaged{st: f, path: p, data: data}, nil
	}
	staged, err := inner.StageIfNotExists(ctx, p, data)
	if err != nil {
		return nil, err
	}
	return &faultyStaged{f: f, path: p, staged: staged}, nil
}

// faultyStaged is a staged object of the wrapped store whose publish is
// an operation of the injector.
type faultyStaged struct {
	f      *faulty
	path   string
	staged Staged
}

func (s *faultyStaged) Publish(ctx context.Context) error {
	op, fl, err := s.f.in.before(OpCreateIfNotExists, s.f.rel(s.path))
	if err != nil {
		s.staged.Discard()
		return err
	}
	return after(op, fl, s.staged.Publish(ctx))
}

func (s *faultyStaged) Discard() { s.staged.Discard() }

func (f *faulty) Delete(ctx context.Context, p string) error {
	op, fl, err := f.in.before(OpDelete, f.rel(p))
	if err != nil {
		return err
	}
	return after(op, fl, f.st.Delete(ctx, p))
}

func (f *faulty) Exists(ctx context.Context, p string) (bool, error) {
	op, fl, err := f.in.before(OpExists, f.rel(p))
	if err != nil {
		return false, err
	}
	ok, err := f.st.Exists(ctx, p)
	if err = after(op, fl, err); err != nil {
		return false, err
	}
	return ok, nil
}

func (f *faulty) List(ctx context.Context, prefix string) iter.Seq2[ObjectInfo, error] {
	return f.list(prefix, func() iter.Seq2[ObjectInfo, error] { return f.st.List(ctx, prefix) })
}

// list is a listing under injection (List, ListTemps): the fault decided
// before it, then the inner listing's entries until the injector crashes.
func (f *faulty) list(prefix string, inner func() iter.Seq2[ObjectInfo, error]) iter.Seq2[ObjectInfo, error] {
	return func(yield func(ObjectInfo, error) bool) {
		op, fl, err := f.in.before(OpList, f.rel(prefix))
		if err != nil {
			yield(ObjectInfo{}, err)
			return
		}
		if fl == FailAfter || fl == CrashAfter {
			yield(ObjectInfo{}, after(op, fl, nil))
			return
		}
		for info, err := range inner() {
			if err == nil && f.in.Crashed() {
				err = fmt.Errorf("%w: list %s after a crash", ErrInjected, prefix)
			}
			if err == nil && f.in.Listed != nil {
				info = f.in.Listed(op, info)
			}
			if !yield(info, err) || err != nil {
				return
			}
		}
	}
}

func (f *faulty) Stat(ctx context.Context, p string) (ObjectInfo, error) {
	op, fl, err := f.in.before(OpStat, f.rel(p))
	if err != nil {
		return ObjectInfo{}, err
	}
	s, ok := f.st.(Stater)
	if !ok {
		return ObjectInfo{}, fmt.Errorf("storage: stat %s: %s cannot", p, f.st.URL())
	}
	info, err := s.Stat(ctx, p)
	if err = after(op, fl, err); err != nil {
		return ObjectInfo{}, err
	}
	return info, nil
}

func (f *faulty) ListDirs(ctx context.Context, dir string) ([]string, error) {
	op, fl, err := f.in.before(OpListDirs, f.rel(dir))
	if err != nil {
		return nil, err
	}
	dirs, err := ListDirs(ctx, f.st, dir)
	if err = after(op, fl, err); err != nil {
		return nil, err
	}
	return dirs, nil
}

func (f *faulty) MkdirAll(ctx context.Context, dir string) error {
	op, fl, err := f.in.before(OpMkdir, f.rel(dir))
	if err != nil {
		return err
	}
	if dm, ok := f.st.(DirMaker); ok {
		err = dm.MkdirAll(ctx, dir)
	}
	return after(op, fl, err)
}

func (f *faulty) RemoveEmptyDirs(ctx context.Context, dir string) error {
	op, fl, err := f.in.before(OpRemoveEmptyDirs, f.rel(dir))
	if err != nil {
		return err
	}
	if r, ok := f.st.(EmptyDirRemover); ok {
		err = r.RemoveEmptyDirs(ctx, dir)
	}
	return after(op, fl, err)
}

func (f *faulty) Sub(dir string) Storage {
	return &faulty{st: f.st.Sub(dir), in: f.in, prefix: joinPath(f.prefix, dir)}
}

func (f *faulty) URL() string  { return f.st.URL() }
func (f *faulty) Close() error { return f.st.Close() }
