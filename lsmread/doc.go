// Package lsmread plans and executes reads of Paimon tables: snapshot →
// manifests → live files → DataSplits, partition and statistics pruning,
// schema evolution by field id, merge-on-read of sorted runs, and
// deletion-vector filtering.
//
// Layers: a Table wraps the long-lived snapshot.Table handle (storage,
// managers, the live-files scan over the process-wide manifest cache);
// Table.Plan resolves the snapshot and schema once and lists the splits;
// Plan.NewReader prepares one sortedrun.Reader (the sorted-run reader shared
// with lsmwrite's compaction) and one DV cache for the plan; Reader.Read
// returns rows, Reader.ReadBatches column batches (datafile.Batch).
//
// Read paths:
//   - ReadRaw splits (append tables, deletion-vector and first-row tables,
//     read-optimized scans, delta reads, and buckets of merging tables whose
//     files need no merge — one level above 0 without retract records, Java's
//     raw-convertible splits) are decoded from Parquet pages into
//     typed vectors (sortedrun.OpenBatches); deletion vectors and the filter
//     become the batch selection. Rows are produced from batches in one
//     conversion per batch (each column boxed at once).
//   - ReadMerge splits (primary-key buckets) are split into sections of
//     overlapping files (kv.IntervalPartition); each section's sorted runs
//     (sortedrun.OpenKeyValues, one file open per data file) are merged by
//     the table's merge function (kv.SortMergeReader); a section of one file
//     without retract records is read as it is (raw). ReadBatches returns a
//     raw section's batches and fills typed vectors with merged rows; the
//     parallel scan (ReadParallelBatches) makes rows from the batches of
//     what needs no merge and converts merged rows one by one.
//   - Reads with row kinds (ReadWithKinds, for $audit_log/$binlog) keep the
//     retractions a merge leaves (ScanSpec.KeepDelete, Java's
//     forceKeepDelete) and read the records of raw splits with their kinds.
//     An incremental read (ScanSpec.Incremental, Java's incremental-between)
//     plans ReadRecords splits over the delta manifests of the APPEND
//     snapshots or the changelog manifests of the snapshots of a range, read
//     as written, or ReadDiff splits that compare two snapshots' merged rows
//     (two tags); level 0 stays invisible for deletion-vector and first-row
//     tables (Java batchScanSkipLevel0).
//
// Serving SQL: ReadParallel reads a plan's splits with up to GOMAXPROCS
// workers (the parallel split executor); Plan.Aggregate computes a GROUP BY
// of COUNT/SUM/MIN/MAX over the splits' column batches on the same number
// of workers, each with its own partial groups, merged at the end (the GMS
// adapter only rewrites the plan, supplies the exact filter as a row test
// and converts the groups to rows); LookupKey is the point lookup of
// one primary key (pruned to the key's partition and files); ReadPending
// streams a table merged with a transaction's pending records
// (read-your-writes), its committed read pruned by the filter's conjuncts on
// key fields only; StatsEvolution maps files' value statistics onto a
// read schema for pruning and the $files system table.
//
// Concurrency:
//   - Table, Plan and Reader are immutable after construction and safe for
//     concurrent use; a server may keep a Table for the life of the process
//     (it holds no snapshot state) and run the splits of one plan on several
//     goroutines (each Read / ReadBatches call has its own iterator).
//   - A ParallelRows owns its workers: Close or the context ending stops
//     them and waits; the consumer is one goroutine. ReadPending copies what
//     it needs of the pending records when it starts, so the transaction may
//     keep writing; a StatsEvolution belongs to one goroutine.
//   - A RowIterator or BatchIterator belongs to one goroutine. Rows returned
//     by RowIterator.Next are fresh and may be kept; a batch's vectors are
//     valid until the next BatchIterator.Next call (strings and boxed values
//     in them may be kept).
//   - The manifest cache (package snapshot) and a Reader's DV cache are
//     shared and synchronized; both cache immutable files, so they are never
//     stale. Cached manifest entries are shared and must not be modified.
//
// Invariants:
//   - A plan reads one snapshot with one schema (the latest schema for the
//     latest snapshot, the snapshot's own schema for time travel, as Java
//     does); files written with older schemas are mapped by field id, and
//     fields added later read as NULL.
//   - Filters prune by statistics only where the statistics are of the read
//     type (never across a schema-evolution cast); rows are always filtered
//     again after the merge (SQL three-valued semantics: only True passes).
//   - Level-0 files are invisible to raw reads of primary-key tables, as in
//     Java; merge reads see every level.
//   - Each data file is opened once per read; each DV index file is read
//     once per plan.
package lsmread
