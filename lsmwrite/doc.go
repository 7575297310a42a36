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
// records also go to changelog files (a deduplicate table's -U/+U pair of
// one UPDATE shares a buffer, so its changelog holds both in order).
// Append tables write rows in arrival order.
//
// DataFileMeta: statistics come from the Parquet writer's footer statistics
// with Java's collectors applied (truncate(128) for key columns, per-column
// metadata.stats-mode, dense _VALUE_STATS_COLS). _CREATION_TIME is the UTC
// wall clock in epoch milliseconds: Java writes the JVM's local wall clock,
// which lakesql takes to be UTC.
//
// Not supported yet (CheckWritable names the option): postpone buckets,
// non-Parquet formats, cross-partition upsert, thin mode, external data
// paths; deletion vectors on first-row tables are refused, as Java
// refuses them.
//
// # Tables that need lookup (merge-on-write, first-row)
//
// LookupStrategy (lookup_levels.go) is Java's: deletion vectors, first-row,
// changelog-producer=lookup and force-lookup need lookup. Their picker
// forces level 0 up (ForceUpLevel0Compaction) and their rewriter is
// lookupRewriter (compact_lookup.go, Java LookupMergeTreeCompactRewriter):
// a rewrite of sections holding level-0 files merges each key through
// LookupChangelogMergeFunctionWrapper or FirstRowMergeFunctionWrapper,
// which look keys without a deeper version in the sections up in the
// levels below the output (LookupLevels: each data file's lookup file,
// internal/lookup, with row positions; the current deletion vector
// applied) and mark the version found
// in the bucket's deletion vectors (bucketDvMaintainer, dv_maintainer.go,
// Java BucketedDvMaintainer: one index file per bucket, the old one
// DELETEd in the index manifest). A write to such a table commits its
// level-0 files and then compacts them up (compactLevel0 through Compact
// with CompactRequest.Level0, table_write_lookup.go) as a COMPACT snapshot
// of the same commit user, since readers skip level 0.
//
// Append tables with deletion vectors (append_dv.go) take deletes: Write
// of a retract records the row; Prepare finds one equal row per delete in
// the base snapshot's files and marks its position (bucketDvMaintainer for
// bucketed tables, appendDvMaintainer — Java AppendDeleteFileMaintainer,
// index files by name, rolling — for bucket-unaware ones). Compaction of
// append tables applies and drops the vectors of the files it rewrites.
//
// # Compaction
//
// Picking (compact_picker.go, levels.go) is pure: Levels groups a bucket's
// files into sorted runs (each level-0 file one run, newest first; one run
// per level >= 1) and PickCompaction applies Java's universal compaction
// (early full compaction, size amplification, size ratio, run count,
// force-up-level-0) to them; PickFullCompaction takes every run to the max
// level.
//
// The rewrite mirrors Java's MergeTreeCompactTask and
// MergeTreeCompactRewriter (compact_task.go, compact_rewriter.go): the
// unit's files are split into sections of overlapping key ranges
// (kv.IntervalPartition); a section of several runs is merged by key with
// the table's merge function wrapped in the reducer, retract records
// dropped only when DropDelete allows (the output is the bucket's highest
// level), and written by a rolling writer on the output level with file
// source COMPACT; a file that overlaps nothing and is at least the
// compaction file size (target-file-size * 0.7) is upgraded instead (the
// same file, DELETE of its old level and ADD on the new one), except on
// the max level when it holds retract records. Inputs are read with the
// table's latest schema through internal/sortedrun (schema evolution,
// external paths); outputs carry that schema id. CompactRewriter is the
// strategy point (compactContext.newRewriter, in Java's order): the
// full-compaction changelog rewriter (compact_changelog.go) writes the
// difference between the max level before and after a compaction onto it,
// the lookup rewriter (compact_lookup.go) maintains deletion vectors and
// writes the lookup changelog of level-0 keys; both go through
// rewriteOrProduceChangelog (Java ChangelogMergeTreeRewriter) and return
// their changelog files (changelog-*, committed in the snapshot's
// changelog manifest list) and index changes in CompactResult. Append tables only join small files
// (compact_append.go: Java's BucketedAppendCompactManager and
// AppendCompactCoordinator).
//
// Compact (compact.go) compacts a table at its latest snapshot, minor or
// full, for some partitions or buckets, and commits one COMPACT snapshot
// (DELETE entries for the inputs, ADD for the outputs). When a concurrent
// commit removed an input the committer reports a conflict: Compact then
// deletes its own files and reports the conflict in its outcome; it never
// fails anyone else's commit. CommitTransaction does not rewrite a
// transaction's files for COMPACT snapshots committed after its base.
//
// AutoCompactor (compact_auto.go) is a server's automatic compaction: after
// each commit the written buckets are queued for a bounded pool of
// background workers (one compaction per table at a time); it compacts
// synchronously for full-compaction.delta-commits (COW when 1),
// commit.force-compact and the write stall (more than
// num-sorted-run.stop-trigger sorted runs), and never for write-only
// tables. compactjob is the dedicated job (lakesql compact).
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
// Maintenance after commits (maintain.go): Maintainer.AfterCommit runs a
// table's expiration (snapshots, changelog, consumers, partitions through
// DropPartitions, an OVERWRITE snapshot) and automatic tags, as Java's
// TableCommitImpl.maintain does; the library calls are in package snapshot.
// A commit replacing a partition (INSERT OVERWRITE, rescale) is not held to
// the bucket count of the files it replaces.
//
// Concurrency: a TableWrite is not safe for concurrent use. Several
// TableWrites and compactions (in several processes) may write and commit
// to one table; the committer re-plans lost races. Compact is safe for
// concurrent use; an AutoCompactor is, and owns its workers until Close.
// Invariants: every file a TableWrite or a compaction creates is listed for
// deletion until the commit succeeds; nothing is visible to readers before
// the snapshot is published; a compaction preserves every record's
// sequence number.
package lsmwrite
