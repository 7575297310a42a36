// Package storage is lakesql's file I/O: a small interface over
// gocloud.dev/blob with backends for local folders (file://, the default; a bare
// path means a local folder), memory (mem://) and S3 (s3://).
//
// Open picks a backend by URL scheme from a registry (like iceberg-go's
// io/registry); Register adds schemes.
//
//   - file:///abs/dir, file://./rel, or a bare path: a local folder on the OS
//     filesystem, created if missing. Implemented directly on package os
//     (not fileblob): range reads use pread through *os.File, writes go to a
//     hidden temp file ".<name>.<random>.tmp" in the target's folder that is
//     renamed into place on Close, and List skips such temp files. Files
//     are fsynced before they are published; file://dir?fsync=false skips
//     that (several times faster, not crash-safe: for tests and scratch).
//   - mem://name[/prefix]: a gocloud memblob bucket, shared by every Open of
//     the same name in the process and never freed, so a test can reopen it.
//     mem:// alone makes a fresh bucket with a unique generated name.
//   - s3://bucket[/prefix][?params]: gocloud s3blob. Query parameters:
//     endpoint, region, use_path_style, disable_https, plus anything gocloud's
//     aws.V2ConfigFromURLParams accepts (profile, anonymous, …). Missing ones
//     come from AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL and AWS_REGION /
//     AWS_DEFAULT_REGION; credentials from the usual AWS chain. A custom
//     endpoint (MinIO and the like) defaults to path-style addressing and
//     region us-east-1. Opening sends no request.
//
// URL returns a location that Open accepts and that reaches the same objects
// (s3 keeps its query parameters).
//
// Errors name the path and wrap ErrNotExist, ErrExist, ErrInvalidPath or the
// backend's error, so errors.Is works across backends.
//
// Concurrency: every Storage is safe for concurrent use, and so is
// File.ReadAt. A writer from Create is for one goroutine.
//
// Invariants: CreateIfNotExists is atomic, also between OS processes on the
// local backend, because the Paimon commit protocol publishes a snapshot by
// creating snapshot/snapshot-N exactly once. The local backend writes the
// content to a temp file, fsyncs it and publishes it with link(2), which fails
// with EEXIST if the target exists (it needs a filesystem with hard links);
// the blob backends use WriterOptions.IfNotExist (S3: If-None-Match: *).
// Nothing written is visible before its writer's Close succeeds, and a
// canceled context at Close publishes nothing. A store whose conditional
// create overwrites (CheckConditionalCreate finds it) gets the guarantee
// only under a commit lock every writer shares: WithLock runs each
// CreateIfNotExists as lock, Exists, create, unlock (lock.go; the file:
// lock is flock(2), lock_file.go); ForCommits picks the store a writer
// commits through.
//
// The conformance suite every backend passes is in storagetest.
//
// Only this package imports gocloud.dev.
package storage
