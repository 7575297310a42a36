// Package storagetest is a conformance suite for storage.Storage
// implementations, in the style of iceberg-go's catalogtest: every backend
// runs the same tests against itself.
package storagetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/lakesql/lakesql/internal/storage"
)

// Run runs the conformance suite. open must return a fresh, empty Storage
// for each call; Run closes it when the subtest ends.
func Run(t *testing.T, open func(t *testing.T) storage.Storage) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s storage.Storage)
	}{
		{"ReadAfterWrite", testReadAfterWrite},
		{"EmptyObject", testEmptyObject},
		{"Overwrite", testOverwrite},
		{"NotVisibleBeforeClose", testNotVisibleBeforeClose},
		{"CanceledWriteNotPublished", testCanceledWrite},
		{"List", testList},
		{"ListStopsEarly", testListStopsEarly},
		{"RangeReads", testRangeReads},
		{"Delete", testDelete},
		{"Missing", testMissing},
		{"InvalidPaths", testInvalidPaths},
		{"CreateIfNotExists", testCreateIfNotExists},
		{"CreateIfNotExistsRace", testCreateIfNotExistsRace},
		{"Sub", testSub},
		{"Stat", testStat},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t)
			t.Cleanup(func() {
				if err := s.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			tc.fn(t, s)
		})
	}
}

// pattern returns n deterministic bytes that differ per seed.
func pattern(seed, n int) []byte {
	b := make([]byte, n)
	x := uint32(seed)*2654435761 + 1
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

func mustWrite(t *testing.T, s storage.Storage, p string, data []byte) {
	t.Helper()
	if err := s.WriteAll(context.Background(), p, data); err != nil {
		t.Fatalf("WriteAll(%q): %v", p, err)
	}
}

func mustRead(t *testing.T, s storage.Storage, p string) []byte {
	t.Helper()
	b, err := s.ReadAll(context.Background(), p)
	if err != nil {
		t.Fatalf("ReadAll(%q): %v", p, err)
	}
	return b
}

func mustExist(t *testing.T, s storage.Storage, p string, want bool) {
	t.Helper()
	ok, err := s.Exists(context.Background(), p)
	if err != nil {
		t.Fatalf("Exists(%q): %v", p, err)
	}
	if ok != want {
		t.Fatalf("Exists(%q) = %v, want %v", p, ok, want)
	}
}

func list(t *testing.T, s storage.Storage, prefix string) []storage.ObjectInfo {
	t.Helper()
	var out []storage.ObjectInfo
	for info, err := range s.List(context.Background(), prefix) {
		if err != nil {
			t.Fatalf("List(%q): %v", prefix, err)
		}
		out = append(out, info)
	}
	return out
}

func listPaths(t *testing.T, s storage.Storage, prefix string) []string {
	t.Helper()
	var out []string
	for _, info := range list(t, s, prefix) {
		out = append(out, info.Path)
	}
	return out
}

func testReadAfterWrite(t *testing.T, s storage.Storage) {
	ctx := context.Background()
	data := pattern(1, 100_000)
	mustWrite(t, s, "a/b/c.bin", data)
	if got := mustRead(t, s, "a/b/c.bin"); !bytes.Equal(got, data) {
		t.Fatalf("ReadAll after WriteAll: got %d bytes, want %d equal bytes", len(got), len(data))
	}
	mustExist(t, s, "a/b/c.bin", true)

	w, err := s.Create(ctx, "top.bin")
	if err != nil {
		t.Fatal(err)
	}
	for chunk := range slices.Chunk(data, 777) {
		if _, err := w.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, s, "top.bin"); !bytes.Equal(got, data) {
		t.Fatalf("ReadAll after chunked Create: got %d bytes, want %d equal bytes", len(got), len(data))
	}
}

func testEmptyObject(t *testing.T, s storage.Storage) {
	ctx := context.Background()
	mustWrite(t, s, "empty", nil)
	mustExist(t, s, "empty", true)
	if got := mustRead(t, s, "empty"); len(got) != 0 {
		t.Fatalf("ReadAll(empty) = %d bytes", len(got))
	}
	f, err := s.Open(ctx, "empty")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Size() != 0 {
		t.Fatalf("Size = %d, want 0", f.Size())
	}
	if n, err := f.ReadAt(make([]byte, 4), 0); n != 0 || err != io.EOF {
		t.Fatalf("ReadAt on empty = %d, %v; want 0, io.EOF", n, err)
	}
	if infos := list(t, s, ""); len(infos) != 1 || infos[0].Path != "empty" || infos[0].Size != 0 {
		t.Fatalf("List = %+v, want one empty object", infos)
	}
}

func testOverwrite(t *testing.T, s storage.Storage) {
	mustWrite(t, s, "x", pattern(1, 5000))
	mustWrite(t, s, "x", []byte("short"))
	if got := mustRead(t, s, "x"); string(got) != "short" {
		t.Fatalf("after overwrite got %q, want %q", got, "short")
	}
	w, err := s.Create(context.Background(), "x")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(w, "via create"); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, s, "x"); string(got) != "via create" {
		t.Fatalf("after Create overwrite got %q", got)
	}
	if got := listPaths(t, s, ""); !slices.Equal(got, []string{"x"}) {
		t.Fatalf("List after overwrites = %q, want [x]", got)
	}
}

