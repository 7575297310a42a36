package manifest

import (
	"errors"
	"fmt"
	"math"
)

// dec is a bounded Avro binary decoder over one buffer. The first error
// sticks; later reads return zero values.
type dec struct {
	b   []byte
	off int
	err error
	// s is string(b), made once per block so strings are substrings of it
	// instead of one allocation each. Empty until a block sets it.
	s string
}

func (d *dec) remaining() int { return len(d.b) - d.off }

func (d *dec) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf(format, args...)
	}
}

var errTruncated = errors.New("unexpected end of data")

// long reads a zig-zag varint long.
func (d *dec) long() int64 {
	if d.err != nil {
		return 0
	}
	var u uint64
	for shift := uint(0); ; shift += 7 {
		if d.off >= len(d.b) {
			d.err = errTruncated
			return 0
		}
		c := d.b[d.off]
		d.off++
		if shift == 63 && c > 1 {
			d.fail("varint overflows a long")
			return 0
		}
		u |= uint64(c&0x7f) << shift
		if c < 0x80 {
			break
		}
	}
	return int64(u>>1) ^ -int64(u&1)
}

// int reads a zig-zag varint int.
func (d *dec) int() int32 {
	v := d.long()
	if v < math.MinInt32 || v > math.MaxInt32 {
		d.fail("int value %d out of range", v)
		return 0
	}
	return int32(v)
}

// length reads a byte length and checks it against the remaining input.
func (d *dec) length() int {
	n := d.long()
	if d.err != nil {
		return 0
	}
	if n < 0 || n > int64(d.remaining()) {
		d.fail("length %d exceeds the %d bytes left", n, d.remaining())
		return 0
	}
	return int(n)
}

// rawBytes returns a sub-slice of the input (capacity clipped).
func (d *dec) rawBytes() []byte {
	n := d.length()
	if d.err != nil {
		return nil
	}
	v := d.b[d.off : d.off+n : d.off+n]
	d.off += n
	return v
}

// str reads a string, sharing memory with d.s when set.
func (d *dec) str() string {
	n := d.length()
	if d.err != nil {
		return ""
	}
	var v string
	if d.s != "" {
		v = d.s[d.off : d.off+n]
	} else {
		v = string(d.b[d.off : d.off+n])
	}
	d.off += n
	return v
}

func (d *dec) skip(n int) {
	if d.err != nil {
		return
	}
	if n < 0 || n > d.remaining() {
		d.fail("skip of %d bytes exceeds the %d bytes left", n, d.remaining())
		return
	}
	d.off += n
}

// blockCount reads an array or map block header and returns the number of
// items in it (0 ends the array). minItemSize (≥ 1) bounds the count by the
// bytes left, so a corrupt count cannot make a caller loop or allocate
// without limit.
func (d *dec) blockCount(minItemSize int) int {
	n := d.long()
	if d.err != nil {
		return 0
	}
	if n < 0 {
		if n == math.MinInt64 {
			d.fail("bad array block count")
			return 0
		}
		n = -n
		_ = d.long() // byte size of the block
	}
	if n > int64(d.remaining()/minItemSize) {
		d.fail("array block of %d items exceeds the %d bytes left", n, d.remaining())
		return 0
	}
	return int(n)
}
