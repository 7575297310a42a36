package storage_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/storage"
)

func BenchmarkReadAt4KiB(b *testing.B) {
	for _, root := range []string{"local", "mem://"} {
		b.Run(root, func(b *testing.B) {
			if root == "local" {
				root = b.TempDir()
			}
			s := open(b, root)
			ctx := context.Background()
			data := make([]byte, 1<<20)
			if err := s.WriteAll(ctx, "f", data); err != nil {
				b.Fatal(err)
			}
			f, err := s.Open(ctx, "f")
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			buf := make([]byte, 4096)
			b.SetBytes(int64(len(buf)))
			for i := 0; b.Loop(); i++ {
				if _, err := f.ReadAt(buf, int64(i*4096)%(1<<20)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkCreateIfNotExists(b *testing.B) {
	for _, root := range []string{"local", "localNoSync", "mem://"} {
		b.Run(root, func(b *testing.B) {
			switch root {
			case "local":
				root = b.TempDir()
			case "localNoSync":
				root = "file://" + b.TempDir() + "?fsync=false"
			}
			s := open(b, root)
			ctx := context.Background()
			data := make([]byte, 1024)
			for i := 0; b.Loop(); i++ {
				if err := s.CreateIfNotExists(ctx, fmt.Sprintf("snapshot/snapshot-%d", i), data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCreateIfNotExistsLocked: what the file: commit lock adds to a
// conditional create (open, flock, an existence check, close), against the
// same store without it.
func BenchmarkCreateIfNotExistsLocked(b *testing.B) {
	for _, locked := range []bool{false, true} {
		b.Run(fmt.Sprintf("lock=%v", locked), func(b *testing.B) {
			s := open(b, "file://"+b.TempDir()+"?fsync=false")
			if locked {
				l, err := storage.ParseLock("file:"+b.TempDir(), time.Minute)
				if err != nil {
					b.Fatal(err)
				}
				s = storage.WithLock(s, l)
			}
			ctx := context.Background()
			data := make([]byte, 1024)
			for i := 0; b.Loop(); i++ {
				if err := s.CreateIfNotExists(ctx, fmt.Sprintf("db.db/t/snapshot/snapshot-%d", i), data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
