// Package metrics is the one home of lakesql's instrumentation: cheap
// counters, gauges and histograms that every layer updates (storage bytes,
// manifest cache hits, commits, write buffers, sorted runs, compactions,
// queries), and the per-statement figures a slow-query log line reports.
//
// It is a leaf: it imports nothing of lakesql and no metrics library. The
// server registers these values with Prometheus at the top
// (sqlengine/observe reads them at scrape time through All), so the lower
// layers never import prometheus (tests/layering_test.go).
//
// Cost: an update is one or two atomic adds on a value the caller holds
// (Counter, Gauge, Histogram); a labelled child (CounterVec.With) is a
// sync.Map load, which callers on hot paths look up once and keep.
//
// Concurrency: every type is safe for concurrent use. Values only grow
// (counters), or are set (gauges); a scrape reads each value atomically but
// not the set of values as one snapshot.
package metrics