func testNotVisibleBeforeClose(t *testing.T, s storage.Storage) {
	ctx := context.Background()
	mustWrite(t, s, "dir/old", []byte("old"))
	w, err := s.Create(ctx, "dir/new")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(pattern(2, 10_000)); err != nil {
		t.Fatal(err)
	}
	mustExist(t, s, "dir/new", false)
	// An in-progress write (a temp file on local disks) must not be listed.
	if got := listPaths(t, s, ""); !slices.Equal(got, []string{"dir/old"}) {
		t.Fatalf("List during write = %q, want [dir/old]", got)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	mustExist(t, s, "dir/new", true)
	if got := listPaths(t, s, ""); !slices.Equal(got, []string{"dir/new", "dir/old"}) {
		t.Fatalf("List after Close = %q", got)
	}
}

func testCanceledWrite(t *testing.T, s storage.Storage) {
	ctx, cancel := context.WithCancel(context.Background())
	w, err := s.Create(ctx, "canceled")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("partial")); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := w.Close(); err == nil {
		t.Fatal("Close after cancel succeeded, want an error")
	}
	mustExist(t, s, "canceled", false)
	if got := listPaths(t, s, ""); len(got) != 0 {
		t.Fatalf("List after canceled write = %q, want nothing", got)
	}
}

func testList(t *testing.T, s storage.Storage) {
	paths := []string{
		"b/x", "a/b/d", "a-c", "a/b0", "ab", "a.txt", "a/b/c",
		"snapshot/snapshot-2", "snapshot/snapshot-10", "snapshot/snapshot-1", "snapshot/LATEST",
		"z/deep/er/still/file",
	}
	for i, p := range paths {
		mustWrite(t, s, p, pattern(i, i+1))
	}
	sorted := slices.Sorted(slices.Values(paths))
	infos := list(t, s, "")
	var got []string
	for _, info := range infos {
		got = append(got, info.Path)
		i := slices.Index(paths, info.Path)
		if i < 0 {
			continue
		}
		if info.Size != int64(i+1) {
			t.Errorf("List: %s has Size %d, want %d", info.Path, info.Size, i+1)
		}
		if info.ModTime.IsZero() {
			t.Errorf("List: %s has zero ModTime", info.Path)
		}
	}
	if !slices.Equal(got, sorted) {
		t.Fatalf("List(\"\") =\n%q\nwant\n%q", got, sorted)
	}
	for _, tc := range []struct {
		prefix string
		want   []string
	}{
		{"a/", []string{"a/b/c", "a/b/d", "a/b0"}},
		{"a/b/", []string{"a/b/c", "a/b/d"}},
		{"a/b", []string{"a/b/c", "a/b/d", "a/b0"}},
		{"a", []string{"a-c", "a.txt", "a/b/c", "a/b/d", "a/b0", "ab"}},
		{"snapshot/snapshot-", []string{"snapshot/snapshot-1", "snapshot/snapshot-10", "snapshot/snapshot-2"}},
		{"snapshot/L", []string{"snapshot/LATEST"}},
		{"z/", []string{"z/deep/er/still/file"}},
		{"b/x", []string{"b/x"}},
		{"nothing", nil},
		{"nothing/", nil},
		{"b/x/", nil},
	} {
		if got := listPaths(t, s, tc.prefix); !slices.Equal(got, tc.want) {
			t.Errorf("List(%q) = %q, want %q", tc.prefix, got, tc.want)
		}
	}
	for _, bad := range []string{"/abs", "../up", "a//b"} {
		n := 0
		for _, err := range s.List(context.Background(), bad) {
			n++
			if !errors.Is(err, storage.ErrInvalidPath) {
				t.Errorf("List(%q) yielded %v, want ErrInvalidPath", bad, err)
			}
		}
		if n != 1 {
			t.Errorf("List(%q) yielded %d items, want a single error", bad, n)
		}
	}
}

