package datafile

import (
	"fmt"

	"github.com/parquet-go/parquet-go"
)

// Dictionary encoding. parquet-mr (Java Paimon's writer) dictionary-encodes
// every column chunk and falls back to PLAIN when the dictionary outgrows
// parquet.dictionary.page.size or does not make the first page smaller. A
// dictionary pays where a column has few distinct values: a status or a
// date string becomes a few bits of RLE/bit-packed index per row instead
// of its PLAIN bytes (which zstd then has to decode match by match), and
// readers group by the index (Vector.Dict). For keys, amounts and
// timestamps it only costs: hashing every value, a dictionary page as large
// as the data, and parquet-go's fallback, which only comes once a whole
// page of indexes has been buffered.
//
// So the writer decides per file, from the first rows it is given (one
// pending batch, up to batchRows): a flat leaf of a dictionary-capable type
// whose values there have at most one distinct value in dictSampleRatio is
// written RLE_DICTIONARY (data page v1, with a PLAIN dictionary page, as
// parquet-mr 1.x readers expect), every other leaf PLAIN. Past
// dictionaryBytes of dictionary parquet-go falls back to PLAIN for the rest
// of the column chunk, as parquet-mr does. parquet-go only checks that when
// it closes a page, and sizes a dictionary-encoded page by its 4-byte
// indexes (262,144 values of 1 MiB pages, each of which may be a new
// dictionary entry), so the writer closes the page of a dictionary-encoded
// leaf itself once it has handed it pageBytes of values (flushDictPages):
// a column that turns out to have many values holds at most about
// dictionaryBytes + pageBytes of dictionary before it falls back.

// dictSampleRatio is the least number of values per distinct value in the
// sample for a leaf to be dictionary-encoded.
const dictSampleRatio = 8

// dictionaryCapable reports whether leaves of kind k may be
// dictionary-encoded: the integer, decimal (INT32/INT64), date/time and
// byte array leaves. Booleans, floating point (NaN has no one identity in
// a dictionary), FIXED_LEN_BYTE_ARRAY decimals and INT96 stay PLAIN.
func dictionaryCapable(k leafKind) bool {
	switch k {
	case leafInt8, leafInt16, leafInt32, leafInt64, leafDecimal32, leafDecimal64,
		leafString, leafBinary, leafDate, leafTime, leafTimestampMillis, leafTimestampMicros:
		return true
	}
	return false
}

// fewDistinct reports whether the non-NULL values of vals have at most one
// distinct value per dictSampleRatio values (and there is at least one).
func fewDistinct(vals []parquet.Value) bool {
	n := 0
	for i := range vals {
		if !vals[i].IsNull() {
			n++
		}
	}
	limit := n / dictSampleRatio
	if limit == 0 {
		return false
	}
	var ints map[uint64]struct{}
	var strs map[string]struct{}
	for i := range vals {
		v := &vals[i]
		switch v.Kind() {
		case parquet.Int32:
			if ints == nil {
				ints = make(map[uint64]struct{}, limit+1)
			}
			ints[uint64(uint32(v.Int32()))] = struct{}{}
		case parquet.Int64:
			if ints == nil {
				ints = make(map[uint64]struct{}, limit+1)
			}
			ints[uint64(v.Int64())] = struct{}{}
		case parquet.ByteArray:
			if strs == nil {
				strs = make(map[string]struct{}, limit+1)
			}
			b := v.ByteArray()
			if _, ok := strs[string(b)]; !ok {
				strs[string(b)] = struct{}{}
			}
		default:
			// NULLs; any other kind is not sampled.
			if !v.IsNull() {
				return false
			}
		}
		if len(ints)+len(strs) > limit {
			return false
		}
	}
	return true
}

// chooseEncodings sets the encoding of every flat leaf from its pending
// values (the file's first rows): RLE_DICTIONARY when they have few
// distinct values, PLAIN otherwise. It runs once, before the Parquet
// writer is built from the leaves' nodes.
func (w *ParquetWriter) chooseEncodings() {
	for _, n := range w.plan {
		if n.kind == 0 || !dictionaryCapable(n.kind) {
			continue
		}
		if fewDistinct(w.pending[n.leaf]) {
			w.fields[n.leaf].enc = &parquet.RLEDictionary
			w.dictLeaves = append(w.dictLeaves, dictLeaf{leaf: n.leaf})
		}
	}
}

// dictLeaf is a dictionary-encoded leaf and the bytes of values it was
// given since its page was last closed.
type dictLeaf struct {
	leaf int
	raw  int64
}

// valueBytes is the PLAIN size of vals.
func valueBytes(vals []parquet.Value) int64 {
	var n int64
	for i := range vals {
		v := &vals[i]
		switch v.Kind() {
		case parquet.ByteArray:
			n += 4 + int64(len(v.ByteArray()))
		case parquet.Int32:
			n += 4
		case parquet.Int64:
			n += 8
		}
	}
	return n
}

// countDictValues adds the values pending for the dictionary-encoded
// leaves to their counts (before flushPending hands them over).
func (w *ParquetWriter) countDictValues() {
	for i := range w.dictLeaves {
		d := &w.dictLeaves[i]
		d.raw += valueBytes(w.pending[d.leaf])
	}
}

// flushDictPages closes the page of every dictionary-encoded leaf that was
// given pageBytes of values since its last one, so that parquet-go checks
// its dictionary against dictionaryBytes.
func (w *ParquetWriter) flushDictPages() error {
	for i := range w.dictLeaves {
		d := &w.dictLeaves[i]
		if d.raw < pageBytes {
			continue
		}
		d.raw = 0
		if err := w.cw[d.leaf].Flush(); err != nil {
			return fmt.Errorf("datafile: writing column %s: %w", w.leaves[d.leaf].path, err)
		}
	}
	return nil
}
