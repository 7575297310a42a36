package storage

import "github.com/lakesql/lakesql/internal/metrics"

// The byte counters of each backend (lakesql_storage_*_bytes_total), looked
// up once: a read or write adds to them with one atomic add.
var (
	localRead    = metrics.StorageReadBytes.With("file")
	localWritten = metrics.StorageWrittenBytes.With("file")
)

// backendCounters are the read and written counters of a gocloud bucket's
// scheme (s3, mem).
func backendCounters(scheme string) (read, written *metrics.Counter) {
	return metrics.StorageReadBytes.With(scheme), metrics.StorageWrittenBytes.With(scheme)
}
