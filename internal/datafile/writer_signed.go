package datafile

import (
	"bytes"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// signedFixedType is the FIXED_LEN_BYTE_ARRAY type of DECIMAL(p > 18)
// columns. Parquet orders decimals as signed big-endian integers (parquet-mr's
// BINARY_AS_SIGNED_INTEGER_COMPARATOR), but parquet-go orders every
// FIXED_LEN_BYTE_ARRAY bytewise, which would put -1 (ff…) above 1 (00…01) in
// the column chunk statistics and the column index. This type makes page
// bounds, chunk statistics and the column index use the signed order.
type signedFixedType struct {
	annotatedType
}

func (t *signedFixedType) Compare(a, b parquet.Value) int {
	return compareSigned(a.ByteArray(), b.ByteArray())
}

func (t *signedFixedType) NewColumnBuffer(columnIndex, numValues int) parquet.ColumnBuffer {
	return &signedColumnBuffer{ColumnBuffer: t.annotatedType.NewColumnBuffer(columnIndex, numValues)}
}

func (t *signedFixedType) NewColumnIndexer(sizeLimit int) parquet.ColumnIndexer {
	return &signedColumnIndexer{}
}

// compareSigned orders two equally long big-endian two's complement
// integers.
func compareSigned(a, b []byte) int {
	if len(a) == 0 || len(b) == 0 {
		return bytes.Compare(a, b)
	}
	if sa, sb := a[0]&0x80 != 0, b[0]&0x80 != 0; sa != sb {
		if sa {
			return -1
		}
		return 1
	}
	return bytes.Compare(a, b)
}

type signedColumnBuffer struct {
	parquet.ColumnBuffer
}

func (c *signedColumnBuffer) Page() parquet.Page {
	return signedPage{Page: c.ColumnBuffer.Page()}
}

func (c *signedColumnBuffer) Clone() parquet.ColumnBuffer {
	return &signedColumnBuffer{ColumnBuffer: c.ColumnBuffer.Clone()}
}

type signedPage struct {
	parquet.Page
}

func (p signedPage) Slice(i, j int64) parquet.Page { return signedPage{Page: p.Page.Slice(i, j)} }

func (p signedPage) Bounds() (lo, hi parquet.Value, ok bool) {
	vals := p.Page.Data()
	data, size := vals.FixedLenByteArray()
	if size <= 0 || len(data) < size {
		return lo, hi, false
	}
	minB, maxB := data[:size], data[:size]
	for off := size; off+size <= len(data); off += size {
		v := data[off : off+size]
		if compareSigned(v, minB) < 0 {
			minB = v
		}
		if compareSigned(v, maxB) > 0 {
			maxB = v
		}
	}
	col := p.Page.Column()
	lo = parquet.FixedLenByteArrayValue(minB).Level(0, 0, col)
	hi = parquet.FixedLenByteArrayValue(maxB).Level(0, 0, col)
	return lo, hi, true
}

// signedColumnIndexer builds the column index of a signed FIXED_LEN_BYTE_ARRAY
// column: full (untruncated) page bounds and the boundary order in the
// signed order.
type signedColumnIndexer struct {
	nullPages  []bool
	nullCounts []int64
	mins, maxs [][]byte
}

func (i *signedColumnIndexer) Reset() {
	i.nullPages, i.nullCounts, i.mins, i.maxs = i.nullPages[:0], i.nullCounts[:0], i.mins[:0], i.maxs[:0]
}

func (i *signedColumnIndexer) IndexPage(numValues, numNulls int64, lo, hi parquet.Value) {
	null := numValues == numNulls || lo.IsNull() || hi.IsNull()
	i.nullPages = append(i.nullPages, null)
	i.nullCounts = append(i.nullCounts, numNulls)
	if null {
		i.mins = append(i.mins, []byte{})
		i.maxs = append(i.maxs, []byte{})
		return
	}
	i.mins = append(i.mins, bytes.Clone(lo.ByteArray()))
	i.maxs = append(i.maxs, bytes.Clone(hi.ByteArray()))
}

func (i *signedColumnIndexer) ColumnIndex() format.ColumnIndex {
	return format.ColumnIndex{
		NullPages:     append([]bool(nil), i.nullPages...),
		NullCounts:    append([]int64(nil), i.nullCounts...),
		MinValues:     append([][]byte(nil), i.mins...),
		MaxValues:     append([][]byte(nil), i.maxs...),
		BoundaryOrder: i.order(),
	}
}

// order is Ascending or Descending when both the page minimums and maximums
// (of the non-null pages) are, else Unordered.
func (i *signedColumnIndexer) order() format.BoundaryOrder {
	asc, desc := true, true
	prev := -1
	for k := range i.nullPages {
		if i.nullPages[k] {
			continue
		}
		if prev >= 0 {
			cmin := compareSigned(i.mins[prev], i.mins[k])
			cmax := compareSigned(i.maxs[prev], i.maxs[k])
			if cmin > 0 || cmax > 0 {
				asc = false
			}
			if cmin < 0 || cmax < 0 {
				desc = false
			}
		}
		prev = k
	}
	switch {
	case asc:
		return format.Ascending
	case desc:
		return format.Descending
	}
	return format.Unordered
}
