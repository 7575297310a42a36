// Package lsmwrite writes Paimon tables: sorted write buffers, flushes to
// level-0 files and the commit changes handed to package snapshot's commit
// protocol (Java: TableWriteImpl, KeyValueFileStoreWrite/MergeTreeWriter,
// AppendFileStoreWrite, DynamicBucketIndexMaintainer). It never imports
// lsmread; it reuses internal/kv (merge functions), internal/datafile
// (Parquet writer) and internal/binaryrow (bucket hash, BinaryRow).
//
// A TableWrite covers one transaction on one table:
//
//	w, err := lsmwrite.NewTableWrite(ctx, st, schema, baseSnapshot, lsmwrite.Options{})
//	w.Write(ctx, kv.Insert, row) ...
//	snap, err := w.Commit(ctx) // or Prepare + snapshot.Committer, or Abort
//
// Buckets: bucket=N>0 hashes the bucket key with binaryrow.Bucketer;
// bucket=-1 is dynamic for primary-key tables (a HASH index file per
// (partition, bucket) of trimmed-key hashes: known keys keep their bucket,
// new keys go to the lowest bucket below dynamic-bucket.target-row-num, then
// to a new bucket) and bucket-unaware (bucket 0, _TOTAL_BUCKETS -1) for
// append tables. _TOTAL_BUCKETS is the bucket option, as Java writes it.
//
// Primary-key tables buffer records per (partition, bucket) with sequence
// numbers continuing the bucket's largest _MAX_SEQUENCE_NUMBER in the base
// snapshot. When the buffers together exceed write-buffer-size the largest is
// flushed (Java shares one memory pool between writers); a flush sorts by
// (key, sequence.field, sequence number), merges each key's records with the
// table's reducer-wrapped merge function and writes level-0 files in the
// KeyValue layout (_KEY_*, _SEQUENCE_NUMBER, _VALUE_KIND, all columns),
// rolling at target-file-size. With changelog-producer=input the raw sorted
// records also go to changelog files. Append tables write rows in arrival
// order.
//
// DataFileMeta: statistics come from the Parquet writer's footer statistics
// with Java's collectors applied (truncate(128) for key columns, per-column
// metadata.stats-mode, dense _VALUE_STATS_COLS). _CREATION_TIME is the UTC
// wall clock in epoch milliseconds: Java writes the JVM's local wall clock,
// which lakesql takes to be UTC.
//
// Not supported yet (CheckWritable names the option): compaction and
// everything that needs it (deletion vectors, first-row, lookup and
// full-compaction changelog producers, full-compaction.delta-commits,
// postpone buckets), non-Parquet formats, cross-partition upsert, thin mode,
// external data paths.
//
// Compaction picking (compact_picker.go, levels.go) is pure: Levels groups a
// bucket's files into sorted runs (each level-0 file one run, newest first;
// one run per level >= 1) and PickCompaction applies Java's universal
// compaction (early full compaction, size amplification, size ratio, run
// count, force-up-level-0) to them; PickFullCompaction takes every run to the
// max level. Rewriting and committing the picked units is not here yet.
//
// Transactions (tx_commit.go): CommitTransaction commits one transaction's
// buffered records (kv.PendingWrites) of one table in the committer's one
// retry loop (snapshot.Committer.CommitEach). Before every attempt, on the
// snapshot it builds on, it checks the transaction's conflict predicate
// (the keys it read since its read base: tx_conflict.go reads the key
// columns of the files later snapshots wrote, compactions skipped) and,
// when a commit that was not a compaction landed since the files were
// written, writes them again on the new base so their sequence numbers
// follow every committed record. Records of a key separated by a
// retraction go to separate level-0 files.
//
// Concurrency: a TableWrite is not safe for concurrent use. Several
// TableWrites (in several processes) may write and commit to one table; the
// committer re-plans lost races. Invariants: every file a TableWrite creates
// is listed for Abort until the commit succeeds; nothing is visible to
// readers before the snapshot is published.
package lsmwrite