func testListStopsEarly(t *testing.T, s storage.Storage) {
	for i := range 5 {
		mustWrite(t, s, fmt.Sprintf("d%d/f", i), []byte{byte(i)})
	}
	var got []string
	for info, err := range s.List(context.Background(), "") {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, info.Path)
		if len(got) == 2 {
			break
		}
	}
	if !slices.Equal(got, []string{"d0/f", "d1/f"}) {
		t.Fatalf("first two listed = %q", got)
	}
}

func testRangeReads(t *testing.T, s storage.Storage) {
	ctx := context.Background()
	const size = 10_000
	data := pattern(3, size)
	mustWrite(t, s, "data/file.bin", data)
	f, err := s.Open(ctx, "data/file.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := f.Close(); err != nil {
			t.Errorf("File.Close: %v", err)
		}
	}()
	if f.Size() != size {
		t.Fatalf("Size = %d, want %d", f.Size(), size)
	}
	for _, tc := range []struct {
		off, len int64
		wantN    int64
		wantEOF  bool // io.EOF required; otherwise nil (or io.EOF when the read ends exactly at the end)
	}{
		{0, 10, 10, false},
		{1234, 4000, 4000, false},
		{size - 10, 10, 10, false},
		{size - 5, 10, 5, true},
		{size, 10, 0, true},
		{size + 100, 10, 0, true},
		{0, size + 1, size, true},
		{0, size, size, false},
	} {
		buf := make([]byte, tc.len)
		n, err := f.ReadAt(buf, tc.off)
		if int64(n) != tc.wantN {
			t.Errorf("ReadAt(len %d, off %d) n = %d, want %d", tc.len, tc.off, n, tc.wantN)
		}
		switch {
		case tc.wantEOF && err != io.EOF:
			t.Errorf("ReadAt(len %d, off %d) err = %v, want io.EOF", tc.len, tc.off, err)
		case !tc.wantEOF && err != nil && !(err == io.EOF && tc.off+tc.len == size):
			t.Errorf("ReadAt(len %d, off %d) err = %v, want nil", tc.len, tc.off, err)
		}
		if tc.wantN > 0 && !bytes.Equal(buf[:n], data[tc.off:tc.off+int64(n)]) {
			t.Errorf("ReadAt(len %d, off %d) returned wrong bytes", tc.len, tc.off)
		}
	}
	if _, err := f.ReadAt(make([]byte, 1), -1); err == nil {
		t.Error("ReadAt at offset -1 succeeded")
	}
	// io.ReaderAt allows parallel calls.
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			off := int64(g * 1000)
			buf := make([]byte, 1500)
			n, err := f.ReadAt(buf, off)
			if err != nil && err != io.EOF {
				t.Errorf("parallel ReadAt(off %d): %v", off, err)
				return
			}
			if !bytes.Equal(buf[:n], data[off:off+int64(n)]) {
				t.Errorf("parallel ReadAt(off %d) returned wrong bytes", off)
			}
		})
	}
	wg.Wait()
	all, err := io.ReadAll(io.NewSectionReader(f, 0, f.Size()))
	if err != nil || !bytes.Equal(all, data) {
		t.Fatalf("SectionReader over File: %d bytes, err %v", len(all), err)
	}
}

