package storage_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/internal/storage/storagetest"
	"github.com/lakesql/lakesql/internal/testutil"
)

func open(t testing.TB, location string) storage.Storage {
	t.Helper()
	s, err := storage.Open(context.Background(), location)
	if err != nil {
		t.Fatalf("Open(%q): %v", location, err)
	}
	return s
}

func TestConformance(t *testing.T) {
	t.Run("file", func(t *testing.T) {
		storagetest.Run(t, func(t *testing.T) storage.Storage { return open(t, t.TempDir()) })
	})
	t.Run("fileURL", func(t *testing.T) {
		storagetest.Run(t, func(t *testing.T) storage.Storage {
			return open(t, "file://"+filepath.Join(t.TempDir(), "new", "warehouse"))
		})
	})
	t.Run("fileNoSync", func(t *testing.T) {
		storagetest.Run(t, func(t *testing.T) storage.Storage {
			return open(t, "file://"+t.TempDir()+"?fsync=false")
		})
	})
	t.Run("fileSub", func(t *testing.T) {
		storagetest.Run(t, func(t *testing.T) storage.Storage {
			return open(t, t.TempDir()).Sub("db.db/table")
		})
	})
	t.Run("mem", func(t *testing.T) {
		storagetest.Run(t, func(t *testing.T) storage.Storage { return open(t, "mem://") })
	})
	t.Run("memSub", func(t *testing.T) {
		storagetest.Run(t, func(t *testing.T) storage.Storage { return open(t, "mem://").Sub("db.db/table") })
	})
	t.Run("memPrefix", func(t *testing.T) {
		storagetest.Run(t, func(t *testing.T) storage.Storage {
			return open(t, open(t, "mem://").URL()+"/warehouse")
		})
	})
}

// TestConformanceS3 runs the suite against a real S3-compatible server
// ($LAKESQL_S3_TEST_ENDPOINT: SeaweedFS's S3 gateway, which .ci/run
// starts), conditional create (If-None-Match: *) included; it skips when
// none is configured, and fails then under LAKESQL_REQUIRE_TOOLS=1.
func TestConformanceS3(t *testing.T) {
	wh := testutil.S3Warehouse(t)
	storagetest.Run(t, func(t *testing.T) storage.Storage {
		st := open(t, wh)
		return st.Sub(strings.NewReplacer("/", "-").Replace(t.Name()))
	})
}

func TestOpenBarePathCreatesFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	s := open(t, dir)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Fatalf("folder not created: %v", err)
	}
	if want := "file://" + filepath.ToSlash(dir); s.URL() != want {
		t.Fatalf("URL = %q, want %q", s.URL(), want)
	}
	if err := s.WriteAll(context.Background(), "x/y", []byte("v")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "x", "y")); err != nil || string(b) != "v" {
		t.Fatalf("file on disk: %q, %v", b, err)
	}
}

func TestOpenRelativePath(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, loc := range []string{"./warehouse", "file://./warehouse", "warehouse"} {
		s := open(t, loc)
		wd, _ := os.Getwd()
		if want := "file://" + filepath.ToSlash(filepath.Join(wd, "warehouse")); s.URL() != want {
			t.Errorf("Open(%q).URL() = %q, want %q", loc, s.URL(), want)
		}
	}
}

func TestReopenByURL(t *testing.T) {
	ctx := context.Background()
	for _, root := range []string{t.TempDir(), "file://" + t.TempDir() + "?fsync=false", "mem://reopen-test"} {
		s := open(t, root).Sub("t")
		if err := s.WriteAll(ctx, "f", []byte("data")); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		again := open(t, s.URL())
		if again.URL() != s.URL() {
			t.Errorf("reopened URL %q, want %q", again.URL(), s.URL())
		}
		b, err := again.ReadAll(ctx, "f")
		if err != nil || string(b) != "data" {
			t.Fatalf("reopen %q: %q, %v", s.URL(), b, err)
		}
	}
}

func TestMemNamesAreShared(t *testing.T) {
	ctx := context.Background()
	a, b, c := open(t, "mem://shared-x"), open(t, "mem://shared-x"), open(t, "mem://shared-y")
	if err := a.WriteAll(ctx, "k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	if ok, _ := b.Exists(ctx, "k"); !ok {
		t.Fatal("second Open of mem://shared-x does not see the object")
	}
	if ok, _ := c.Exists(ctx, "k"); ok {
		t.Fatal("mem://shared-y sees mem://shared-x's object")
	}
	if a1, a2 := open(t, "mem://"), open(t, "mem://"); a1.URL() == a2.URL() {
		t.Fatalf("two anonymous mem:// stores share URL %q", a1.URL())
	}
}

