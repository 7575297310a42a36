// Package snapshot holds Paimon's table metadata above the manifests: the
// Snapshot JSON (snapshot/snapshot-N), tags (tag/tag-NAME), branches
// (branch/branch-NAME/), consumers (consumer/consumer-ID), the schema
// versions of a table or branch (schema/schema-N, decoded by
// internal/schema), and the managers that find them in a Storage rooted at
// the table directory. It mirrors Java's org.apache.paimon.Snapshot,
// tag.Tag, consumer.Consumer, utils.SnapshotManager, utils.TagManager,
// utils.FileSystemBranchManager, consumer.ConsumerManager and
// schema.SchemaManager. File names are built and parsed in layout.go.
//
// # Byte compatibility
//
// Java writes every metadata file with Jackson's default pretty printer.
// EncodeSnapshot, EncodeTag and EncodeConsumer reproduce those bytes
// exactly; a decoded Snapshot or Tag remembers its key order, explicit
// nulls and unknown fields, so re-encoding a file Java wrote gives the same
// bytes, and a file from a newer Paimon keeps its unknown fields.
//
// # Hints and time travel
//
// snapshot/EARLIEST and snapshot/LATEST are hints only. The latest id is the
// LATEST hint when snapshot-hint exists and snapshot-(hint+1) does not,
// else the largest id listed; the earliest is the EARLIEST hint when that
// snapshot exists, else the smallest listed. Missing or unreadable hints
// fall back to listing. EarlierOrEqualTime binary-searches the ids that
// exist, so gaps left by expiration are tolerated.
//
// # Commit contract
//
// Committer.Commit (commit*.go, Java's FileStoreCommitImpl) writes snapshot
// N of a branch; SchemaManager.Commit follows the same contract for
// schema-N. Committer.CommitEach is the one retry loop of every data
// commit: before each attempt it asks the writer's Prepare for the changes
// to commit on the latest snapshot (a transaction checks its read keys
// there and writes its files again when they no longer follow the latest
// records; lsmwrite.CommitTransaction). One attempt on the latest snapshot
// S (N = S+1, or 1):
//
//  1. Plan: an OVERWRITE adds DELETE entries for every live file and index
//     file of the overwritten partitions. An APPEND with DELETE entries or
//     deletion-vector index changes is committed as OVERWRITE.
//  2. Conflict check (every kind but APPEND), before anything is written:
//     the live files of the changed partitions in S merged with the
//     commit's entries must leave no DELETE unmatched (the file was
//     compacted or deleted by another writer), add no live file again,
//     keep _TOTAL_BUCKETS of a partition (except OVERWRITE) and, for
//     primary-key tables, keep the key ranges of each (partition, bucket,
//     level >= 1) disjoint. A conflict fails with ErrConflict and leaves
//     nothing behind.
//  3. Write: the base manifest list (S's base + delta manifests, small
//     manifests merged as ManifestFileMerger does; empty for N = 1), the
//     delta manifests (rolled at manifest.target-file-size) and their list,
//     the changelog manifests and list when there is a changelog, and a new
//     index manifest (a full listing, manifest.CombineIndexEntries) when
//     index files change, else S's index manifest name.
//  4. Publish: Storage.CreateIfNotExists(snapshot/snapshot-N). Readers see
//     either no file or the complete file; everything it references was
//     written before. On a store without conditional create the warehouse
//     is wrapped with a commit lock (storage.WithLock), which makes this
//     create atomic between the writers that share the lock; a lock not
//     taken (storage.ErrLock) wrote nothing and fails the commit without a
//     retry.
//  5. Of all writers racing for snapshot-N exactly one succeeds. Writers in
//     one process take turns instead (a per-table lock held from reading
//     the latest snapshot to publishing, commit_lock.go), so only writers
//     in different processes race. A loser
//     deletes the files of its attempt, sleeps (jittered exponential
//     backoff between commit.min-retry-wait and commit.max-retry-wait),
//     re-reads the latest snapshot and retries from step 1, up to
//     commit.max-retries times; then the error wraps ErrConflict. When the
//     publish fails otherwise (unknown outcome) the files stay and the
//     attempt is retried the same way. Before retrying, a snapshot with the
//     same (commitUser, commitIdentifier, commitKind) published since the
//     first attempt's base is returned as the result, since an earlier
//     attempt may have succeeded; commit users must therefore be unique per
//     concurrent writer.
//  6. After success LATEST is rewritten (and EARLIEST for snapshot 1), best
//     effort: a failure to write a hint never fails the commit, and readers
//     never trust hints blindly.
//
// Files of a failed attempt that no snapshot references are orphans,
// harmless to readers, removed by orphan-file cleaning. Snapshot fields:
// totalRecordCount = S's + rows added - rows deleted, deltaRecordCount =
// added - deleted, changelogRecordCount 0 without changelog, logOffsets
// { }, nextRowId and watermark inherited (watermark: max with the commit's),
// statistics inherited while the schema id is unchanged, schemaId the
// latest schema of the branch.
//
// Table is the long-lived handle on one branch of a table (storage and the
// four managers); Table.Scan is the one live-files scan: it reads the
// manifests of a snapshot's lists with a bounded fan-out (errgroup,
// SetLimit) through the process-wide cache of decoded manifests
// (CachedManifestList, CachedManifest, CachedIndexManifest; manifests are
// immutable, so the cache never goes stale; cached entries are shared and
// must not be modified), then filters and merges them in manifest order.
// lsmread's planning, LiveEntries and inspect use it. LiveEntries merges a
// snapshot's base and delta manifests into its live data files; writers use
// it for sequence numbers, conflict checks and the DELETE entries of
// updates.
//
// # Catalog
//
// Catalog (catalog.go, Java's FileSystemCatalog) is the warehouse layout,
// WAREHOUSE/<db>.db/<table>/: listing and case-insensitive resolution of
// databases and tables (cached: a listed name is trusted for a second, a
// missing one lists again), CREATE/DROP DATABASE, CREATE TABLE (schema-0
// through internal/schema's NewTableSchema), DROP TABLE and ALTER TABLE
// (schema-(N+1) through schema.ApplySchemaChanges, re-applied when another
// writer commits schema-(N+1) first). Its errors are *schema.ChangeError
// values naming the database, table or column; the GMS boundary maps them.
//
// # Maintenance
//
// Table.ExpireSnapshots and ExpireChangelogs (Java ExpireSnapshotsImpl,
// ExpireChangelogImpl), CreateTag/RenameTag/DeleteTag, CreateBranch/
// DeleteBranch/FastForward (FileSystemBranchManager), RollbackToSnapshot/
// RollbackToTag (RollbackHelper), RemoveOrphanFiles (LocalOrphanFilesClean),
// TagAutoCreation and ExpireTags (TagAutoCreation, TagTimeExpire),
// ExpiredPartitions (PartitionExpire's selection) and
// ConsumerManager.Expire. Invariant: a data or metadata file is deleted only
// when no retained snapshot, tag, long-lived changelog or other branch
// references it (a file's live range over the snapshots of one branch is
// contiguous, so only the neighbouring tags and the end snapshot need to be
// read; other branches are read whole). Deletes are quiet and every step
// tolerates files that are already gone, so an interrupted or concurrent
// run is harmless; within a process maintenance of a branch is serialized.
// Rollback, branch deletion and fast-forward leave unreferenced files for
// RemoveOrphanFiles, as Java does.
//
// # Concurrency
//
// Every manager, and Committer, is safe for concurrent use; any number of
// Committers in any number of processes may commit to one table at once. Managers hold no state besides
// their location, except SchemaManager, which caches decoded schemas (schema
// files never change once written). Decoded values are owned by the caller,
// except schemas returned by SchemaManager, which are shared and must not be
// modified.
package snapshot
