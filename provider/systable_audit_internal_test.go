package provider

import (
	"strings"
	"testing"
)

// FuzzParseIncremental: the AS OF value of a snapshot range never panics, and
// a value without the marker is never taken for a range.
func FuzzParseIncremental(f *testing.F) {
	for _, s := range []string{
		incrementalMarker + "version\x001\x005",
		incrementalMarker + "version\x00a\x00b",
		incrementalMarker + "timestamp\x002026-01-01 00:00:00\x002026-01-02",
		incrementalMarker + "unixtime\x001\x002",
		incrementalMarker + "version\x00-1\x00x",
		incrementalMarker,
		"3", "tag",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		inc, ok, err := parseIncremental(s)
		if !strings.HasPrefix(s, incrementalMarker) && (ok || err != nil || inc != nil) {
			t.Fatalf("%q taken for a range: %v %v %v", s, inc, ok, err)
		}
		if ok && err == nil && inc == nil {
			t.Fatalf("%q: no range and no error", s)
		}
	})
}
