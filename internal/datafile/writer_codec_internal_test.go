package datafile

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/pierrec/lz4/v4"
)

// TestLZ4LiteralBlock: incompressible pages become literal-only LZ4 blocks
// that the reference decoder reads back.
func TestLZ4LiteralBlock(t *testing.T) {
	c := newLZ4()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 14, 15, 16, 269, 270, 271, 1000, 70000} {
		src := make([]byte, n)
		for i := range src {
			src[i] = byte(rng.Uint32())
		}
		enc, err := c.Encode(nil, src)
		if err != nil || len(enc) == 0 {
			t.Fatalf("n=%d: Encode = %d bytes, %v", n, len(enc), err)
		}
		dst := make([]byte, n)
		m, err := lz4.UncompressBlock(enc, dst)
		if err != nil || !bytes.Equal(dst[:m], src) {
			t.Fatalf("n=%d: decoded %d bytes, %v", n, m, err)
		}
	}
}

// TestZstdCodecShared: writers of one zstd level share one codec (and so
// its pooled encoders) instead of each allocating encoders per file.
func TestZstdCodecShared(t *testing.T) {
	for _, level := range []int{0, 1, 3, 22} {
		a, err := codecOf("zstd", level)
		if err != nil {
			t.Fatal(err)
		}
		b, err := codecOf("", level)
		if err != nil {
			t.Fatal(err)
		}
		if a != b {
			t.Errorf("level %d: two writers got two zstd codecs", level)
		}
	}
	one, _ := codecOf("zstd", 1)
	three, _ := codecOf("zstd", 3)
	if one == three {
		t.Error("levels 1 and 3 share a codec")
	}
}
