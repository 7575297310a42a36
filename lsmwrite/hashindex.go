package lsmwrite

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// DecodeHashIndex decodes a dynamic-bucket HASH index file: a flat sequence
// of 4-byte big-endian key hashes (Java HashIndexFile, IntFileUtils). Errors
// wrap ErrCorrupt.
func DecodeHashIndex(data []byte) ([]int32, error) {
	if len(data)%4 != 0 {
		return nil, fmt.Errorf("%w: HASH index of %d bytes is not a sequence of 4-byte ints", ErrCorrupt, len(data))
	}
	out := make([]int32, len(data)/4)
	for i := range out {
		out[i] = int32(binary.BigEndian.Uint32(data[4*i:]))
	}
	return out, nil
}

// EncodeHashIndex encodes key hashes as a HASH index file.
func EncodeHashIndex(hashes []int32) []byte {
	out := make([]byte, 4*len(hashes))
	for i, h := range hashes {
		binary.BigEndian.PutUint32(out[4*i:], uint32(h))
	}
	return out
}

// partitionIndex is the dynamic-bucket assignment state of one partition
// (Java PartitionIndex with one assigner): key hash → bucket, the hashes of
// every bucket, and which buckets changed.
type partitionIndex struct {
	hash2bucket map[int32]int32
	hashes      map[int32][]int32 // bucket → hashes in file order, new ones appended
	changed     map[int32]bool
	targetRows  int64
	// nonFull is the ascending list of buckets that may take new keys.
	nonFull []int32
}

func newPartitionIndex(targetRows int64) *partitionIndex {
	return &partitionIndex{
		hash2bucket: map[int32]int32{},
		hashes:      map[int32][]int32{},
		changed:     map[int32]bool{},
		targetRows:  targetRows,
	}
}

// load adds the hashes of an existing index file of bucket b.
func (p *partitionIndex) load(b int32, hashes []int32) {
	for _, h := range hashes {
		if _, ok := p.hash2bucket[h]; !ok {
			p.hash2bucket[h] = b
		}
	}
	p.hashes[b] = append(p.hashes[b], hashes...)
}

// finishLoad computes the non-full buckets after every file was loaded.
func (p *partitionIndex) finishLoad() {
	p.nonFull = p.nonFull[:0]
	for b, hs := range p.hashes {
		if int64(len(hs)) < p.targetRows {
			p.nonFull = append(p.nonFull, b)
		}
	}
	slices.Sort(p.nonFull)
}

// assign returns the bucket of a key hash: the bucket it had, else the
// lowest bucket with fewer than targetRows keys, else a new bucket (the
// lowest unused number), as HashBucketAssigner/PartitionIndex.assign do.
func (p *partitionIndex) assign(h int32) int32 {
	if b, ok := p.hash2bucket[h]; ok {
		return b
	}
	for len(p.nonFull) > 0 {
		b := p.nonFull[0]
		if int64(len(p.hashes[b])) < p.targetRows {
			p.add(h, b)
			return b
		}
		p.nonFull = p.nonFull[1:]
	}
	var b int32
	for {
		if _, used := p.hashes[b]; !used {
			break
		}
		b++
	}
	p.add(h, b)
	if int64(len(p.hashes[b])) < p.targetRows {
		p.nonFull = append(p.nonFull, b)
		slices.Sort(p.nonFull)
	}
	return b
}

func (p *partitionIndex) add(h, b int32) {
	p.hash2bucket[h] = b
	p.hashes[b] = append(p.hashes[b], h)
	p.changed[b] = true
}
