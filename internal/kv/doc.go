// Package kv holds the key-value record model of primary-key tables (RowKind,
// SequenceNumber, KeyValue), the sort-merge of sorted runs ordered by key then
// sequence, and one MergeFunction per merge engine (deduplicate,
// partial-update, aggregation, first-row). Reads (lsmread) and compaction
// (lsmwrite) both use it.
//
// Concurrency: merge readers are single-goroutine; merge functions are not
// safe for concurrent use (each reader owns its own).
package kv
