package manifest

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"sync"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
)

// This file parses the Avro object container format (Avro 1.11 spec,
// "Object Container Files") with every length checked against the input.

// Avro codec names as stored in the avro.codec metadata entry.
const (
	CodecNull      Codec = "null"
	CodecDeflate   Codec = "deflate"
	CodecSnappy    Codec = "snappy"
	CodecZstandard Codec = "zstandard"
)

// Codec is an Avro container compression codec.
type Codec string

const (
	// maxBlockSize bounds one decompressed block. Java writes blocks of about
	// 64 KB (one record more than the 64000-byte sync interval); the bound
	// only stops decompression bombs.
	maxBlockSize = 64 << 20
	syncSize     = 16
)

var (
	avroMagic = []byte{'O', 'b', 'j', 1}
	orcMagic  = []byte("ORC")
)

// container is a parsed object container file header plus the remaining
// block bytes.
type container struct {
	name   string
	schema []byte
	codec  Codec
	sync   [syncSize]byte
	body   []byte
}

// parseContainer parses the header of an Avro object container file.
func parseContainer(data []byte, name string) (*container, error) {
	if bytes.HasPrefix(data, orcMagic) {
		return nil, fmt.Errorf("%w (file %s)", ErrORCManifest, name)
	}
	if !bytes.HasPrefix(data, avroMagic) {
		if len(data) < len(avroMagic) {
			return nil, corruptf(name, "truncated: %d bytes, not an Avro file", len(data))
		}
		return nil, corruptf(name, "not an Avro object container file (magic %x)", data[:4])
	}
	c := &container{name: name}
	d := &dec{b: data, off: len(avroMagic)}
	var schema, codec []byte
	haveCodec := false
	for d.err == nil {
		n := d.long()
		if n == 0 {
			break
		}
		if n < 0 {
			n = -n
			_ = d.long() // block size in bytes
		}
		if n < 0 || n > int64(d.remaining()) {
			d.fail("metadata entry count %d exceeds the file", n)
			break
		}
		for range n {
			k := d.rawBytes()
			v := d.rawBytes()
			if d.err != nil {
				break
			}
			switch string(k) {
			case "avro.schema":
				schema = v
			case "avro.codec":
				codec, haveCodec = v, true
			}
		}
	}
	if d.err == nil && d.remaining() < syncSize {
		d.fail("truncated header: no sync marker")
	}
	if d.err != nil {
		return nil, corruptf(name, "bad Avro header: %v", d.err)
	}
	copy(c.sync[:], d.b[d.off:d.off+syncSize])
	d.off += syncSize
	if schema == nil {
		return nil, corruptf(name, "Avro header has no avro.schema")
	}
	c.schema = schema
	c.codec = CodecNull
	if haveCodec && len(codec) > 0 {
		c.codec = Codec(codec)
	}
	switch c.codec {
	case CodecNull, CodecDeflate, CodecSnappy, CodecZstandard:
	default:
		return nil, unsupportedf(name, "Avro codec %q", c.codec)
	}
	c.body = data[d.off:]
	return c, nil
}

// blocks calls fn for every data block with its record count and its
// decompressed bytes. The bytes are owned by fn's callee (never reused).
func (c *container) blocks(fn func(count int64, block []byte) error) error {
	d := &dec{b: c.body}
	for d.remaining() > 0 {
		count := d.long()
		size := d.long()
		if d.err != nil {
			return corruptf(c.name, "bad block header at offset %d: %v", d.off, d.err)
		}
		if count < 0 || size < 0 || size > int64(d.remaining()) {
			return corruptf(c.name, "truncated or bad block: %d records in %d bytes, %d bytes left", count, size, d.remaining())
		}
		raw := d.b[d.off : d.off+int(size)]
		d.off += int(size)
		if d.remaining() < syncSize {
			return corruptf(c.name, "truncated: block without sync marker")
		}
		if !bytes.Equal(d.b[d.off:d.off+syncSize], c.sync[:]) {
			return corruptf(c.name, "sync marker mismatch after block")
		}
		d.off += syncSize
		if count == 0 {
			continue
		}
		block, err := decompress(c.codec, raw)
		if err != nil {
			return corruptf(c.name, "%s block: %v", c.codec, err)
		}
		// Every record of every schema this package accepts takes at least
		// one byte, so more records than bytes is corruption.
		if count > int64(len(block)) {
			return corruptf(c.name, "block claims %d records in %d bytes", count, len(block))
		}
		if err := fn(count, block); err != nil {
			return err
		}
	}
	return nil
}

var zstdDecoder = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil, zstd.WithDecoderMaxMemory(maxBlockSize), zstd.WithDecoderConcurrency(0))
})

type errString string

func (e errString) Error() string { return string(e) }

// decompress returns a fresh buffer with the decompressed block.
func decompress(codec Codec, raw []byte) ([]byte, error) {
	switch codec {
	case CodecNull:
		return bytes.Clone(raw), nil
	case CodecDeflate:
		r := flate.NewReader(bytes.NewReader(raw))
		out, err := io.ReadAll(io.LimitReader(r, maxBlockSize+1))
		if err != nil {
			return nil, err
		}
		if len(out) > maxBlockSize {
			return nil, errString("block larger than 64 MiB")
		}
		return out, nil
	case CodecSnappy:
		if len(raw) < 4 {
			return nil, errString("no CRC32 trailer")
		}
		body := raw[:len(raw)-4]
		n, err := s2.DecodedLen(body)
		if err != nil {
			return nil, err
		}
		if n > maxBlockSize {
			return nil, errString("block larger than 64 MiB")
		}
		out, err := s2.Decode(make([]byte, n), body)
		if err != nil {
			return nil, err
		}
		if crc32.ChecksumIEEE(out) != binary.BigEndian.Uint32(raw[len(raw)-4:]) {
			return nil, errString("CRC32 mismatch")
		}
		return out, nil
	case CodecZstandard:
		zd, err := zstdDecoder()
		if err != nil {
			return nil, err
		}
		return zd.DecodeAll(raw, nil)
	}
	return nil, errString("unknown codec " + string(codec))
}
