package binaryrow

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"

	"github.com/lakesql/lakesql/internal/schema"
)

// unscaledAt brings d to the given scale (Java setScale(scale, HALF_UP)) and
// checks that it fits precision digits. It returns the unscaled value as an
// int64 when it fits one (b == nil), otherwise as a big.Int.
func unscaledAt(d schema.Decimal, precision, scale int) (u int64, b *big.Int, err error) {
	diff := scale - int(d.Scale)
	switch {
	case d.Big == nil && diff == 0:
		u = d.Compact
	case d.Big == nil && diff > 0 && diff <= 18:
		hi, lo := bits.Mul64(absU64(d.Compact), uint64(schema.Pow10[diff]))
		if hi == 0 && lo <= math.MaxInt64 {
			u = int64(lo)
			if d.Compact < 0 {
				u = -u
			}
		} else {
			b = new(big.Int).Mul(big.NewInt(d.Compact), schema.BigPow10(diff))
		}
	case d.Big == nil && diff < 0 && diff >= -18:
		p := schema.Pow10[-diff]
		q, r := d.Compact/p, d.Compact%p
		if absU64(r)*2 >= uint64(p) {
			if d.Compact < 0 {
				q--
			} else {
				q++
			}
		}
		u = q
	case d.Big != nil && diff == 0:
		if d.Big.IsInt64() {
			u = d.Big.Int64()
		} else {
			b = d.Big // read only; no copy needed
		}
	default:
		x := d.Big
		if x == nil {
			x = big.NewInt(d.Compact)
		}
		if diff >= 0 {
			b = new(big.Int).Mul(x, schema.BigPow10(diff))
		} else {
			p := schema.BigPow10(-diff)
			q, r := new(big.Int).QuoRem(x, p, new(big.Int))
			r.Abs(r).Lsh(r, 1)
			if r.Cmp(p) >= 0 {
				if x.Sign() < 0 {
					q.Sub(q, big.NewInt(1))
				} else {
					q.Add(q, big.NewInt(1))
				}
			}
			b = q
		}
		if b.IsInt64() {
			u, b = b.Int64(), nil
		}
	}
	if b == nil {
		if precision <= 18 && (u >= schema.Pow10[precision] || u <= -schema.Pow10[precision]) {
			return 0, nil, fmt.Errorf("%w: decimal does not fit DECIMAL(%d, %d)", ErrValue, precision, scale)
		}
		return u, nil, nil
	}
	if b.CmpAbs(schema.BigPow10(precision)) >= 0 {
		return 0, nil, fmt.Errorf("%w: decimal does not fit DECIMAL(%d, %d)", ErrValue, precision, scale)
	}
	return 0, b, nil
}

func absU64(v int64) uint64 {
	if v < 0 {
		return uint64(-v) // also right for MinInt64
	}
	return uint64(v)
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

// decimalFits reports whether d (already at the type's scale) has at most
// precision digits.
func decimalFits(d schema.Decimal, precision int) bool {
	if d.Big == nil {
		if precision > 18 {
			return true
		}
		return d.Compact < schema.Pow10[precision] && d.Compact > -schema.Pow10[precision]
	}
	return d.Big.CmpAbs(schema.BigPow10(precision)) < 0
}
