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
// # Commit contract (implemented with the write path)
//
// A commit of snapshot N (and a schema change to schema-N) obeys:
//
//   - Atomic visibility: the new snapshot file is published with
//     Storage.CreateIfNotExists(snapshot/snapshot-N). Readers see either no
//     file or the complete file; everything it references (manifest lists,
//     manifests, index and data files) is written before.
//   - One writer per id: of all writers racing for snapshot-N, exactly one
//     succeeds. A loser gets an error wrapping ErrConflict; it must re-read
//     the latest snapshot, re-plan its changes on the new base (conflict
//     check, new base manifest list) and retry with id N+1. Before retrying
//     it checks whether a snapshot with its (commitUser, commitIdentifier,
//     commitKind) already exists, since an earlier attempt may have
//     succeeded.
//   - LATEST is rewritten after a successful commit, best effort: a failure
//     to write it never fails the commit, and readers never trust it blindly.
//   - Files of a failed attempt that no snapshot references are orphans,
//     harmless to readers, removed by orphan-file cleaning.
//
// SchemaManager.Commit already follows this contract for schema-N.
//
// # Concurrency
//
// Every manager is safe for concurrent use. Managers hold no state besides
// their location, except SchemaManager, which caches decoded schemas (schema
// files never change once written). Decoded values are owned by the caller,
// except schemas returned by SchemaManager, which are shared and must not be
// modified.
package snapshot
