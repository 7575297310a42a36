package dv

import (
	"fmt"
	"iter"
	"math"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/RoaringBitmap/roaring/v2/roaring64"
)

// Format constants ([J] BitmapDeletionVector, Bitmap64DeletionVector,
// RoaringBitmap32, OptimizedRoaringBitmap64).
const (
	// MagicBitmap32 starts a 32-bit blob's data, written big-endian.
	MagicBitmap32 = 1581511376
	// MagicBitmap64 starts a 64-bit blob's data, written little-endian.
	MagicBitmap64 = 1681511377
	// MaxBitmapPosition is the largest position a BitmapDeletionVector holds
	// (RoaringBitmap32.MAX_VALUE).
	MaxBitmapPosition = math.MaxInt32
	// MaxBitmap64Position is the largest position a Bitmap64DeletionVector
	// holds (OptimizedRoaringBitmap64.MAX_VALUE): high 32 bits at most
	// 2^31-2, as Java allocates one bitmap per high key.
	MaxBitmap64Position = (math.MaxInt32-1)<<32 | 0x80000000
)

// DeletionVector records the deleted row positions of one data file. It
// mirrors Java's org.apache.paimon.deletionvectors.DeletionVector; the only
// implementations are *BitmapDeletionVector and *Bitmap64DeletionVector.
type DeletionVector interface {
	// IsDeleted reports whether the row at pos is deleted. Positions the
	// format cannot hold (negative, too large) are never deleted.
	IsDeleted(pos int64) bool
	// Delete marks the row at pos as deleted and reports whether it was not
	// deleted before (Java checkedDelete). A position the format cannot hold
	// gives an error wrapping ErrPositionOutOfRange.
	Delete(pos int64) (bool, error)
	// Cardinality is the number of deleted positions.
	Cardinality() int64
	// IsEmpty reports whether no position is deleted.
	IsEmpty() bool
	// Merge adds every position of other to this DV. Unlike Java, the two may
	// be of different formats; merging a 64-bit DV with positions above
	// MaxBitmapPosition into a 32-bit one fails with ErrPositionOutOfRange
	// and leaves this DV unchanged.
	Merge(other DeletionVector) error
	// NextDeleted returns the smallest deleted position >= from.
	NextDeleted(from int64) (int64, bool)
	// Iterator returns an iterator over the deleted positions in ascending
	// order, for skipping deleted rows batch by batch. It is invalidated by
	// Delete, Merge and AppendTo.
	Iterator() *PositionIterator
	// Positions yields the deleted positions in ascending order.
	Positions() iter.Seq[int64]
	// Bitmap64 reports whether this is the 64-bit format.
	Bitmap64() bool
	// AppendTo appends the serialized blob (length field, magic, bitmap, CRC)
	// to dst, exactly as Java's serializeTo writes it, and returns the
	// length the index manifest records for it (Range.Length). Like Java it
	// run-optimizes the bitmap in place first.
	AppendTo(dst []byte) ([]byte, int32, error)
	// Clone returns an independent copy.
	Clone() DeletionVector
	// String shows the format and the first positions, for debugging.
	String() string

	sealed()
}

// New returns an empty DV of the format selected by
// deletion-vectors.bitmap64.
func New(bitmap64 bool) DeletionVector {
	if bitmap64 {
		return NewBitmap64DeletionVector()
	}
	return NewBitmapDeletionVector()
}

// Convert returns dv in the requested format: dv itself when it already has
// that format, otherwise a converted copy (Java
// Bitmap64DeletionVector.fromBitmapDeletionVector for 32 → 64). Converting to
// 32 bits fails with ErrPositionOutOfRange when a position exceeds
// MaxBitmapPosition.
func Convert(dv DeletionVector, bitmap64 bool) (DeletionVector, error) {
	if dv.Bitmap64() == bitmap64 {
		return dv, nil
	}
	out := New(bitmap64)
	if err := out.Merge(dv); err != nil {
		return nil, err
	}
	return out, nil
}

// Equal reports whether a and b delete the same positions (formats may
// differ).
func Equal(a, b DeletionVector) bool {
	if a.Cardinality() != b.Cardinality() {
		return false
	}
	ia, ib := a.Iterator(), b.Iterator()
	for {
		x, okA := ia.Next()
		y, okB := ib.Next()
		if okA != okB || x != y {
			return false
		}
		if !okA {
			return true
		}
	}
}

// PositionIterator walks deleted positions in ascending order. A reader
// skipping deleted rows of the batch [start, end) calls AdvanceTo(start) and
// then Peek/Next while the position is below end, or AppendUntil(buf, end).
type PositionIterator struct {
	it32 roaring.IntPeekable
	it64 roaring64.IntPeekable64
	done bool
}

// Peek returns the next position without consuming it.
func (it *PositionIterator) Peek() (int64, bool) {
	if it.done {
		return 0, false
	}
	if it.it32 != nil {
		if !it.it32.HasNext() {
			return 0, false
		}
		return int64(it.it32.PeekNext()), true
	}
	if it.it64 == nil || !it.it64.HasNext() {
		return 0, false
	}
	return int64(it.it64.PeekNext()), true
}

// Next consumes and returns the next position.
func (it *PositionIterator) Next() (int64, bool) {
	if it.done {
		return 0, false
	}
	if it.it32 != nil {
		if !it.it32.HasNext() {
			return 0, false
		}
		return int64(it.it32.Next()), true
	}
	if it.it64 == nil || !it.it64.HasNext() {
		return 0, false
	}
	return int64(it.it64.Next()), true
}

// AdvanceTo skips positions below pos. It never moves backwards.
func (it *PositionIterator) AdvanceTo(pos int64) {
	if pos <= 0 {
		return
	}
	if it.it32 != nil {
		if pos > math.MaxUint32 {
			it.done = true
			return
		}
		it.it32.AdvanceIfNeeded(uint32(pos))
		return
	}
	if it.it64 != nil {
		it.it64.AdvanceIfNeeded(uint64(pos))
	}
}

// AppendUntil consumes the positions below end and appends them to dst.
func (it *PositionIterator) AppendUntil(dst []int64, end int64) []int64 {
	for {
		p, ok := it.Peek()
		if !ok || p >= end {
			return dst
		}
		dst = append(dst, p)
		it.Next()
	}
}

// formatPositions renders name{p1,p2,...} with at most 16 positions.
func formatPositions(name string, dv DeletionVector) string {
	var sb strings.Builder
	sb.WriteString(name)
	sb.WriteByte('{')
	n := 0
	for p := range dv.Positions() {
		if n == 16 {
			fmt.Fprintf(&sb, ",...(%d total)", dv.Cardinality())
			break
		}
		if n > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, "%d", p)
		n++
	}
	sb.WriteByte('}')
	return sb.String()
}
