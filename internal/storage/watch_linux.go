//go:build linux

package storage

import (
	"context"
	"encoding/binary"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The local store's DirWatcher, on inotify.
//
// One inotify instance serves every local store of the process. A folder
// is watched on its first DirVersion, together with every folder above it
// up to the store's root: an event in a watched folder gives it a new
// version; a folder above it losing or gaining an entry by rename or
// removal (which can point the path at another folder), the folder itself
// removed or moved, or an overflowing event queue drops every watch (the
// next call watches by path again, with a new version). Changes are
// collected by reading the instance without blocking; the kernel queues an
// event before the system call that made the change returns, so a read
// started after a commit was acknowledged — by this process or another on
// the host — sees it. One read serves every call whose statement started
// before it (StatementStart).
//
// Only file systems whose every change passes through this kernel are
// trusted (watchable): not NFS, SMB or FUSE, where another host's change
// raises no event.

const (
	watchedDirMask = syscall.IN_CREATE | syscall.IN_DELETE | syscall.IN_MOVED_FROM | syscall.IN_MOVED_TO |
		syscall.IN_MODIFY | syscall.IN_CLOSE_WRITE | syscall.IN_ATTRIB |
		syscall.IN_DELETE_SELF | syscall.IN_MOVE_SELF | syscall.IN_ONLYDIR
	aboveDirMask = syscall.IN_DELETE | syscall.IN_MOVED_FROM | syscall.IN_MOVED_TO |
		syscall.IN_DELETE_SELF | syscall.IN_MOVE_SELF | syscall.IN_ONLYDIR
	// dropAll: events after which a path may name another folder.
	dropAll = syscall.IN_DELETE_SELF | syscall.IN_MOVE_SELF | syscall.IN_IGNORED | syscall.IN_UNMOUNT | syscall.IN_Q_OVERFLOW
	// maxWatchedDirs bounds the watches (the kernel's per-user limit is
	// shared with every other process of the user).
	maxWatchedDirs = 2048
)

var dirWatch = &inotifyWatch{fd: -1}

type inotifyWatch struct {
	mu      sync.Mutex
	fd      int
	failed  bool // inotify_init1 failed: not tried again
	dirs    map[string]*watchedDir
	wds     map[int32]*watchedDir
	seq     uint64    // the last version given
	drained time.Time // when the last complete read of the queue started
	buf     []byte
}

type watchedDir struct {
	version uint64
	above   bool // watched as a folder above another
}

// watchable reports whether dir is on a file system whose changes all
// raise inotify events here.
func watchable(dir string) bool {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return false
	}
	switch uint32(st.Type) {
	case 0xEF53, // ext2/3/4
		0x58465342, // xfs
		0x9123683E, // btrfs
		0x01021994, // tmpfs
		0x2FC12FC1, // zfs
		0xF2F52010, // f2fs
		0x794C7630: // overlayfs (containers; changes made through the overlay)
		return true
	}
	return false
}

func (s *localStorage) DirVersion(ctx context.Context, dir string) (uint64, bool) {
	if !s.watch {
		return 0, false
	}
	name, ok := s.watchNames.Load(dir)
	if !ok {
		p, err := s.osPath("watch", strings.TrimSuffix(dir, "/"))
		if err != nil {
			return 0, false
		}
		name, _ = s.watchNames.LoadOrStore(dir, p)
	}
	return dirWatch.version(name.(string), s.top, StatementStart(ctx))
}

func (w *inotifyWatch) version(name, top string, since time.Time) (uint64, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.open() {
		return 0, false
	}
	if w.drained.IsZero() || w.drained.Before(since) {
		start := time.Now()
		if !w.drain() {
			w.drop()
			return 0, false
		}
		w.drained = start
	}
	if d := w.dirs[name]; d != nil {
		return d.version, !d.above
	}
	rel, err := filepath.Rel(top, name)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return 0, false
	}
	if len(w.dirs) >= maxWatchedDirs {
		w.drop()
		if !w.open() {
			return 0, false
		}
	}
	// The folders above first (top down), so that a rename above after
	// the folder's watch is added is seen.
	above := top
	parts := strings.Split(filepath.Dir(rel), string(filepath.Separator))
	for i := -1; i < len(parts); i++ {
		if i >= 0 {
			if parts[i] == "." {
				continue
			}
			above = filepath.Join(above, parts[i])
		}
		if w.dirs[above] == nil && !w.add(above, aboveDirMask, true) {
			return 0, false
		}
	}
	if !w.add(name, watchedDirMask, false) {
		return 0, false
	}
	return w.dirs[name].version, true
}

func (w *inotifyWatch) open() bool {
	if w.fd >= 0 {
		return true
	}
	if w.failed {
		return false
	}
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		w.failed = true
		return false
	}
	w.fd = fd
	w.dirs = map[string]*watchedDir{}
	w.wds = map[int32]*watchedDir{}
	if w.buf == nil {
		w.buf = make([]byte, 64<<10)
	}
	return true
}

func (w *inotifyWatch) add(dir string, mask uint32, above bool) bool {
	wd, err := syscall.InotifyAddWatch(w.fd, dir, mask)
	if err != nil {
		return false
	}
	if w.wds[int32(wd)] != nil {
		// The same folder under another path (a link): not trusted.
		return false
	}
	w.seq++
	d := &watchedDir{version: w.seq, above: above}
	w.dirs[dir] = d
	w.wds[int32(wd)] = d
	return true
}

// drop forgets every watch (closing the instance removes them).
func (w *inotifyWatch) drop() {
	if w.fd >= 0 {
		syscall.Close(w.fd)
	}
	w.fd = -1
	w.dirs, w.wds = nil, nil
}

// drain reads every queued event; false on a read error.
func (w *inotifyWatch) drain() bool {
	for {
		n, err := syscall.Read(w.fd, w.buf)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return true
		case err != nil || n < syscall.SizeofInotifyEvent:
			return false
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= n; {
			wd := int32(binary.NativeEndian.Uint32(w.buf[off:]))
			mask := binary.NativeEndian.Uint32(w.buf[off+4:])
			off += syscall.SizeofInotifyEvent + int(binary.NativeEndian.Uint32(w.buf[off+12:]))
			d := w.wds[wd]
			if mask&dropAll != 0 || d != nil && d.above {
				w.drop()
				return w.open()
			}
			if d != nil {
				w.seq++
				d.version = w.seq
			}
		}
	}
}
