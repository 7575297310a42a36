package lsmwrite_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/lakesql/lakesql/lsmwrite"
)

func TestHashIndexRoundTrip(t *testing.T) {
	in := []int32{0, 1, -1, 2147483647, -2147483648, 123456789}
	data := lsmwrite.EncodeHashIndex(in)
	if len(data) != 4*len(in) || data[4] != 0 || data[7] != 1 {
		t.Fatalf("not big-endian ints: % x", data)
	}
	out, err := lsmwrite.DecodeHashIndex(data)
	if err != nil || !slices.Equal(in, out) {
		t.Fatalf("round trip: %v %v", out, err)
	}
	if _, err := lsmwrite.DecodeHashIndex(data[:5]); !errors.Is(err, lsmwrite.ErrCorrupt) {
		t.Fatalf("truncated file: %v", err)
	}
}

func FuzzDecodeHashIndex(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1})
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := lsmwrite.DecodeHashIndex(data)
		if err != nil {
			if !errors.Is(err, lsmwrite.ErrCorrupt) {
				t.Fatalf("error does not wrap ErrCorrupt: %v", err)
			}
			return
		}
		if got := lsmwrite.EncodeHashIndex(out); string(got) != string(data) {
			t.Fatalf("re-encode differs")
		}
	})
}
