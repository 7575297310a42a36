// Package bench holds lakesql's benchmarks against peer engines. It is its
// own Go module so that the main module and its CI do not pull DuckDB
// (duckdb-go downloads prebuilt libraries for every platform and needs cgo).
//
// TestDuckDBPeer loads generated rows with LOAD DATA through an in-process
// lakesql server, runs the same queries through lakesql and through DuckDB
// reading the table's Parquet files, checks that they agree and prints the
// timings and ratios (no timing assertions):
//
//	cd bench && BENCH_ROWS=1000000 go test -run DuckDBPeer -v
package bench
