package binaryrow

import (
	"fmt"
	"math/big"
	"math/bits"

	"github.com/lakesql/lakesql/internal/schema"
)

// unscaledAt brings d to DECIMAL(precision, scale) with the one rescale
// (schema.Decimal.Rescale: Java setScale(scale, HALF_UP), then the
// precision check) and returns the unscaled value as an int64 when it fits
// one (b == nil), otherwise as a big.Int that the caller must not modify.
func unscaledAt(d schema.Decimal, precision, scale int) (u int64, b *big.Int, err error) {
	r, err := d.Rescale(precision, scale)
	if err != nil {
		return 0, nil, fmt.Errorf("%w: %w", ErrValue, err)
	}
	switch {
	case r.Big == nil:
		return r.Compact, nil, nil
	case r.Big.IsInt64():
		return r.Big.Int64(), nil, nil
	}
	return 0, r.Big, nil
}

// putInt64Bytes writes Java BigInteger.toByteArray() of v (big-endian two's
// complement, minimal length) at the start of dst and returns its length.
func putInt64Bytes(dst []byte, v int64) int {
	x := uint64(v)
	if v < 0 {
		x = ^x
	}
	n := bits.Len64(x)/8 + 1
	for i := 0; i < n; i++ {
		dst[n-1-i] = byte(v >> (8 * uint(i)))
	}
	return n
}

// putBigBytes is putInt64Bytes for a big.Int; tmp is scratch space. The caller
// guarantees that the result fits dst (|v| < 10^38 needs at most 16 bytes).
func putBigBytes(dst []byte, v *big.Int, tmp *big.Int) int {
	if v.Sign() >= 0 {
		n := v.BitLen()/8 + 1
		v.FillBytes(dst[:n])
		return n
	}
	tmp.Not(v) // -v-1 >= 0
	n := tmp.BitLen()/8 + 1
	tmp.FillBytes(dst[:n])
	for i := range dst[:n] {
		dst[i] = ^dst[i]
	}
	return n
}

// decimalFromBytes is Java new BigInteger(bytes) for 1..16 bytes, returned as
// a Decimal at scale (compact when it fits an int64).
func decimalFromBytes(b []byte, scale int) schema.Decimal {
	if len(b) <= 8 {
		v := int64(int8(b[0]))
		for _, c := range b[1:] {
			v = v<<8 | int64(c)
		}
		return schema.Decimal{Compact: v, Scale: int32(scale)}
	}
	var x big.Int
	if b[0]&0x80 == 0 {
		x.SetBytes(b)
	} else {
		var inv [16]byte
		for i, c := range b {
			inv[i] = ^c
		}
		x.SetBytes(inv[:len(b)])
		x.Not(&x)
	}
	if x.IsInt64() {
		return schema.Decimal{Compact: x.Int64(), Scale: int32(scale)}
	}
	return schema.Decimal{Big: &x, Scale: int32(scale)}
}
