package datafile

import (
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/compress"
	pqzstd "github.com/parquet-go/parquet-go/compress/zstd"
	"github.com/parquet-go/parquet-go/format"
)

// zstdPageCodec is the writers' zstd codec: parquet-go's (one encoder per
// page being compressed, pooled) with a window of one page buffer
// (pageBytes) instead of zstd's default 8 MB, and shared by every writer of
// the process (zstdCodec, one per level).
//
// Memory: an encoder of the default window keeps a 16 MB history buffer
// once it compressed a page larger than a block (128 kB), and parquet-go's
// codec per writer made fresh encoders for every file; at the peak of a
// statement mix with a 4 MB write buffer the encoders were 32 MB of a 66 MB
// live heap, then 16 MB of history after sharing them. A window of one
// page loses no match inside a page (pages are compressed one by one, each
// its own zstd frame); the frames are standard zstd, which every Parquet
// reader decodes.
type zstdPageCodec struct {
	level    zstd.EncoderLevel
	encoders sync.Pool // *zstd.Encoder
}

// zstdWindow is the encoders' window: a power of two holding one page.
const zstdWindow = pageBytes

var _ compress.Codec = (*zstdPageCodec)(nil)

var zstdCodecs [23]struct {
	once  sync.Once
	codec *zstdPageCodec
}

// zstdCodec returns the process's codec of zstd level (1..22).
func zstdCodec(level int) *zstdPageCodec {
	c := &zstdCodecs[level]
	c.once.Do(func() { c.codec = &zstdPageCodec{level: zstd.EncoderLevelFromZstd(level)} })
	return c.codec
}

// zstdDecode decodes for the codec's Decode (writers never decode; readers
// take parquet-go's codec of the file's metadata).
var zstdDecode pqzstd.Codec

func (c *zstdPageCodec) String() string { return "ZSTD" }

func (c *zstdPageCodec) CompressionCodec() format.CompressionCodec { return format.Zstd }

// Encode compresses src into one zstd frame.
func (c *zstdPageCodec) Encode(dst, src []byte) ([]byte, error) {
	e, _ := c.encoders.Get().(*zstd.Encoder)
	if e == nil {
		var err error
		e, err = zstd.NewWriter(nil,
			zstd.WithEncoderConcurrency(1),
			zstd.WithEncoderLevel(c.level),
			zstd.WithWindowSize(zstdWindow),
			zstd.WithLowerEncoderMem(true),
			zstd.WithZeroFrames(true),
			zstd.WithEncoderCRC(false),
		)
		if err != nil {
			return dst[:0], err
		}
	}
	defer c.encoders.Put(e)
	return e.EncodeAll(src, dst[:0]), nil
}

// Decode decompresses one page.
func (c *zstdPageCodec) Decode(dst, src []byte) ([]byte, error) { return zstdDecode.Decode(dst, src) }
