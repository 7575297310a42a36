package dv

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
)

// blobHeaderLen is the length field plus the magic number.
const blobHeaderLen = 8

// blobFormat reads the header at the start of b (at least 8 bytes) and
// returns the whole blob's size and whether it is the 64-bit format.
func blobFormat(b []byte) (total int64, bitmap64 bool, err error) {
	size := int64(int32(binary.BigEndian.Uint32(b)))
	magicBE := binary.BigEndian.Uint32(b[4:])
	switch {
	case magicBE == MagicBitmap32:
	case binary.LittleEndian.Uint32(b[4:]) == MagicBitmap64:
		bitmap64 = true
	default:
		return 0, false, fmt.Errorf("%w: invalid magic number %d (32-bit DV magic %d, 64-bit DV magic %d little-endian)",
			ErrCorrupt, int32(magicBE), MagicBitmap32, MagicBitmap64)
	}
	if size < 4 {
		return 0, false, fmt.Errorf("%w: blob length field %d is smaller than the magic number", ErrCorrupt, size)
	}
	return 4 + size + 4, bitmap64, nil
}

// checkRangeLength checks a manifest length against the blob's length field,
// with the meaning each format gives it (Java DeletionVector.read).
func checkRangeLength(total int64, bitmap64 bool, length int64) error {
	size := total - 8
	if bitmap64 {
		if size != length-8 {
			return fmt.Errorf("%w: 64-bit blob length field %d does not match range length %d (expected %d = length - 8)",
				ErrCorrupt, size, length, length-8)
		}
		return nil
	}
	if size != length {
		return fmt.Errorf("%w: 32-bit blob size field %d does not match range length %d", ErrCorrupt, size, length)
	}
	return nil
}

// DeserializeBlob decodes one whole blob, from its length field to its CRC,
// as written by AppendTo (Java DeletionVector.deserializeFromBytes; unlike
// Java it also checks the CRC and that nothing follows the blob).
func DeserializeBlob(blob []byte) (DeletionVector, error) {
	if len(blob) < blobHeaderLen {
		return nil, fmt.Errorf("%w: blob truncated: %d bytes, need %d for length and magic", ErrCorrupt, len(blob), blobHeaderLen)
	}
	total, _, err := blobFormat(blob)
	if err != nil {
		return nil, err
	}
	if total != int64(len(blob)) {
		return nil, fmt.Errorf("%w: blob length field says %d bytes in all, got %d", ErrCorrupt, total, len(blob))
	}
	return decodeBlob(blob)
}

// decodeBlob decodes a blob whose header was checked by blobFormat and whose
// length is exactly the announced total.
func decodeBlob(blob []byte) (DeletionVector, error) {
	data := blob[4 : len(blob)-4]
	want := binary.BigEndian.Uint32(blob[len(blob)-4:])
	if got := crc32.ChecksumIEEE(data); got != want {
		return nil, fmt.Errorf("%w: CRC-32 mismatch: stored %#08x, computed %#08x", ErrCorrupt, want, got)
	}
	if binary.BigEndian.Uint32(data) == MagicBitmap32 {
		d, err := decodeBitmap32(data[4:])
		if err != nil {
			return nil, err
		}
		return d, nil
	}
	d, err := decodeBitmap64(data[4:])
	if err != nil {
		return nil, err
	}
	return d, nil
}

// decodeRange decodes the blob at offset in data, given the manifest length.
func decodeRange(data []byte, offset, length int64) (DeletionVector, error) {
	if offset < 0 || length <= 0 || length > math.MaxInt32 {
		return nil, fmt.Errorf("%w: invalid deletion vector range: offset %d, length %d", ErrCorrupt, offset, length)
	}
	if offset > int64(len(data)) || int64(len(data))-offset < blobHeaderLen {
		return nil, fmt.Errorf("%w: blob at offset %d truncated: file has %d bytes", ErrCorrupt, offset, len(data))
	}
	return decodeBlobAt(data[offset:], offset, length)
}

// decodeBlobAt decodes the blob at the start of b, which lies at offset in
// its file (for messages), given the manifest length.
func decodeBlobAt(b []byte, offset, length int64) (DeletionVector, error) {
	if len(b) < blobHeaderLen {
		return nil, fmt.Errorf("%w: blob at offset %d truncated: %d bytes left in the file", ErrCorrupt, offset, len(b))
	}
	total, bitmap64, err := blobFormat(b)
	if err != nil {
		return nil, fmt.Errorf("blob at offset %d: %w", offset, err)
	}
	if err := checkRangeLength(total, bitmap64, length); err != nil {
		return nil, fmt.Errorf("blob at offset %d: %w", offset, err)
	}
	if total > int64(len(b)) {
		return nil, fmt.Errorf("%w: blob at offset %d needs %d bytes, file has %d after it", ErrCorrupt, offset, total, len(b))
	}
	dv, err := decodeBlob(b[:total])
	if err != nil {
		return nil, fmt.Errorf("blob at offset %d: %w", offset, err)
	}
	return dv, nil
}

// ReadDeletionVector reads the deletion vector at offset in an index file,
// given the range length recorded in the index manifest (the DeletionFile of
// a split), as Java's DeletionVector.read does: the format is told by the
// magic number, and the length is the size field for the 32-bit format and
// the whole blob for the 64-bit one. It checks the CRC. It issues one ReadAt
// for blobs up to 1 MiB; f's Size method, when it has one, bounds the read.
// Bad ranges and bytes give errors wrapping ErrCorrupt; I/O errors are
// returned wrapped as they are.
func ReadDeletionVector(f io.ReaderAt, offset, length int64) (DeletionVector, error) {
	if offset < 0 || length <= 0 || length > math.MaxInt32 {
		return nil, fmt.Errorf("%w: invalid deletion vector range: offset %d, length %d", ErrCorrupt, offset, length)
	}
	// A 32-bit blob takes length+8 bytes, a 64-bit one length bytes.
	want := length + 8
	if s, ok := f.(interface{ Size() int64 }); ok {
		size := s.Size()
		if offset > size || size-offset < blobHeaderLen {
			return nil, fmt.Errorf("%w: blob at offset %d truncated: file has %d bytes", ErrCorrupt, offset, size)
		}
		want = min(want, size-offset)
	}
	buf, err := readRange(f, offset, want)
	if err != nil {
		return nil, err
	}
	return decodeBlobAt(buf, offset, length)
}

// readRange reads up to n bytes at off, stopping early at end of file. It
// grows its buffer as data arrives, so a bogus n costs no more memory than
// the file holds.
func readRange(f io.ReaderAt, off, n int64) ([]byte, error) {
	const chunk = 1 << 20
	buf := make([]byte, 0, min(n, chunk))
	for int64(len(buf)) < n {
		if len(buf) == cap(buf) {
			nb := make([]byte, len(buf), min(n, 2*int64(cap(buf))))
			copy(nb, buf)
			buf = nb
		}
		at := off + int64(len(buf))
		m, err := f.ReadAt(buf[len(buf):cap(buf)], at)
		buf = buf[:len(buf)+m]
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return nil, fmt.Errorf("dv: reading deletion vector at offset %d: %w", at, err)
		}
		if m == 0 {
			return nil, fmt.Errorf("dv: reading deletion vector at offset %d: no progress", at)
		}
	}
	return buf, nil
}