func TestUnsupportedScheme(t *testing.T) {
	_, err := storage.Open(context.Background(), "gopher://x/y")
	if !errors.Is(err, storage.ErrUnsupportedScheme) || !strings.Contains(err.Error(), "gopher") {
		t.Fatalf("err = %v, want ErrUnsupportedScheme naming gopher", err)
	}
	if got := storage.Schemes(); !slices.Equal(got, []string{"file", "mem", "s3"}) {
		t.Fatalf("Schemes = %q", got)
	}
}

func TestRegister(t *testing.T) {
	storage.Register("alias", func(ctx context.Context, loc string) (storage.Storage, error) {
		return storage.Open(ctx, "mem://alias-"+strings.TrimPrefix(loc, "alias://"))
	})
	if s := open(t, "alias://z"); s.URL() != "mem://alias-z" {
		t.Fatalf("URL = %q", s.URL())
	}
}

// A temp file left by a crashed writer (".name.<rand>.tmp") is never listed.
func TestLocalListHidesStrayTempFiles(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	if err := s.WriteAll(context.Background(), "snapshot/snapshot-1", []byte("1")); err != nil {
		t.Fatal(err)
	}
	stray := filepath.Join(dir, "snapshot", ".snapshot-2.123456.tmp")
	if err := os.WriteFile(stray, []byte("partial"), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	for info, err := range s.List(context.Background(), "snapshot/") {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, info.Path)
	}
	if !slices.Equal(got, []string{"snapshot/snapshot-1"}) {
		t.Fatalf("List = %q", got)
	}
}

func TestLocalErrorsNameThePath(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	_, err := s.ReadAll(context.Background(), "missing/file")
	if !errors.Is(err, storage.ErrNotExist) || !strings.Contains(err.Error(), filepath.Join(dir, "missing", "file")) {
		t.Fatalf("err = %v", err)
	}
}

func TestS3OpenDoesNotDial(t *testing.T) {
	// Opening builds a client only; no request is sent, so no server is needed.
	loc := "s3://bucket/warehouse/db?endpoint=http://127.0.0.1:9&region=eu-west-1&use_path_style=true"
	s := open(t, loc)
	if s.URL() != loc {
		t.Errorf("URL = %q, want %q", s.URL(), loc)
	}
	if got, want := s.Sub("t1").URL(), "s3://bucket/warehouse/db/t1?endpoint=http://127.0.0.1:9&region=eu-west-1&use_path_style=true"; got != want {
		t.Errorf("Sub URL = %q, want %q", got, want)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"file:///tmp/x?fsync=maybe", "file:///tmp/x?mode=1", "s3:///nobucket", "s3://b?use_path_style=maybe", "s3://b/a/../c"} {
		if _, err := storage.Open(context.Background(), bad); err == nil {
			t.Errorf("Open(%q) succeeded", bad)
		}
	}
}

func TestListDirs(t *testing.T) {
	ctx := context.Background()
	for name, open := range map[string]func() storage.Storage{
		"file": func() storage.Storage { s, _ := storage.Open(ctx, t.TempDir()); return s },
		"mem":  func() storage.Storage { s, _ := storage.Open(ctx, "mem://"); return s },
	} {
		t.Run(name, func(t *testing.T) {
			st := open()
			defer st.Close()
			for _, p := range []string{"a.db/t1/schema/schema-0", "a.db/t2/x", "b.db/.marker", "top"} {
				if err := st.WriteAll(ctx, p, []byte("x")); err != nil {
					t.Fatal(err)
				}
			}
			// A folder emptied by deletes is gone, as on an object store.
			if err := st.WriteAll(ctx, "c.db/t/f", []byte("x")); err != nil {
				t.Fatal(err)
			}
			if err := st.Delete(ctx, "c.db/t/f"); err != nil {
				t.Fatal(err)
			}
			for dir, want := range map[string]string{"": "a.db,b.db", "a.db": "t1,t2", "a.db/t1": "schema", "nope": "", "c.db": ""} {
				got, err := storage.ListDirs(ctx, st, dir)
				if err != nil {
					t.Fatal(err)
				}
				if strings.Join(got, ",") != want {
					t.Errorf("ListDirs(%q) = %v, want %s", dir, got, want)
				}
			}
		})
	}
}
