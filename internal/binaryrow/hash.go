package binaryrow

import (
	"encoding/binary"
	"math/bits"
)

// HashCode is BinaryRow.hashCode (MemorySegmentUtils.hashByWords →
// MurmurHashUtils.hashBytesByWords): MurmurHash3_x86_32 with seed 42 over the
// little-endian 4-byte words of the row, no tail, the byte length mixed into
// the final avalanche. Rows are always a multiple of 8 bytes long; trailing
// bytes beyond the last whole word (which Java would reject) are ignored.
func HashCode(row []byte) int32 {
	h1 := uint32(42)
	n := len(row) &^ 3
	for i := 0; i < n; i += 4 {
		k := binary.LittleEndian.Uint32(row[i:])
		k *= 0xcc9e2d51
		k = bits.RotateLeft32(k, 15)
		k *= 0x1b873593
		h1 ^= k
		h1 = bits.RotateLeft32(h1, 13)
		h1 = h1*5 + 0xe6546b64
	}
	h1 ^= uint32(len(row))
	h1 ^= h1 >> 16
	h1 *= 0x85ebca6b
	h1 ^= h1 >> 13
	h1 *= 0xc2b2ae35
	h1 ^= h1 >> 16
	return int32(h1)
}

// Bucket is DefaultBucketFunction: Java Math.abs(hash % numBuckets), i.e. the
// remainder truncated toward zero, then its absolute value (never negative,
// also for hash = -2^31). numBuckets must be positive.
func Bucket(hash int32, numBuckets int) int {
	r := int64(hash) % int64(numBuckets)
	if r < 0 {
		r = -r
	}
	return int(r)
}

// ModBucket is ModBucketFunction: Math.floorMod(key, numBuckets) for a single
// INT or BIGINT bucket key. numBuckets must be positive.
func ModBucket(key int64, numBuckets int) int {
	r := key % int64(numBuckets)
	if r < 0 {
		r += int64(numBuckets)
	}
	return int(r)
}
