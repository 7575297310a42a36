// Package binaryrow implements Paimon's BinaryRow serialization and the
// fixed-bucket hash.
//
// A BinaryRow (org.apache.paimon.data.BinaryRow, written by BinaryRowWriter
// and AbstractBinaryWriter) is the compact row form Paimon uses for partition
// values, primary keys (_MIN_KEY/_MAX_KEY), statistics rows and bucket keys.
// Partitions are compared and bucket ids computed over its bytes, so the
// encoder here produces the canonical, bit-exact bytes Java produces:
//
//	[ RowKind byte + null bits : W bytes ][ 8-byte slot × arity ][ var part ]
//	W = ((arity + 63 + 8) / 64) * 8
//
// Fixed-width values sit little-endian at the start of their slot; strings and
// binaries of at most 7 bytes are inlined in the slot; longer ones, DECIMAL with
// precision > 18, TIMESTAMP/TIMESTAMP_LTZ with precision > 3 and nested
// ARRAY/MAP/MULTISET/ROW values go to the var part in 8-byte aligned chunks
// (BinaryArray, BinaryMap and nested BinaryRow layouts as in Java). See
// paimon-format.md §5 for the byte-level description.
//
// The values are those of the value model in package schema (value.go).
// VARIANT and BLOB fields are not supported and are rejected with
// ErrUnsupported when a Codec is built.
//
// Concurrency: a Codec is immutable and safe for concurrent use. A Writer and a
// Bucketer reuse one buffer and must not be used by two goroutines at once;
// the bytes a Writer returns are valid until its next call.
//
// Invariants: Encode(Decode(b)) is a canonical row whose decoding equals
// Decode(b) (NaNs inside arrays are canonicalized as Java's BinaryArrayWriter
// does); decoders never panic on any input and wrap ErrCorrupt.
package binaryrow
