package dv

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"iter"
	"math"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
)

// Bitmap64DeletionVector is the 64-bit deletion vector, mirroring Java's
// Bitmap64DeletionVector over OptimizedRoaringBitmap64 (itself Iceberg's
// RoaringPositionBitmap). Its zero value is an empty DV.
//
// Blob layout (§9.3): int32 BE bitmapDataLength = 4 + len(bitmap64); int32
// LE magic MagicBitmap64; uint64 LE count of 32-bit bitmaps, then per bitmap
// uint32 LE key (the high 32 bits) and a portable run-optimized 32-bit
// roaring bitmap; int32 BE CRC-32 over magic and bitmap64. Like Java, the
// writer emits a dense array with keys 0..count-1 (empty bitmaps included);
// the reader also accepts gaps. The index manifest length is the whole blob,
// bitmapDataLength + 8.
type Bitmap64DeletionVector struct {
	bm roaring64.Bitmap
}

var _ DeletionVector = (*Bitmap64DeletionVector)(nil)

// NewBitmap64DeletionVector returns an empty 64-bit DV.
func NewBitmap64DeletionVector() *Bitmap64DeletionVector { return &Bitmap64DeletionVector{} }

func (*Bitmap64DeletionVector) sealed() {}

// Bitmap64 implements DeletionVector.
func (*Bitmap64DeletionVector) Bitmap64() bool { return true }

// IsDeleted implements DeletionVector.
func (d *Bitmap64DeletionVector) IsDeleted(pos int64) bool {
	if pos < 0 {
		return false
	}
	return d.bm.Contains(uint64(pos))
}

// Delete implements DeletionVector.
func (d *Bitmap64DeletionVector) Delete(pos int64) (bool, error) {
	if pos < 0 || pos > MaxBitmap64Position {
		return false, fmt.Errorf("%w: %d: a 64-bit deletion vector holds positions 0..%d",
			ErrPositionOutOfRange, pos, int64(MaxBitmap64Position))
	}
	return d.bm.CheckedAdd(uint64(pos)), nil
}

// Cardinality implements DeletionVector.
func (d *Bitmap64DeletionVector) Cardinality() int64 { return int64(d.bm.GetCardinality()) }

// IsEmpty implements DeletionVector.
func (d *Bitmap64DeletionVector) IsEmpty() bool { return d.bm.GetCardinality() == 0 }

// Merge implements DeletionVector.
func (d *Bitmap64DeletionVector) Merge(other DeletionVector) error {
	switch o := other.(type) {
	case *Bitmap64DeletionVector:
		if o != d {
			d.bm.Or(&o.bm)
		}
		return nil
	case *BitmapDeletionVector:
		if o.bm.IsEmpty() {
			return nil
		}
		d.bm.Or(roaring64.Roaring32AsRoaring64(o.bm.Clone()))
		return nil
	default:
		return fmt.Errorf("dv: cannot merge %T", other)
	}
}

// NextDeleted implements DeletionVector.
func (d *Bitmap64DeletionVector) NextDeleted(from int64) (int64, bool) {
	if from < 0 {
		from = 0
	}
	it := d.bm.Iterator()
	it.AdvanceIfNeeded(uint64(from))
	if !it.HasNext() {
		return 0, false
	}
	return int64(it.Next()), true
}

// Iterator implements DeletionVector.
func (d *Bitmap64DeletionVector) Iterator() *PositionIterator {
	return &PositionIterator{it64: d.bm.Iterator()}
}

// Positions implements DeletionVector.
func (d *Bitmap64DeletionVector) Positions() iter.Seq[int64] {
	return func(yield func(int64) bool) {
		it := d.bm.Iterator()
		for it.HasNext() {
			if !yield(int64(it.Next())) {
				return
			}
		}
	}
}

// Clone implements DeletionVector.
func (d *Bitmap64DeletionVector) Clone() DeletionVector {
	c := &Bitmap64DeletionVector{}
	c.bm.Or(&d.bm)
	return c
}

// String implements DeletionVector.
func (d *Bitmap64DeletionVector) String() string {
	return formatPositions("Bitmap64DeletionVector", d)
}