func testDelete(t *testing.T, s storage.Storage) {
	ctx := context.Background()
	mustWrite(t, s, "d/keep", []byte("k"))
	mustWrite(t, s, "d/gone", []byte("g"))
	if err := s.Delete(ctx, "d/gone"); err != nil {
		t.Fatal(err)
	}
	mustExist(t, s, "d/gone", false)
	if _, err := s.ReadAll(ctx, "d/gone"); !errors.Is(err, storage.ErrNotExist) {
		t.Fatalf("ReadAll after Delete: %v, want ErrNotExist", err)
	}
	if err := s.Delete(ctx, "d/gone"); !errors.Is(err, storage.ErrNotExist) {
		t.Fatalf("second Delete: %v, want ErrNotExist", err)
	}
	if got := listPaths(t, s, ""); !slices.Equal(got, []string{"d/keep"}) {
		t.Fatalf("List after Delete = %q", got)
	}
	// A deleted path can be created again, also with CreateIfNotExists.
	if err := s.CreateIfNotExists(ctx, "d/gone", []byte("again")); err != nil {
		t.Fatalf("CreateIfNotExists after Delete: %v", err)
	}
	if got := mustRead(t, s, "d/gone"); string(got) != "again" {
		t.Fatalf("recreated content %q", got)
	}
}

func testMissing(t *testing.T, s storage.Storage) {
	ctx := context.Background()
	mustWrite(t, s, "file", []byte("f"))
	for _, p := range []string{"missing", "no/such/dir/file", "file/below-a-file"} {
		check := func(op string, err error) {
			t.Helper()
			if !errors.Is(err, storage.ErrNotExist) {
				t.Errorf("%s(%q) error = %v, want ErrNotExist", op, p, err)
			} else if !strings.Contains(err.Error(), p) {
				t.Errorf("%s(%q) error %q does not name the path", op, p, err)
			}
		}
		_, err := s.Open(ctx, p)
		check("Open", err)
		_, err = s.ReadAll(ctx, p)
		check("ReadAll", err)
		check("Delete", s.Delete(ctx, p))
		mustExist(t, s, p, false)
	}
}

func testInvalidPaths(t *testing.T, s storage.Storage) {
	ctx := context.Background()
	for _, p := range []string{"", "/abs", "a/", "a//b", "../x", "a/../b", "./a", "."} {
		if err := s.WriteAll(ctx, p, []byte("x")); !errors.Is(err, storage.ErrInvalidPath) {
			t.Errorf("WriteAll(%q) = %v, want ErrInvalidPath", p, err)
		}
		if _, err := s.ReadAll(ctx, p); !errors.Is(err, storage.ErrInvalidPath) {
			t.Errorf("ReadAll(%q) = %v, want ErrInvalidPath", p, err)
		}
		if err := s.CreateIfNotExists(ctx, p, []byte("x")); !errors.Is(err, storage.ErrInvalidPath) {
			t.Errorf("CreateIfNotExists(%q) = %v, want ErrInvalidPath", p, err)
		}
	}
	if got := listPaths(t, s, ""); len(got) != 0 {
		t.Fatalf("invalid writes left objects: %q", got)
	}
}

func testCreateIfNotExists(t *testing.T, s storage.Storage) {
	ctx := context.Background()
	if err := s.CreateIfNotExists(ctx, "snapshot/snapshot-1", []byte("first")); err != nil {
		t.Fatal(err)
	}
	err := s.CreateIfNotExists(ctx, "snapshot/snapshot-1", []byte("second"))
	if !errors.Is(err, storage.ErrExist) {
		t.Fatalf("second CreateIfNotExists = %v, want ErrExist", err)
	}
	if !strings.Contains(err.Error(), "snapshot/snapshot-1") {
		t.Errorf("error %q does not name the path", err)
	}
	mustWrite(t, s, "plain", []byte("written"))
	if err := s.CreateIfNotExists(ctx, "plain", []byte("over")); !errors.Is(err, storage.ErrExist) {
		t.Fatalf("CreateIfNotExists over WriteAll = %v, want ErrExist", err)
	}
	if got := mustRead(t, s, "snapshot/snapshot-1"); string(got) != "first" {
		t.Fatalf("content %q, want first", got)
	}
	if got := mustRead(t, s, "plain"); string(got) != "written" {
		t.Fatalf("content %q, want written", got)
	}
	if got := listPaths(t, s, ""); !slices.Equal(got, []string{"plain", "snapshot/snapshot-1"}) {
		t.Fatalf("List = %q", got)
	}
}

