package dv

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/RoaringBitmap/roaring/v2"
)

// Constants of the portable RoaringBitmap format
// (https://github.com/RoaringBitmap/RoaringFormatSpec).
const (
	cookieNoRun       = 12346 // uint32 cookie, then uint32 container count
	cookieRun         = 12347 // low 16 bits; high 16 bits = container count - 1
	noOffsetThreshold = 4     // run-format bitmaps carry offsets only from 4 containers on
	maxArrayCard      = 4096  // larger non-run containers are 8192-byte bitsets
	bitsetBytes       = 8192
)

// emptyPortable is the portable serialization of an empty 32-bit bitmap.
var emptyPortable = []byte{0x3a, 0x30, 0, 0, 0, 0, 0, 0}

// scanPortable validates one portable 32-bit roaring bitmap at the start of b
// and returns how many bytes it occupies and its cardinality. It checks
// everything the roaring library trusts: header sizes, ascending keys,
// container offsets, sorted array values, run bounds and order, bitset
// popcounts and every header cardinality. It runs in time linear in the
// bitmap's size and never panics.
func scanPortable(b []byte) (n int, card uint64, err error) {
	if len(b) < 4 {
		return 0, 0, fmt.Errorf("%w: roaring bitmap truncated: %d bytes, need a 4-byte cookie", ErrCorrupt, len(b))
	}
	cookie := binary.LittleEndian.Uint32(b)
	pos := 4
	var size int
	var runBits []byte
	switch {
	case cookie&0xFFFF == cookieRun:
		size = int(cookie>>16) + 1
		nb := (size + 7) / 8
		if len(b)-pos < nb {
			return 0, 0, fmt.Errorf("%w: roaring bitmap truncated in the run-container bitset", ErrCorrupt)
		}
		runBits = b[pos : pos+nb]
		pos += nb
	case cookie == cookieNoRun:
		if len(b)-pos < 4 {
			return 0, 0, fmt.Errorf("%w: roaring bitmap truncated in the container count", ErrCorrupt)
		}
		c := binary.LittleEndian.Uint32(b[pos:])
		pos += 4
		if c > 1<<16 {
			return 0, 0, fmt.Errorf("%w: roaring bitmap claims %d containers (at most 65536)", ErrCorrupt, c)
		}
		size = int(c)
	default:
		return 0, 0, fmt.Errorf("%w: bad roaring cookie %#08x", ErrCorrupt, cookie)
	}
	if len(b)-pos < 4*size {
		return 0, 0, fmt.Errorf("%w: roaring bitmap truncated in the key/cardinality header (%d containers)", ErrCorrupt, size)
	}
	header := b[pos : pos+4*size]
	pos += 4 * size
	var offsets []byte
	if runBits == nil || size >= noOffsetThreshold {
		if len(b)-pos < 4*size {
			return 0, 0, fmt.Errorf("%w: roaring bitmap truncated in the container offsets (%d containers)", ErrCorrupt, size)
		}
		offsets = b[pos : pos+4*size]
		pos += 4 * size
	}
	prevKey := -1
	for i := 0; i < size; i++ {
		key := int(binary.LittleEndian.Uint16(header[4*i:]))
		cc := int(binary.LittleEndian.Uint16(header[4*i+2:])) + 1
		if key <= prevKey {
			return 0, 0, fmt.Errorf("%w: roaring container keys not ascending: %d after %d", ErrCorrupt, key, prevKey)
		}
		prevKey = key
		if offsets != nil {
			if off := binary.LittleEndian.Uint32(offsets[4*i:]); off != uint32(pos) {
				return 0, 0, fmt.Errorf("%w: roaring container %d offset is %d, expected %d", ErrCorrupt, i, off, pos)
			}
		}
		isRun := runBits != nil && runBits[i/8]&(1<<(i%8)) != 0
		switch {
		case isRun:
			if len(b)-pos < 2 {
				return 0, 0, fmt.Errorf("%w: roaring run container %d truncated", ErrCorrupt, i)
			}
			nr := int(binary.LittleEndian.Uint16(b[pos:]))
			pos += 2
			if nr == 0 {
				return 0, 0, fmt.Errorf("%w: roaring run container %d has no runs", ErrCorrupt, i)
			}
			if len(b)-pos < 4*nr {
				return 0, 0, fmt.Errorf("%w: roaring run container %d truncated (%d runs)", ErrCorrupt, i, nr)
			}
			sum := 0
			next := 0 // smallest start allowed for the next run
			for r := 0; r < nr; r++ {
				start := int(binary.LittleEndian.Uint16(b[pos+4*r:]))
				length := int(binary.LittleEndian.Uint16(b[pos+4*r+2:])) + 1
				if start < next {
					return 0, 0, fmt.Errorf("%w: roaring run container %d has overlapping or unsorted runs", ErrCorrupt, i)
				}
				if start+length > 1<<16 {
					return 0, 0, fmt.Errorf("%w: roaring run container %d has a run past 65535", ErrCorrupt, i)
				}
				next = start + length
				sum += length
			}
			pos += 4 * nr
			if sum != cc {
				return 0, 0, fmt.Errorf("%w: roaring run container %d holds %d values, header says %d", ErrCorrupt, i, sum, cc)
			}
		case cc > maxArrayCard:
			if len(b)-pos < bitsetBytes {
				return 0, 0, fmt.Errorf("%w: roaring bitset container %d truncated", ErrCorrupt, i)
			}
			pc := 0
			for w := pos; w < pos+bitsetBytes; w += 8 {
				pc += bits.OnesCount64(binary.LittleEndian.Uint64(b[w:]))
			}
			pos += bitsetBytes
			if pc != cc {
				return 0, 0, fmt.Errorf("%w: roaring bitset container %d holds %d values, header says %d", ErrCorrupt, i, pc, cc)
			}
		default:
			if len(b)-pos < 2*cc {
				return 0, 0, fmt.Errorf("%w: roaring array container %d truncated (%d values)", ErrCorrupt, i, cc)
			}
			prev := -1
			for v := 0; v < cc; v++ {
				x := int(binary.LittleEndian.Uint16(b[pos+2*v:]))
				if x <= prev {
					return 0, 0, fmt.Errorf("%w: roaring array container %d values not ascending", ErrCorrupt, i)
				}
				prev = x
			}
			pos += 2 * cc
		}
		card += uint64(cc)
	}
	return pos, card, nil
}

// decodePortable decodes exactly b, which must hold one portable 32-bit
// roaring bitmap and nothing else, into a new bitmap.
func decodePortable(b []byte) (*roaring.Bitmap, uint64, error) {
	n, card, err := scanPortable(b)
	if err != nil {
		return nil, 0, err
	}
	if n != len(b) {
		return nil, 0, fmt.Errorf("%w: %d trailing bytes after the roaring bitmap", ErrCorrupt, len(b)-n)
	}
	bm := roaring.New()
	if err := guard(func() error {
		_, err := bm.ReadFrom(bytes.NewReader(b))
		return err
	}); err != nil {
		return nil, 0, err
	}
	if got := bm.GetCardinality(); got != card {
		return nil, 0, fmt.Errorf("%w: roaring bitmap decoded to %d values, expected %d", ErrCorrupt, got, card)
	}
	return bm, card, nil
}

// guard runs a roaring decoder, turning an error or a panic into an error
// wrapping ErrCorrupt. Input is validated before, so this is a second line of
// defence only.
func guard(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: roaring decoder failed: %v", ErrCorrupt, r)
		}
	}()
	if err := fn(); err != nil {
		return fmt.Errorf("%w: roaring decoder: %v", ErrCorrupt, err)
	}
	return nil
}
