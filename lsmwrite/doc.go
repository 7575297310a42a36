// Package lsmwrite writes Paimon tables: sorted write buffers, flushes to
// level-0 files, compaction, deletion-vector maintenance and the commit
// messages handed to package snapshot's commit protocol. It never imports
// lsmread; compaction reuses internal/kv and internal/datafile.
package lsmwrite
