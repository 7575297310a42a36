package datafile

import (
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/compress/lz4"
)

// lz4RawCodec is parquet-go's LZ4_RAW codec with one fix: the underlying
// block compressor returns no bytes for incompressible input, which
// parquet-go writes as an empty (corrupt) page. Such input is stored as a
// literal-only LZ4 block instead, which every LZ4 decoder reads.
type lz4RawCodec struct {
	lz4.Codec
}

func (c *lz4RawCodec) Encode(dst, src []byte) ([]byte, error) {
	out, err := c.Codec.Encode(dst, src)
	if err != nil || len(out) > 0 || len(src) == 0 {
		return out, err
	}
	return appendLZ4Literals(out[:0], src), nil
}

// appendLZ4Literals appends an LZ4 block holding src as one run of
// literals: a token with the literal length (15 meaning "more bytes
// follow"), the length continuation bytes, then the literals.
func appendLZ4Literals(dst, src []byte) []byte {
	n := len(src)
	if n < 15 {
		dst = append(dst, byte(n<<4))
	} else {
		dst = append(dst, 15<<4)
		rest := n - 15
		for rest >= 255 {
			dst = append(dst, 255)
			rest -= 255
		}
		dst = append(dst, byte(rest))
	}
	return append(dst, src...)
}

func newLZ4() compress.Codec { return &lz4RawCodec{Codec: lz4.Codec{Level: lz4.Fast}} }
