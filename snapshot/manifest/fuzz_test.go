package manifest_test

import (
	"errors"
	"os"
	"reflect"
	"testing"

	"github.com/lakesql/lakesql/snapshot/manifest"
)

func seedFuzz(f *testing.F, kind string) {
	for _, ff := range fixtureFiles(f) {
		if ff.kind != kind {
			continue
		}
		data, err := os.ReadFile(ff.path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// fuzzRead checks the decoder contract on arbitrary input: no panic, errors
// wrap ErrCorrupt or ErrUnsupported, and whatever decodes re-encodes to an
// equal value.
func fuzzRead(t *testing.T, kind string, data []byte) {
	got, err := readAny(kind, data, "fuzz")
	if err != nil {
		if !errors.Is(err, manifest.ErrCorrupt) && !errors.Is(err, manifest.ErrUnsupported) {
			t.Fatalf("unwrapped error: %v", err)
		}
		return
	}
	again, err := roundTrip(kind, got)
	if err != nil {
		t.Fatalf("re-encode: %v", err)
	}
	if !reflect.DeepEqual(got, again) {
		t.Fatalf("round trip differs:\n%#v\n%#v", got, again)
	}
}

func FuzzReadManifest(f *testing.F) {
	seedFuzz(f, "manifest")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, "manifest", data) })
}

func FuzzReadManifestList(f *testing.F) {
	seedFuzz(f, "list")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, "list", data) })
}

func FuzzReadIndexManifest(f *testing.F) {
	seedFuzz(f, "index")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, "index", data) })
}
