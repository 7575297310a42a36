package manifest_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/hamba/avro/v2/ocf"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// headerSchema returns the avro.schema and avro.codec header entries of an
// Avro file, read by hamba's own ocf decoder.
func headerSchema(t testing.TB, data []byte) (schema, codec string) {
	t.Helper()
	dec, err := ocf.NewDecoder(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return string(dec.Metadata()["avro.schema"]), string(dec.Metadata()["avro.codec"])
}

// TestWriterSchemaMatchesJava checks that the schema the writers embed is
// byte for byte the one Java 1.3 embeds: equal to the fixtures of the 1.3
// shape, and a prefix (up to the closing brackets) of newer shapes that
// append fields.
func TestWriterSchemaMatchesJava(t *testing.T) {
	written := map[string]string{}
	for kind, write := range map[string]func() ([]byte, error){
		"manifest": func() ([]byte, error) { return manifest.WriteManifest(nil) },
		"list":     func() ([]byte, error) { return manifest.WriteManifestList(nil) },
		"index":    func() ([]byte, error) { return manifest.WriteIndexManifest(nil) },
	} {
		data, err := write()
		if err != nil {
			t.Fatal(err)
		}
		s, codec := headerSchema(t, data)
		if codec != "zstandard" {
			t.Errorf("%s: default codec %q, want zstandard", kind, codec)
		}
		written[kind] = s
	}
	// Marker fields of the 1.3.1 shape per kind, and fields of newer shapes.
	shape13 := map[string]string{"manifest": `"_WRITE_COLS"`, "list": `"_MAX_LEVEL"`, "index": `"_EXTERNAL_PATH"`}
	newer := map[string]string{"manifest": `"_WRITE_COLS_SEQUENCES"`, "list": `"_MIN_ROW_ID"`, "index": `"_GLOBAL_INDEX"`}
	exact, prefix := map[string]int{}, map[string]int{}
	for _, f := range fixtureFiles(t) {
		data, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if isORC(data) {
			continue
		}
		java, _ := headerSchema(t, data)
		ours := written[f.kind]
		switch {
		case strings.Contains(java, newer[f.kind]):
			// Newer shape: ours minus its closing "]}" must start it.
			if !strings.HasPrefix(java, strings.TrimSuffix(ours, "]}")) && !strings.HasPrefix(java, strings.TrimSuffix(ours, "]}}]}")) {
				t.Errorf("%s: our %s schema is not a prefix of Java's\n java %s\n ours %s", f.path, f.kind, java, ours)
			}
			prefix[f.kind]++
		case strings.Contains(java, shape13[f.kind]):
			if java != ours {
				t.Errorf("%s: %s schema differs\n java %s\n ours %s", f.path, f.kind, java, ours)
			}
			exact[f.kind]++
		default:
			// Older shapes: the Java schema up to its last field is a
			// prefix of ours (modulo the 0.9-era nullable-union wrapping).
			if !strings.HasPrefix(java, "[") {
				cut := strings.LastIndex(java, `},{"name"`)
				if cut < 0 || !strings.HasPrefix(ours, java[:cut]) {
					t.Errorf("%s: older Java %s schema is not a prefix of ours\n java %s\n ours %s", f.path, f.kind, java, ours)
				}
			}
		}
	}
	t.Logf("exact 1.3 matches %v, prefix of newer shapes %v", exact, prefix)
	for _, k := range []string{"manifest", "list", "index"} {
		if exact[k] == 0 {
			t.Errorf("no 1.3-shape fixture for %s", k)
		}
	}
}
