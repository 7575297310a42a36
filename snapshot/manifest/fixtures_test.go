package manifest_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/internal/testutil"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// fixtureFile is one Java-written metadata file.
type fixtureFile struct {
	path string
	kind string // "list", "manifest" or "index"
}

func kindOf(name string) string {
	switch {
	case strings.HasPrefix(name, "manifest-list-"), strings.HasPrefix(name, "avro_manifest_list_"):
		return "list"
	case strings.HasPrefix(name, "index-manifest-"):
		return "index"
	case strings.HasPrefix(name, "manifest-"), strings.HasPrefix(name, "avro_manifest_"), name == "manifest":
		return "manifest"
	}
	return ""
}

// fixtureFiles lists every manifest-list, manifest and index-manifest file
// of every fixture table plus the avro-manifest vectors.
func fixtureFiles(t testing.TB) []fixtureFile {
	t.Helper()
	var dirs []string
	for _, p := range testutil.FixtureTables(t) {
		dirs = append(dirs, filepath.Join(p, "manifest"))
	}
	dirs = append(dirs, filepath.Join(testutil.FixturesDir(t), "vectors", "avro-manifest"))
	sort.Strings(dirs)
	var out []fixtureFile
	for _, dir := range dirs {
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if k := kindOf(e.Name()); k != "" && !e.IsDir() {
				out = append(out, fixtureFile{filepath.Join(dir, e.Name()), k})
			}
		}
	}
	if len(out) < 300 {
		t.Fatalf("found only %d fixture metadata files", len(out))
	}
	return out
}

func isORC(data []byte) bool { return len(data) >= 3 && string(data[:3]) == "ORC" }

// TestFixturesRoundTrip decodes every Java-written metadata file, re-encodes
// it with the Go writer, decodes again and compares.
func TestFixturesRoundTrip(t *testing.T) {
	counts := map[string]int{}
	for _, f := range fixtureFiles(t) {
		data, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(f.path)
		if isORC(data) {
			_, err := readAny(f.kind, data, name)
			if !errors.Is(err, manifest.ErrORCManifest) || !errors.Is(err, manifest.ErrUnsupported) ||
				!strings.Contains(err.Error(), "ORC manifest") || !strings.Contains(err.Error(), name) {
				t.Errorf("%s: ORC manifest gave %v", f.path, err)
			}
			counts["orc"]++
			continue
		}
		got, err := readAny(f.kind, data, name)
		if err != nil {
			t.Errorf("%s: %v", f.path, err)
			continue
		}
		again, err := roundTrip(f.kind, got)
		if err != nil {
			t.Errorf("%s: round trip: %v", f.path, err)
			continue
		}
		if !reflect.DeepEqual(got, again) {
			t.Errorf("%s: round trip differs:\n got %#v\nthen %#v", f.path, got, again)
		}
		counts[f.kind]++
		counts[f.kind+"-records"] += reflect.ValueOf(got).Len()
	}
	t.Logf("decoded and round-tripped: %v", counts)
	if counts["manifest"] == 0 || counts["list"] == 0 || counts["index"] == 0 || counts["orc"] == 0 {
		t.Errorf("some kinds were not exercised: %v", counts)
	}
}

func readAny(kind string, data []byte, name string) (any, error) {
	switch kind {
	case "list":
		return manifest.ReadManifestList(data, name)
	case "index":
		return manifest.ReadIndexManifest(data, name)
	}
	return manifest.ReadManifest(data, name)
}

func roundTrip(kind string, v any) (any, error) {
	var data []byte
	var err error
	switch kind {
	case "list":
		data, err = manifest.WriteManifestList(v.([]manifest.ManifestFileMeta))
	case "index":
		data, err = manifest.WriteIndexManifest(v.([]manifest.IndexManifestEntry))
	default:
		data, err = manifest.WriteManifest(v.([]manifest.ManifestEntry))
	}
	if err != nil {
		return nil, err
	}
	return readAny(kind, data, "rewritten")
}
