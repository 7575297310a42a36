package metrics

import (
	"net/url"
	"path"
	"strings"
)

// Kind says how a family is exposed.
type Kind uint8

// Metric kinds.
const (
	KindCounter Kind = iota
	KindGauge
	KindHistogram
)

// Metric describes one exposed family: Value is a *Counter, *Gauge,
// *Histogram, *CounterVec, *GaugeVec or *HistogramVec.
type Metric struct {
	Name  string
	Help  string
	Kind  Kind
	Value any
}

// Latency bounds in seconds (1 ms … 5 min).
var latencyBounds = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300}

// sortedRunBounds are the bucket bounds of the sorted-runs histogram
// (num-sorted-run.compaction-trigger is 5 and the stop trigger 8 by
// default).
var sortedRunBounds = []float64{1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 50}

// lakesql's metrics. Every layer updates these; All lists them for export.
var (
	// Queries counts statements by kind (select, insert, …; see
	// sqlengine's statement classification).
	Queries = NewCounterVec("kind")
	// QueryErrors counts failed statements by MySQL error code.
	QueryErrors = NewCounterVec("code")
	// QueryDuration is the statement latency by kind.
	QueryDuration = NewHistogramVec(latencyBounds, "kind")
	// ConnectionsOpen is the number of open client connections (MySQL
	// protocol and Flight SQL sessions served over it).
	ConnectionsOpen = new(Gauge)

	// Commits counts published snapshots by commit kind (APPEND, COMPACT,
	// OVERWRITE).
	Commits = NewCounterVec("kind")
	// CommitConflicts counts commits that failed with a conflict (a real
	// conflict, or lost races beyond commit.max-retries).
	CommitConflicts = new(Counter)
	// CommitRetries counts commit attempts repeated after a lost race for
	// the snapshot id.
	CommitRetries = new(Counter)
	// CommitLockWait is how long conditional creates waited for the
	// commit lock they took (storage.WithLock).
	CommitLockWait = NewHistogram(latencyBounds)
	// CommitLockFailures counts conditional creates that did not take the
	// commit lock (timeout, stopped wait, lock error): nothing written.
	CommitLockFailures = new(Counter)
	// TableSnapshots is the number of retained snapshots per table
	// ("db.table"), as of this process's last commit to it.
	TableSnapshots = NewGaugeVec("table")

	// CompactionsTotal, CompactionBytesIn/Out and CompactionDuration are
	// fed by ObserveCompaction.
	CompactionsTotal    = NewCounterVec("kind")
	CompactionBytesIn   = new(Counter)
	CompactionBytesOut  = new(Counter)
	CompactionDuration  = NewHistogram(latencyBounds)
	CompactionFailures  = new(Counter)
	SortedRunsPerBucket = NewHistogram(sortedRunBounds)
	// SortedRunsMax is the largest number of sorted runs of one bucket per
	// table, as of the table's last planned read.
	SortedRunsMax = NewGaugeVec("table")

	// WriteBufferBytes is the memory held by write buffers of open
	// transactions (rows not yet flushed to files).
	WriteBufferBytes = new(Gauge)

	// StorageReadBytes and StorageWrittenBytes count bytes moved by
	// storage backend (file, s3, mem).
	StorageReadBytes    = NewCounterVec("backend")
	StorageWrittenBytes = NewCounterVec("backend")

	// ManifestCacheHits and ManifestCacheMisses count lookups of decoded
	// manifests (lists, manifests, index manifests).
	ManifestCacheHits   = new(Counter)
	ManifestCacheMisses = new(Counter)

	// PointQueries counts point queries (SELECT by the whole primary key)
	// by how they were answered: "direct" (the point-query front) or
	// "planned" (through the planner: first of a shape, in a transaction,
	// or a shape the front does not answer).
	PointQueries = NewCounterVec("path")
)

// All lists the metrics for export, with their Prometheus names.
func All() []Metric {
	return []Metric{
		{"lakesql_queries_total", "Statements run, by kind.", KindCounter, Queries},
		{"lakesql_query_errors_total", "Statements that failed, by MySQL error code.", KindCounter, QueryErrors},
		{"lakesql_query_duration_seconds", "Statement latency, by kind.", KindHistogram, QueryDuration},
		{"lakesql_connections_open", "Open client connections.", KindGauge, ConnectionsOpen},
		{"lakesql_commits_total", "Snapshots committed, by commit kind.", KindCounter, Commits},
		{"lakesql_commit_conflicts_total", "Commits that failed with a conflict.", KindCounter, CommitConflicts},
		{"lakesql_commit_retries_total", "Commit attempts retried after losing the race for a snapshot id.", KindCounter, CommitRetries},
		{"lakesql_commit_lock_wait_seconds", "Time conditional creates waited for the commit lock they took.", KindHistogram, CommitLockWait},
		{"lakesql_commit_lock_failures_total", "Conditional creates that did not take the commit lock (nothing written).", KindCounter, CommitLockFailures},
		{"lakesql_table_snapshots", "Retained snapshots per table, as of this process's last commit to it.", KindGauge, TableSnapshots},
		{"lakesql_compactions_total", "Compactions committed, by kind.", KindCounter, CompactionsTotal},
		{"lakesql_compaction_failures_total", "Compactions that failed or were abandoned.", KindCounter, CompactionFailures},
		{"lakesql_compaction_bytes_read_total", "Bytes of data files compactions read.", KindCounter, CompactionBytesIn},
		{"lakesql_compaction_bytes_written_total", "Bytes of data files compactions wrote.", KindCounter, CompactionBytesOut},
		{"lakesql_compaction_duration_seconds", "Compaction duration.", KindHistogram, CompactionDuration},
		{"lakesql_sorted_runs_per_bucket", "Sorted runs of the buckets of planned merge reads.", KindHistogram, SortedRunsPerBucket},
		{"lakesql_sorted_runs_max", "Most sorted runs in one bucket, per table, at its last planned read.", KindGauge, SortedRunsMax},
		{"lakesql_write_buffer_bytes", "Bytes held in write buffers of open transactions.", KindGauge, WriteBufferBytes},
		{"lakesql_storage_read_bytes_total", "Bytes read from storage, by backend.", KindCounter, StorageReadBytes},
		{"lakesql_storage_written_bytes_total", "Bytes written to storage, by backend.", KindCounter, StorageWrittenBytes},
		{"lakesql_manifest_cache_hits_total", "Manifest reads served from the decoded-manifest cache.", KindCounter, ManifestCacheHits},
		{"lakesql_manifest_cache_misses_total", "Manifest reads that decoded the file.", KindCounter, ManifestCacheMisses},
		{"lakesql_point_queries_total", "Point queries (SELECT by the whole primary key), answered directly or planned.", KindCounter, PointQueries},
	}
}

// TableLabel is the "db.table" label of a table rooted at location (a
// warehouse's <db>.db/<table> folder as a URL or path); the last path
// element when the layout is not Paimon's catalog layout.
func TableLabel(location string) string {
	p := location
	if u, err := url.Parse(location); err == nil && u.Scheme != "" {
		p = u.Path
		if p == "" || p == "/" {
			p = u.Host
		}
	}
	p = strings.TrimRight(p, "/")
	table := path.Base(p)
	if db, ok := strings.CutSuffix(path.Base(path.Dir(p)), ".db"); ok && db != "" {
		return db + "." + table
	}
	return table
}
