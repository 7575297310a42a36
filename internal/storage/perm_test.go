package storage_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/lakesql/lakesql/internal/storage"
)

// Every file the local backend writes is 0644 and every folder it creates
// 0755, less the umask, through each write path (Create, WriteAll, the
// temp-file + link of CreateIfNotExists, MkdirAll, Open of a new root), so
// engines running as other OS users can read the warehouse.
func TestLocalFileModes(t *testing.T) {
	for _, tc := range []struct {
		umask           int
		file, directory fs.FileMode
	}{
		{0o022, 0o644, 0o755},
		{0o027, 0o640, 0o750},
		{0o002, 0o644, 0o755},
	} {
		old := syscall.Umask(tc.umask)
		func() {
			defer syscall.Umask(old)
			ctx := context.Background()
			root := filepath.Join(t.TempDir(), "new", "warehouse")
			s := open(t, root)
			if err := s.WriteAll(ctx, "db.db/t/snapshot/LATEST", []byte("1")); err != nil {
				t.Fatal(err)
			}
			w, err := s.Create(ctx, "db.db/t/bucket-0/data-1.parquet")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Write([]byte("x")); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if err := s.CreateIfNotExists(ctx, "db.db/t/snapshot/snapshot-1", []byte("{}")); err != nil {
				t.Fatal(err)
			}
			if err := s.(storage.DirMaker).MkdirAll(ctx, "db2.db/x/y"); err != nil {
				t.Fatal(err)
			}
			check := func(rel string, want fs.FileMode, dir bool) {
				t.Helper()
				st, err := os.Stat(filepath.Join(root, rel))
				if err != nil {
					t.Fatal(err)
				}
				if st.IsDir() != dir || st.Mode().Perm() != want {
					t.Errorf("umask %03o: %s mode %v (dir %v), want %v", tc.umask, rel, st.Mode(), st.IsDir(), want)
				}
			}
			check("", tc.directory, true)
			for _, d := range []string{"db.db", "db.db/t", "db.db/t/snapshot", "db.db/t/bucket-0", "db2.db/x/y"} {
				check(d, tc.directory, true)
			}
			for _, f := range []string{"db.db/t/snapshot/LATEST", "db.db/t/bucket-0/data-1.parquet", "db.db/t/snapshot/snapshot-1"} {
				check(f, tc.file, false)
			}
		}()
	}
}

// Regression: the accounts (password hashes) under storage.PrivateDir are
// readable by the server's OS user only, while the tables stay 0644.
func TestLocalPrivateDirModes(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "warehouse")
	s := open(t, root)
	if err := s.CreateIfNotExists(ctx, storage.PrivateDir+"/users/users-1", []byte("secret")); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteAll(ctx, storage.PrivateDir+"/users/users-2", []byte("secret")); err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]fs.FileMode{
		storage.PrivateDir:                    0o700,
		storage.PrivateDir + "/users":         0o700,
		storage.PrivateDir + "/users/users-1": 0o600,
		storage.PrivateDir + "/users/users-2": 0o600,
	} {
		st, err := os.Stat(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != want {
			t.Errorf("%s mode %v, want %v", rel, st.Mode().Perm(), want)
		}
	}
}