// AppendTo implements DeletionVector; the returned length covers the whole
// blob, as Java's Bitmap64DeletionVector.serializeTo returns.
func (d *Bitmap64DeletionVector) AppendTo(dst []byte) ([]byte, int32, error) {
	d.bm.RunOptimize()
	// roaring64 writes the sparse form: count, then (key, bitmap) for the
	// non-empty keys only. Java writes every key from 0 to the largest.
	var sparse appendWriter
	if _, err := d.bm.WriteTo(&sparse); err != nil {
		return dst, 0, fmt.Errorf("dv: serializing bitmap: %w", err)
	}
	s := sparse.b
	if len(s) < 8 {
		return dst, 0, fmt.Errorf("dv: roaring64 wrote %d bytes", len(s))
	}
	present := binary.LittleEndian.Uint64(s)
	var count uint64
	if !d.bm.IsEmpty() {
		count = d.bm.Maximum()>>32 + 1
	}
	if present > count {
		return dst, 0, fmt.Errorf("dv: roaring64 wrote %d buckets for %d keys", present, count)
	}
	bitmapLen := uint64(len(s)) + (count-present)*uint64(4+len(emptyPortable))
	// Java: LENGTH + MAGIC + bitmap + CRC must fit an int.
	if bitmapLen > math.MaxInt32-12 {
		return dst, 0, fmt.Errorf("%w: 64-bit bitmap of %d bytes", ErrTooLarge, bitmapLen)
	}
	dataLen := 4 + int(bitmapLen)
	start := len(dst)
	dst = binary.BigEndian.AppendUint32(dst, uint32(dataLen))
	dst = binary.LittleEndian.AppendUint32(dst, MagicBitmap64)
	dst = binary.LittleEndian.AppendUint64(dst, count)
	s = s[8:]
	next := uint32(0)
	for i := uint64(0); i < present; i++ {
		if len(s) < 4 {
			return dst[:start], 0, fmt.Errorf("dv: roaring64 output truncated")
		}
		key := binary.LittleEndian.Uint32(s)
		n, _, err := scanPortable(s[4:])
		if err != nil {
			return dst[:start], 0, fmt.Errorf("dv: roaring64 wrote an unreadable bitmap: %w", err)
		}
		for ; next < key; next++ {
			dst = binary.LittleEndian.AppendUint32(dst, next)
			dst = append(dst, emptyPortable...)
		}
		dst = append(dst, s[:4+n]...)
		s = s[4+n:]
		next = key + 1
	}
	for ; uint64(next) < count; next++ {
		dst = binary.LittleEndian.AppendUint32(dst, next)
		dst = append(dst, emptyPortable...)
	}
	if len(dst)-start != 4+dataLen {
		return dst[:start], 0, fmt.Errorf("dv: wrote %d bitmap bytes, announced %d", len(dst)-start-8, bitmapLen)
	}
	dst = binary.BigEndian.AppendUint32(dst, crc32.ChecksumIEEE(dst[start+4:]))
	return dst, int32(4 + dataLen + 4), nil
}

// decodeBitmap64 decodes the bitmap64 part of a 64-bit blob (after the
// magic, before the CRC): it validates every key and 32-bit bitmap, drops
// empty bitmaps and hands the sparse result to roaring64.
func decodeBitmap64(b []byte) (*Bitmap64DeletionVector, error) {
	if len(b) < 8 {
		return nil, fmt.Errorf("%w: 64-bit bitmap truncated: %d bytes, need an 8-byte count", ErrCorrupt, len(b))
	}
	count := binary.LittleEndian.Uint64(b)
	if count > math.MaxInt32 {
		return nil, fmt.Errorf("%w: 64-bit bitmap count %d exceeds %d", ErrCorrupt, count, math.MaxInt32)
	}
	// Each entry takes at least a key and an empty bitmap.
	if count > uint64(len(b)-8)/uint64(4+len(emptyPortable)) {
		return nil, fmt.Errorf("%w: 64-bit bitmap count %d does not fit %d bytes", ErrCorrupt, count, len(b))
	}
	rest := b[8:]
	var sparse []byte // nil while every bitmap so far is non-empty
	nonEmpty := uint64(0)
	total := uint64(0)
	lastKey := int64(-1)
	for i := uint64(0); i < count; i++ {
		if len(rest) < 4 {
			return nil, fmt.Errorf("%w: 64-bit bitmap truncated at key #%d", ErrCorrupt, i)
		}
		key := int64(int32(binary.LittleEndian.Uint32(rest)))
		if key < 0 || key > math.MaxInt32-1 {
			return nil, fmt.Errorf("%w: 64-bit bitmap key %d out of range 0..%d", ErrCorrupt, key, math.MaxInt32-1)
		}
		if key <= lastKey {
			return nil, fmt.Errorf("%w: 64-bit bitmap keys not ascending: %d after %d", ErrCorrupt, key, lastKey)
		}
		lastKey = key
		n, card, err := scanPortable(rest[4:])
		if err != nil {
			return nil, fmt.Errorf("bitmap for key %d: %w", key, err)
		}
		if card == 0 {
			if sparse == nil {
				sparse = make([]byte, 8, len(b))
				sparse = append(sparse, b[8:len(b)-len(rest)]...)
			}
		} else {
			nonEmpty++
			total += card
			if sparse != nil {
				sparse = append(sparse, rest[:4+n]...)
			}
		}
		rest = rest[4+n:]
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("%w: %d trailing bytes after the 64-bit bitmap", ErrCorrupt, len(rest))
	}
	if sparse == nil {
		sparse = b
	} else {
		binary.LittleEndian.PutUint64(sparse, nonEmpty)
	}
	d := &Bitmap64DeletionVector{}
	if err := guard(func() error {
		_, err := d.bm.ReadFrom(bytes.NewReader(sparse))
		return err
	}); err != nil {
		return nil, err
	}
	if got := d.bm.GetCardinality(); got != total {
		return nil, fmt.Errorf("%w: 64-bit bitmap decoded to %d values, expected %d", ErrCorrupt, got, total)
	}
	if total > 0 && d.bm.Maximum() > MaxBitmap64Position {
		return nil, fmt.Errorf("%w: 64-bit deletion vector holds position %d above %d", ErrCorrupt, d.bm.Maximum(), int64(MaxBitmap64Position))
	}
	return d, nil
}
