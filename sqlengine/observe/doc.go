// Package observe is how an operator watches a lakesql server: the
// Prometheus endpoint over internal/metrics (/metrics), the liveness and
// readiness probes (/healthz, /readyz) on the same address, and the
// process's log/slog logger (text or JSON, a level).
//
// It is the only package that imports the Prometheus client
// (tests/layering_test.go): the lower layers update internal/metrics, and
// Collector turns those values into Prometheus samples at scrape time, so
// an update costs an atomic add and nothing else.
//
// Concurrency: Collector and the HTTP handlers are safe for concurrent
// use; NewLogger returns a logger the caller installs with slog.SetDefault
// once, at start-up.
package observe
