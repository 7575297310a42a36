package storage_test

import (
	"context"
	"errors"
	"testing"

	"github.com/lakesql/lakesql/internal/storage"
)

// TestReadAfterCancel: a file keeps the context it was opened with, and a
// read after that context ended fails with its error, on every backend, so
// a canceled scan (KILL QUERY, max_execution_time, a client gone) stops at
// its next read.
func TestReadAfterCancel(t *testing.T) {
	for _, loc := range []string{t.TempDir(), "mem://"} {
		st, err := storage.Open(context.Background(), loc)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.WriteAll(context.Background(), "f", []byte("0123456789")); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		f, err := st.Open(ctx, "f")
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 4)
		if n, err := f.ReadAt(buf, 2); err != nil || string(buf[:n]) != "2345" {
			t.Errorf("%s: read before cancel: %q, %v", loc, buf[:n], err)
		}
		cancel()
		if _, err := f.ReadAt(buf, 2); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: read after cancel: %v, want context.Canceled", loc, err)
		}
		f.Close()
		st.Close()
	}
}
