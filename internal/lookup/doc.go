// Package lookup keeps lookup files: for an immutable data file of a
// primary-key table, its KeyValues in key order in small blocks on local
// disk, with an in-memory index of each block's first key, so that a point
// lookup reads one block of a file instead of decoding the whole file. It is
// the Go counterpart of Java Paimon's LookupFile with a sort-based lookup
// store (org.apache.paimon.mergetree.LookupFile, lookup.sort.*), built the
// first time a lookup reaches a file and kept while the disk budget allows
// (Java's lookup.cache-max-disk-size).
//
// A lookup file is a private cache, not a Paimon format: it is written to an
// unlinked temporary file (nothing is left on disk when the process ends,
// however it ends) and rebuilt from the data file whenever it is needed
// again after eviction.
//
// Layout of a lookup file: blocks of about Options.BlockBytes; a block is
// its records followed by one little-endian uint32 offset per record and the
// record count (uint32). A record is the RowKind byte, the sequence number
// (zig-zag varint), the row position in the data file (uvarint), the key's
// BinaryRow length (uvarint) and bytes, then the value's BinaryRow to the end
// of the record. Keys and values are in the read schema the file was built
// for (the cache key says which).
//
// Concurrency: a Cache is safe for concurrent use; a File returned by Get is
// safe for concurrent Finds and stays open until Release, even when the
// cache evicts it meanwhile. Builds of one file are done once (concurrent
// Gets wait for the same build).
//
// Invariants: a File answers exactly the records of the data file it was
// built from (one per key, as Paimon data files hold); a corrupt block
// returns an error wrapping ErrCorrupt, never a wrong record.
package lookup
