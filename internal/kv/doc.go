// Package kv holds the key-value record model of primary-key tables (RowKind,
// SequenceNumber, KeyValue), the sort-merge of sorted runs ordered by key then
// sequence, IntervalPartition, and one MergeFunction per merge engine
// (deduplicate, partial-update, aggregation, first-row) plus the lookup
// wrapper. Reads (lsmread) and compaction and flushes (lsmwrite) both use it.
//
// Typical read path for one section of a (partition, bucket) split, as Java's
// MergeFileSplitRead does:
//
//	f, err := kv.NewMergeFunctionFactory(options, fields, primaryKeys) // once per schema
//	keyCmp := kv.NewKeyComparator(trimmedKeyTypes)
//	for _, section := range kv.IntervalPartition(files, minKey, maxKey, keyCmp) {
//		runs := ...one RecordReader per sorted run (kv.NewConcatReader over its files)...
//		r := f.NewReader(runs, keyCmp) // SortMergeReader + reducer-wrapped merge function
//		...drop results whose kind is not IsAdd() for batch reads...
//	}
//
// Semantics follow Java Paimon 1.3.1 (classes cited on each type); the
// data-driven scripts in testdata/ pin them down.
//
// Invariants and ownership: records handed out by a RecordReader are
// immutable (their Key and Value slices and the values inside are never
// modified afterwards), so the merge keeps them without copying. A merged
// result may live in the merge function's reused buffer and is valid until
// the next call to Next; copy it to keep it longer.
//
// Concurrency: a MergeFunctionFactory is immutable and safe for concurrent
// use. Readers and merge functions are single-goroutine; each reader owns its
// own merge function.
package kv
