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
