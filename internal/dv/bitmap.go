package dv

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"iter"
	"math"

	"github.com/RoaringBitmap/roaring/v2"
)

// BitmapDeletionVector is the 32-bit deletion vector, mirroring Java's
// BitmapDeletionVector over RoaringBitmap32. Its zero value is an empty DV.
//
// Blob layout (§9.2): int32 BE size = 4 + len(bitmap); int32 BE magic
// MagicBitmap32; the portable roaring bitmap (run-optimized); int32 BE CRC-32
// over magic and bitmap. The index manifest length is size.
type BitmapDeletionVector struct {
	bm roaring.Bitmap
}

var _ DeletionVector = (*BitmapDeletionVector)(nil)

// NewBitmapDeletionVector returns an empty 32-bit DV.
func NewBitmapDeletionVector() *BitmapDeletionVector { return &BitmapDeletionVector{} }

func (*BitmapDeletionVector) sealed() {}

// Bitmap64 implements DeletionVector.
func (*BitmapDeletionVector) Bitmap64() bool { return false }

// IsDeleted implements DeletionVector.
func (d *BitmapDeletionVector) IsDeleted(pos int64) bool {
	if pos < 0 || pos > MaxBitmapPosition {
		return false
	}
	return d.bm.Contains(uint32(pos))
}

// Delete implements DeletionVector. Positions above MaxBitmapPosition are
// rejected, as Java's checkPosition does.
func (d *BitmapDeletionVector) Delete(pos int64) (bool, error) {
	if pos < 0 || pos > MaxBitmapPosition {
		return false, fmt.Errorf("%w: %d: a 32-bit deletion vector holds positions 0..%d (deletion-vectors.bitmap64 lifts the limit)",
			ErrPositionOutOfRange, pos, int64(MaxBitmapPosition))
	}
	return d.bm.CheckedAdd(uint32(pos)), nil
}

// Cardinality implements DeletionVector.
func (d *BitmapDeletionVector) Cardinality() int64 { return int64(d.bm.GetCardinality()) }

// IsEmpty implements DeletionVector.
func (d *BitmapDeletionVector) IsEmpty() bool { return d.bm.IsEmpty() }

// Merge implements DeletionVector.
func (d *BitmapDeletionVector) Merge(other DeletionVector) error {
	switch o := other.(type) {
	case *BitmapDeletionVector:
		if o != d {
			d.bm.Or(&o.bm)
		}
		return nil
	case *Bitmap64DeletionVector:
		if o.bm.IsEmpty() {
			return nil
		}
		if m := o.bm.Maximum(); m > MaxBitmapPosition {
			return fmt.Errorf("%w: merging position %d into a 32-bit deletion vector", ErrPositionOutOfRange, m)
		}
		it := o.bm.ManyIterator()
		var buf64 [256]uint64
		var buf32 [256]uint32
		for {
			n := it.NextMany(buf64[:])
			if n == 0 {
				return nil
			}
			for i := 0; i < n; i++ {
				buf32[i] = uint32(buf64[i])
			}
			d.bm.AddMany(buf32[:n])
		}
	default:
		return fmt.Errorf("dv: cannot merge %T", other)
	}
}

// NextDeleted implements DeletionVector.
func (d *BitmapDeletionVector) NextDeleted(from int64) (int64, bool) {
	if from < 0 {
		from = 0
	}
	if from > MaxBitmapPosition {
		return 0, false
	}
	it := d.bm.Iterator()
	it.AdvanceIfNeeded(uint32(from))
	if !it.HasNext() {
		return 0, false
	}
	return int64(it.Next()), true
}

// Iterator implements DeletionVector.
func (d *BitmapDeletionVector) Iterator() *PositionIterator {
	return &PositionIterator{it32: d.bm.Iterator()}
}

// Positions implements DeletionVector.
func (d *BitmapDeletionVector) Positions() iter.Seq[int64] {
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
func (d *BitmapDeletionVector) Clone() DeletionVector {
	c := &BitmapDeletionVector{}
	c.bm.Or(&d.bm)
	return c
}

// String implements DeletionVector.
func (d *BitmapDeletionVector) String() string { return formatPositions("BitmapDeletionVector", d) }

// AppendTo implements DeletionVector; the returned length is the stored
// size field (magic + bitmap), as Java's BitmapDeletionVector.serializeTo
// returns.
func (d *BitmapDeletionVector) AppendTo(dst []byte) ([]byte, int32, error) {
	d.bm.RunOptimize()
	bmLen := d.bm.GetSerializedSizeInBytes()
	if bmLen > math.MaxInt32-4-8 {
		return dst, 0, fmt.Errorf("%w: 32-bit bitmap of %d bytes", ErrTooLarge, bmLen)
	}
	size := 4 + int(bmLen)
	start := len(dst)
	dst = binary.BigEndian.AppendUint32(dst, uint32(size))
	dst = binary.BigEndian.AppendUint32(dst, MagicBitmap32)
	w := appendWriter{b: dst}
	if _, err := d.bm.WriteTo(&w); err != nil {
		return dst[:start], 0, fmt.Errorf("dv: serializing bitmap: %w", err)
	}
	dst = w.b
	if len(dst)-start != 4+size {
		return dst[:start], 0, fmt.Errorf("dv: roaring wrote %d bytes, announced %d", len(dst)-start-8, bmLen)
	}
	dst = binary.BigEndian.AppendUint32(dst, crc32.ChecksumIEEE(dst[start+4:]))
	return dst, int32(size), nil
}

// appendWriter is an io.Writer appending to a byte slice.
type appendWriter struct{ b []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// decodeBitmap32 decodes the bitmap part of a 32-bit blob (after the magic,
// before the CRC).
func decodeBitmap32(b []byte) (*BitmapDeletionVector, error) {
	bm, _, err := decodePortable(b)
	if err != nil {
		return nil, err
	}
	if !bm.IsEmpty() && bm.Maximum() > MaxBitmapPosition {
		// Java reads such a bitmap as negative ints; no writer produces it.
		return nil, fmt.Errorf("%w: 32-bit deletion vector holds position %d above %d", ErrCorrupt, bm.Maximum(), int64(MaxBitmapPosition))
	}
	d := &BitmapDeletionVector{}
	d.bm = *bm
	return d, nil
}
