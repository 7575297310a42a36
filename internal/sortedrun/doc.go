// Package sortedrun opens the data files of a Paimon table for one read
// schema: as sorted runs of KeyValues (merge-on-read in lsmread, compaction
// in lsmwrite), as rows, or as column batches (datafile.Batch). It is the
// only package besides internal/datafile that opens data files (the
// layering test enforces it), so schema evolution by field id (fields
// matched by id, added fields NULL, changed types cast with
// schema.CastValueIn in the session time zone), external paths
// (_EXTERNAL_PATH, Java's FILE:/ URLs) and deletion vectors are applied in
// one place.
//
// It sits below snapshot: it knows files by name, folder, schema id and
// level (File), not by manifest entries, and gets schemas through the
// Schemas interface (snapshot.SchemaManager implements it).
//
// Concurrency: a Reader is immutable and safe for concurrent use; every
// Open returns a reader owned by one goroutine. A DVCache is safe for
// concurrent use and reads each index file once (files are immutable, so it
// never goes stale).
//
// Invariants: each data file is opened exactly once per Open (row-group
// selection happens on the open reader); KeyValue records follow
// kv.RecordReader's ownership contract (each batch gets fresh slabs, so the
// merge may keep records); a row from RowReader.Next is valid until the
// next call; a batch from BatchReader.Next until the next call.
package sortedrun
