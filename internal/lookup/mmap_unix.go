//go:build unix

package lookup

import (
	"os"
	"syscall"
)

// mapFile maps a built lookup file read-only (nil when it cannot: Find
// then reads with pread). The file is an unlinked temporary only this
// process writes, so nothing truncates it under the mapping.
func mapFile(f *os.File, size int64) []byte {
	if size <= 0 || int64(int(size)) != size {
		return nil
	}
	sc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	var m []byte
	_ = sc.Control(func(fd uintptr) {
		b, err := syscall.Mmap(int(fd), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
		if err == nil {
			m = b
		}
	})
	return m
}

func unmapFile(m []byte) {
	if m != nil {
		_ = syscall.Munmap(m)
	}
}

// adviseDontNeed gives a mapping's resident pages back to the kernel; the
// mapping stays valid (a shared file mapping reads them from the file
// again).
func adviseDontNeed(m []byte) {
	if m != nil {
		_ = syscall.Madvise(m, syscall.MADV_DONTNEED)
	}
}
