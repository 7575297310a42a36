// Command bench measures lakesql against its peers in one run: DuckDB
// (duckdb-go, reading the Parquet files lakesql wrote, after a full
// compaction) and MariaDB (the distribution's mariadbd on a private port
// and data directory, InnoDB, the same rows through the MySQL protocol).
//
//	cd bench && go run . --scale 1M --json out.json [--only agg,lookup] [--rounds 3]
//
// It generates a seeded orders-style CDC workload (order_id BIGINT key,
// user_id, status, amount DECIMAL(12,2), updated_at, a dt partition;
// inserts, then 20% updates and 1% deletes in four batches), starts
// lakesql in a child process of its own binary (so the server's peak RSS is
// its own) and the peers, and runs every workload in interleaved rounds
// (lakesql, then each peer, round after round). It prints, per workload,
// the median of each engine and the ratio lakesql/peer (how many times
// slower lakesql is; min–median over the rounds), and writes every sample
// to the JSON file. Results are compared between engines: a mismatch is
// reported and makes the command exit 1 (CI runs it at the smallest scale
// as a smoke test). There are no timing thresholds: the numbers are for
// reading, on a machine whose load is printed with them.
//
// It is its own Go module so that the main module and its CI do not pull
// DuckDB (duckdb-go downloads prebuilt libraries and needs cgo).
package main
