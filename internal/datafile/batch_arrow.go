package datafile

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Arrow returns entries [0, Len) of a typed vector as an Arrow array (the
// coming Flight SQL endpoint's type): fixed-width values are shared, not
// copied (the array is valid until v is reused), validity is packed into a
// bitmap, strings are copied into one data buffer with offsets. It returns
// nil for VectorAny vectors, which have no Arrow layout here yet.
func (v *Vector) Arrow() arrow.Array {
	n := v.Len
	var valid *memory.Buffer
	nulls := 0
	if v.Nulls != nil {
		bits := make([]byte, bitutil.BytesForBits(int64(n)))
		for i := range n {
			if v.Nulls[i] {
				nulls++
			} else {
				bitutil.SetBit(bits, i)
			}
		}
		if nulls > 0 {
			valid = memory.NewBufferBytes(bits)
		}
	}
	switch v.Kind() {
	case VectorInt64:
		return array.NewInt64Data(array.NewData(arrow.PrimitiveTypes.Int64, n,
			[]*memory.Buffer{valid, memory.NewBufferBytes(bytesOf(v.Int64[:n]))}, nil, nulls, 0))
	case VectorInt32:
		return array.NewInt32Data(array.NewData(arrow.PrimitiveTypes.Int32, n,
			[]*memory.Buffer{valid, memory.NewBufferBytes(bytesOf(v.Int32[:n]))}, nil, nulls, 0))
	case VectorFloat64:
		return array.NewFloat64Data(array.NewData(arrow.PrimitiveTypes.Float64, n,
			[]*memory.Buffer{valid, memory.NewBufferBytes(bytesOf(v.Float64[:n]))}, nil, nulls, 0))
	case VectorString:
		size := 0
		for _, s := range v.Str[:n] {
			size += len(s)
		}
		data := make([]byte, 0, size)
		offs := make([]int32, n+1)
		for i, s := range v.Str[:n] {
			data = append(data, s...)
			offs[i+1] = int32(len(data))
		}
		return array.NewStringData(array.NewData(arrow.BinaryTypes.String, n,
			[]*memory.Buffer{valid, memory.NewBufferBytes(bytesOf(offs)), memory.NewBufferBytes(data)}, nil, nulls, 0))
	}
	return nil
}

// bytesOf views a slice of fixed-width numbers as bytes (little-endian on
// every platform Go and Arrow share).
func bytesOf[T int32 | int64 | float64](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}
