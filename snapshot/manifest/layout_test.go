package manifest_test

import (
	"sync"
	"testing"

	"github.com/lakesql/lakesql/snapshot/manifest"
)

func TestFileNameRoundTrip(t *testing.T) {
	u := "ba01c2d3-1111-2222-3333-444455556666"
	for _, typ := range []manifest.FileType{manifest.FileTypeManifest, manifest.FileTypeManifestList, manifest.FileTypeIndexManifest} {
		for _, n := range []int64{0, 1, 42, 1 << 40} {
			name := manifest.FileName(typ, u, n)
			gt, gu, gn, ok := manifest.ParseFileName(name)
			if !ok || gt != typ || gu != u || gn != n {
				t.Errorf("%s: parsed %v %q %d %v", name, gt, gu, gn, ok)
			}
		}
	}
	if got := manifest.FileName(manifest.FileTypeManifestList, u, 3); got != "manifest-list-"+u+"-3" {
		t.Error(got)
	}
	for _, bad := range []string{"", "manifest-", "manifest-x", "manifest-x-", "manifest-x-01",
		"snapshot-1", "index-abc-0", "manifest--3", "manifest-x-1a"} {
		if _, _, _, ok := manifest.ParseFileName(bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}

// TestFixtureNamesParse: every Java-written manifest-folder name parses and
// prints back identically.
func TestFixtureNamesParse(t *testing.T) {
	n := 0
	for _, f := range fixtureFiles(t) {
		name := f.path[len(f.path)-len(baseName(f.path)):]
		if f.kind == "" || !isJavaName(name) {
			continue
		}
		typ, u, c, ok := manifest.ParseFileName(name)
		if !ok || manifest.FileName(typ, u, c) != name || len(u) != 36 {
			t.Errorf("%s: %v %q %d %v", name, typ, u, c, ok)
		}
		n++
	}
	if n < 300 {
		t.Fatalf("only %d names", n)
	}
}

func baseName(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}

func isJavaName(n string) bool {
	return len(n) > 36 && (n[:9] == "manifest-" || n[:15] == "index-manifest-")
}

func TestPathFactory(t *testing.T) {
	f := manifest.NewPathFactoryWithUUID("u")
	if got := f.NewManifestName(); got != "manifest-u-0" {
		t.Error(got)
	}
	if got := f.NewManifestName(); got != "manifest-u-1" {
		t.Error(got)
	}
	if got := f.NewManifestListName(); got != "manifest-list-u-0" {
		t.Error(got)
	}
	if got := f.NewIndexManifestName(); got != "index-manifest-u-0" {
		t.Error(got)
	}
	if manifest.Path("manifest-u-0") != "manifest/manifest-u-0" {
		t.Error(manifest.Path("manifest-u-0"))
	}
	g := manifest.NewPathFactory()
	if len(g.UUID()) != 36 || g.UUID() == manifest.NewPathFactory().UUID() {
		t.Error("uuid", g.UUID())
	}
	// Concurrent use hands out distinct names.
	var mu sync.Mutex
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				n := g.NewManifestName()
				mu.Lock()
				seen[n] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(seen) != 800 {
		t.Fatal(len(seen))
	}
}
