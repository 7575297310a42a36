package tests

import (
	"strings"
	"testing"
)

// TestServerCallCompact: CALL sys.compact through the MySQL protocol, in the
// forms Paimon's Spark and Flink procedures take, including the design
// document's `CALL paimon.sys.compact(table => 'orders', partitions =>
// "dt='2026-07-25'")`, and its errors.
func TestServerCallCompact(t *testing.T) {
	s := startMergeServer(t)
	s.exec(t, "CREATE TABLE orders (order_id BIGINT, status STRING, dt STRING, PRIMARY KEY (order_id, dt) NOT ENFORCED) "+
		"PARTITIONED BY (dt) WITH ('bucket' = '1', 'write-only' = 'true')")
	for _, q := range []string{
		"INSERT INTO orders VALUES (1, 'new', '2026-07-25'), (2, 'new', '2026-07-26')",
		"UPDATE orders SET status = 'paid' WHERE order_id = 1",
		"DELETE FROM orders WHERE order_id = 2",
		"INSERT INTO orders VALUES (3, 'new', '2026-07-26'), (4, 'new', '2026-07-27')",
	} {
		s.exec(t, q)
	}
	levels := func() string {
		var out []string
		for _, r := range s.rows(t, "SELECT `partition`, level FROM `orders$files` ORDER BY `partition`, level") {
			out = append(out, r)
		}
		return strings.Join(out, " ")
	}
	before := levels()

	// The design document's call: one partition, full compaction by default.
	cols, rows := s.call(t, `CALL paimon.sys.compact(table => 'orders', partitions => "dt='2026-07-25'")`)
	if strings.Join(cols, ",") != "result,snapshot_id,compacted_buckets,files_before,files_after,upgraded_files,bytes_read,bytes_written" ||
		len(rows) != 1 || rows[0][0] != "1" || rows[0][2] != "1" {
		t.Fatalf("compact one partition: %v %v", cols, rows)
	}
	if got := levels(); !strings.HasPrefix(got, "{2026-07-25}|5 {2026-07-26}|0") {
		t.Errorf("after compacting dt='2026-07-25': %s (before: %s)", got, before)
	}
	mergeSameRows(t, "rows", s.rows(t, "SELECT * FROM orders"), []string{"1|paid|2026-07-25", "3|new|2026-07-26", "4|new|2026-07-27"})

	// where, positional arguments and minor compaction.
	s.call(t, "CALL sys.compact('mw.orders', NULL, 'minor', NULL, NULL, \"dt > '2026-07-26'\")")
	s.call(t, "CALL sys.compact(`table` => 'orders', `where` => 'dt IN (''2026-07-26'', ''2026-07-27'') AND NOT dt IS NULL', compact_strategy => 'full')")
	if got := levels(); got != "{2026-07-25}|5 {2026-07-26}|5 {2026-07-27}|5" {
		t.Errorf("after compacting every partition: %s", got)
	}
	mergeSameRows(t, "rows after", s.rows(t, "SELECT * FROM orders"), []string{"1|paid|2026-07-25", "3|new|2026-07-26", "4|new|2026-07-27"})
	// Nothing left to do: result true, no snapshot.
	if _, rows := s.call(t, "CALL sys.compact('orders')"); rows[0][0] != "1" || rows[0][1] != "NULL" {
		t.Errorf("compact of a compacted table: %v", rows)
	}
	// Options override table options for the call.
	s.exec(t, "INSERT INTO orders VALUES (5, 'new', '2026-07-25')")
	s.call(t, "CALL sys.compact(table => 'orders', options => 'target-file-size=1 kb')")

	for _, c := range []struct {
		q    string
		code uint16
		want string
	}{
		{"CALL sys.compact('orders', compact_strategy => 'major')", 1231, "'full' or 'minor'"},
		{"CALL sys.compact('orders', partitions => 'dt=1', `where` => 'dt > 1')", 1231, "cannot be used together"},
		{"CALL sys.compact('orders', partitions => 'status=paid')", 1231, "not a partition column"},
		{"CALL sys.compact('orders', partitions => 'dt')", 1231, "key=value"},
		{"CALL sys.compact('orders', `where` => 'status = ''paid''')", 1231, "only partition predicates"},
		{"CALL sys.compact('orders', `where` => 'dt LIKE ''2026%''')", 1231, "unsupported operator"},
		{"CALL sys.compact('orders', `where` => 'dt >')", 1231, "not a predicate"},
		{"CALL sys.compact('orders', order_strategy => 'zorder', order_by => 'status')", 1235, "sort compaction"},
		{"CALL sys.compact('orders', partition_idle_time => '1 d')", 1235, "partition_idle_time"},
		{"CALL sys.compact('nope')", 1146, "nope"},
	} {
		s.fails(t, c.q, c.code, c.want)
	}
	mergeSameRows(t, "rows at the end", s.rows(t, "SELECT * FROM orders"),
		[]string{"1|paid|2026-07-25", "3|new|2026-07-26", "4|new|2026-07-27", "5|new|2026-07-25"})
}
