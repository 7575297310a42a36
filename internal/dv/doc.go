// Package dv implements Paimon deletion vectors and their index files, byte
// compatible with Java Paimon 1.x.
//
// A deletion vector (DV) marks the 0-based row positions of one data file
// that are deleted. Two formats exist, mirroring the Java classes:
//
//   - BitmapDeletionVector (org.apache.paimon.deletionvectors.BitmapDeletionVector):
//     a 32-bit RoaringBitmap; positions above 2^31-1 are rejected. Written when
//     deletion-vectors.bitmap64 = false (the default).
//   - Bitmap64DeletionVector (Bitmap64DeletionVector over OptimizedRoaringBitmap64):
//     64-bit positions, Iceberg-compatible serialization. Written when
//     deletion-vectors.bitmap64 = true.
//
// A DV index file (index type DELETION_VECTORS, DeletionVectorsIndexFile) is a
// version byte 1 followed by serialized DV blobs back to back. The index
// manifest records one Range per data file: the blob's offset and length and
// the DV cardinality. The meaning of the length differs by format: for the
// 32-bit format it is the stored size field (magic + bitmap), for the 64-bit
// format it is the whole blob including the length and CRC fields. Readers
// tell the formats apart by the magic number.
//
// Decoding never panics: every byte of a blob is validated (lengths, magic,
// CRC-32, roaring container headers, sorted keys and values, run bounds,
// cardinalities) before the roaring library sees it, and every decoding error
// wraps ErrCorrupt.
//
// Concurrency: a DeletionVector may be read (IsDeleted, NextDeleted,
// Iterator, Positions, Cardinality) by many goroutines at once, but Delete,
// Merge and AppendTo (which run-optimizes the bitmap in place, as Java's
// serializer does) need exclusive access. Package-level functions keep no
// state.
//
// Invariants: positions are non-negative; a BitmapDeletionVector never holds
// a position above MaxBitmapPosition and a Bitmap64DeletionVector never one
// above MaxBitmap64Position, so every DV this package builds can be written
// and read back by Java.
package dv
