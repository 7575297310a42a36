// Package lsmread plans and executes reads of Paimon tables: snapshot →
// manifests → live files → DataSplits, partition and statistics pruning,
// schema evolution by field id, merge-on-read of sorted runs, and
// deletion-vector filtering.
package lsmread