// testCreateIfNotExistsRace races 16 goroutines per path: exactly one wins,
// the others get ErrExist, and the winner's bytes are stored intact.
func testCreateIfNotExistsRace(t *testing.T, s storage.Storage) {
	const racers, rounds, size = 16, 10, 64 << 10
	ctx := context.Background()
	for round := range rounds {
		p := fmt.Sprintf("race/snapshot-%d", round)
		var (
			wg      sync.WaitGroup
			start   = make(chan struct{})
			mu      sync.Mutex
			winners []int
		)
		for r := range racers {
			wg.Go(func() {
				<-start
				err := s.CreateIfNotExists(ctx, p, pattern(round*racers+r, size))
				switch {
				case err == nil:
					mu.Lock()
					winners = append(winners, r)
					mu.Unlock()
				case !errors.Is(err, storage.ErrExist):
					t.Errorf("racer %d on %s: %v, want nil or ErrExist", r, p, err)
				}
			})
		}
		close(start)
		wg.Wait()
		if len(winners) != 1 {
			t.Fatalf("%s: %d winners %v, want exactly 1", p, len(winners), winners)
		}
		if got := mustRead(t, s, p); !bytes.Equal(got, pattern(round*racers+winners[0], size)) {
			t.Fatalf("%s: stored content is not the winner's (%d bytes)", p, len(got))
		}
	}
	if got := listPaths(t, s, ""); len(got) != rounds {
		t.Fatalf("List after races = %q, want %d objects", got, rounds)
	}
}

func testSub(t *testing.T, s storage.Storage) {
	ctx := context.Background()
	sub := s.Sub("tables/t1")
	if !strings.HasSuffix(strings.SplitN(sub.URL(), "?", 2)[0], "/tables/t1") {
		t.Errorf("Sub URL %q does not end in /tables/t1 (parent %q)", sub.URL(), s.URL())
	}
	if err := sub.WriteAll(ctx, "schema/schema-0", []byte("s0")); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, s, "tables/t1/schema/schema-0"); string(got) != "s0" {
		t.Fatalf("parent sees %q", got)
	}
	mustWrite(t, s, "tables/t1/manifest/m1", []byte("m"))
	mustWrite(t, s, "tables/t10/other", []byte("o"))
	if got := listPaths(t, sub, ""); !slices.Equal(got, []string{"manifest/m1", "schema/schema-0"}) {
		t.Fatalf("Sub List = %q", got)
	}
	if got := listPaths(t, s.Sub("tables").Sub("t1/"), "sch"); !slices.Equal(got, []string{"schema/schema-0"}) {
		t.Fatalf("nested Sub List = %q", got)
	}
	if err := sub.CreateIfNotExists(ctx, "manifest/m1", nil); !errors.Is(err, storage.ErrExist) {
		t.Fatalf("Sub CreateIfNotExists = %v, want ErrExist", err)
	}
	if _, err := sub.ReadAll(ctx, "nope"); !errors.Is(err, storage.ErrNotExist) {
		t.Fatalf("Sub ReadAll(missing) = %v, want ErrNotExist", err)
	}
	if bad := s.Sub("../escape"); bad.WriteAll(ctx, "x", nil) == nil {
		t.Fatal("Sub(\"../escape\") allowed a write")
	}
	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
	// Closing a Sub leaves the parent usable.
	mustWrite(t, s, "after-sub-close", []byte("ok"))
	if got := mustRead(t, s, "after-sub-close"); string(got) != "ok" {
		t.Fatalf("parent after Sub.Close: %q", got)
	}
}

// testStat: a Stater reports an object's size, a rewrite is seen (size or
// modification time changes), and missing paths and folders give
// ErrNotExist.
func testStat(t *testing.T, s storage.Storage) {
	st, ok := s.(storage.Stater)
	if !ok {
		t.Skip("the backend has no Stat capability")
	}
	ctx := context.Background()
	mustWrite(t, s, "dir/obj", []byte("12345"))
	a, err := st.Stat(ctx, "dir/obj")
	if err != nil || a.Size != 5 || a.Path != "dir/obj" {
		t.Fatalf("Stat = %+v, %v; want size 5", a, err)
	}
	mustWrite(t, s, "dir/obj", []byte("1234567"))
	b, err := st.Stat(ctx, "dir/obj")
	if err != nil || b.Size != 7 {
		t.Fatalf("Stat after rewrite = %+v, %v; want size 7", b, err)
	}
	for _, p := range []string{"missing", "dir"} {
		if _, err := st.Stat(ctx, p); !errors.Is(err, storage.ErrNotExist) {
			t.Errorf("Stat(%q) error = %v, want ErrNotExist", p, err)
		}
	}
}
