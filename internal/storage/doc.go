// Package storage is lakesql's file I/O: a small interface over
// gocloud.dev/blob with backends for local folders (file://, the default; a bare
// path means a local folder), memory (mem://) and S3 (s3://).
//
// Concurrency: every Storage is safe for concurrent use.
//
// Invariants: CreateIfNotExists is atomic, also between OS processes on the
// local backend, because the Paimon commit protocol publishes a snapshot by
// creating snapshot/snapshot-N exactly once.
//
// Only this package imports gocloud.dev.
package storage
