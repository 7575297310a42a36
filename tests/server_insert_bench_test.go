package tests

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// BenchmarkServerInsertValues: 1,000-row INSERT … VALUES statements in
// autocommit (the bench's orders shape) through the protocol, the direct
// path and GMS's path alternating statement by statement in one process;
// reports the process CPU per row of each (server and client; the tables
// are write-only, so no compaction runs in the background).
func BenchmarkServerInsertValues(b *testing.B) {
	addr := startWarehouseServer(b, b.TempDir())
	mustExec(b, openWarehouseDB(b, addr, "", ""), "CREATE DATABASE ib")
	db := openWarehouseDB(b, addr, "ib", "")
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	const per = 1000
	for _, tb := range []string{"d1", "d0"} {
		mustExec(b, conn, "CREATE TABLE "+tb+" (order_id BIGINT, user_id BIGINT, status STRING, amount DECIMAL(12,2), "+
			"updated_at TIMESTAMP(3), dt STRING, PRIMARY KEY (order_id, dt) NOT ENFORCED) PARTITIONED BY (dt) WITH ('bucket' = '4', 'write-only' = 'true')")
	}
	stmt := func(table string, from int) string {
		var sb strings.Builder
		sb.WriteString("INSERT INTO " + table + " VALUES ")
		for i := from; i < from+per; i++ {
			if i > from {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, "(%d,%d,'%s',%d.%02d,'2024-05-%02d %02d:%02d:%02d.%03d','2024-05-%02d')", i, i%10007, []string{"new", "paid", "shipped"}[i%3],
				i%100000, i%100, 1+i%28, i%24, i%60, i%60, i%1000, 1+i%7)
		}
		return sb.String()
	}
	var cpu [2]time.Duration
	next := 0
	for b.Loop() {
		for k, direct := range []int{1, 0} {
			q := stmt(fmt.Sprintf("d%d", direct), next)
			mustExec(b, conn, fmt.Sprintf("SET lakesql_insert_direct = %d", direct))
			start := processCPU(b)
			mustExec(b, conn, q)
			cpu[k] += processCPU(b) - start
		}
		next += per
	}
	b.ReportMetric(float64(cpu[0].Nanoseconds())/float64(next), "direct-cpu-ns/row")
	b.ReportMetric(float64(cpu[1].Nanoseconds())/float64(next), "gms-cpu-ns/row")
}
