package tests

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// BenchmarkServerPointQuery measures point queries (issue 15 item 2) on a
// table shaped like the bench's orders: primary key (order_id, dt),
// partitioned by dt (60 partitions), 4 buckets, 24,000 rows, compacted
// (LAKESQL_POINT_MOR=1: 12 level-0 files per bucket), warmed. Each
// iteration is one interpolated point query of a random key, from one
// connection or from 8 at once; allocations and CPU time are the
// process's (client and server), the latencies' p50 and p99 are reported.
// No timing is asserted; every answer's key is.
//
//	go test ./tests/ -run '^$' -bench ServerPointQuery -benchtime 20000x
func BenchmarkServerPointQuery(b *testing.B) {
	wh := b.TempDir()
	addr := startWarehouseServer(b, wh)
	mustExec(b, openWarehouseDB(b, addr, "", ""), "CREATE DATABASE pq")
	db := openWarehouseDB(b, addr, "pq", "")
	db.SetMaxIdleConns(16)
	mustExec(b, db, "CREATE TABLE orders (order_id BIGINT, user_id BIGINT, status STRING, amount DECIMAL(12, 2), dt STRING, "+
		"PRIMARY KEY (order_id, dt) NOT ENFORCED) PARTITIONED BY (dt) WITH ('bucket' = '4')")
	const n, parts = 24000, 60
	dt := func(id int) string { return fmt.Sprintf("2026-01-%02d", 1+id%parts/2) + []string{"a", "b"}[id%2] }
	for start := 0; start < n; start += 2000 {
		var vals []string
		for id := start; id < start+2000; id++ {
			vals = append(vals, fmt.Sprintf("(%d, %d, 'st%d', %d.%02d, '%s')", id, id%977, id%5, id, id%100, dt(id)))
		}
		mustExec(b, db, "INSERT INTO orders VALUES "+strings.Join(vals, ", "))
	}
	if os.Getenv("LAKESQL_POINT_MOR") == "" { // else 12 level-0 files per bucket
		mustExec(b, db, "CALL sys.compact(table => 'orders')")
	}
	// Warm: every bucket's lookup files built.
	for id := range 2000 {
		var got int
		if err := db.QueryRow(fmt.Sprintf("SELECT order_id FROM orders WHERE order_id = %d AND dt = '%s'", id, dt(id))).Scan(&got); err != nil {
			b.Fatal(err)
		}
	}
	for _, conns := range []int{1, 8} {
		b.Run(fmt.Sprintf("conns=%d", conns), func(b *testing.B) {
			ctx := context.Background()
			cs := make([]*sql.Conn, conns)
			for i := range cs {
				c, err := db.Conn(ctx)
				if err != nil {
					b.Fatal(err)
				}
				defer c.Close()
				cs[i] = c
			}
			lat := make([][]time.Duration, conns)
			b.ReportAllocs()
			c0 := processCPU(b)
			b.ResetTimer()
			var wg sync.WaitGroup
			for g := range conns {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rng := rand.New(rand.NewPCG(uint64(g), 1))
					for i := g; i < b.N; i += conns {
						id := rng.IntN(n)
						t0 := time.Now()
						var got int
						err := cs[g].QueryRowContext(ctx, fmt.Sprintf("SELECT order_id, user_id, status, amount, dt FROM orders WHERE order_id = %d AND dt = '%s'", id, dt(id))).Scan(&got, new(int), new(string), new(string), new(string))
						lat[g] = append(lat[g], time.Since(t0))
						if err != nil || got != id {
							b.Errorf("order %d: %d, %v", id, got, err)
							return
						}
					}
				}()
			}
			wg.Wait()
			b.StopTimer()
			cpu := processCPU(b) - c0
			all := slices.Concat(lat...)
			slices.Sort(all)
			if len(all) > 0 {
				b.ReportMetric(float64(all[len(all)/2].Microseconds()), "p50-µs")
				b.ReportMetric(float64(all[len(all)*99/100].Microseconds()), "p99-µs")
				b.ReportMetric(float64(cpu.Microseconds())/float64(len(all)), "cpu-µs/op")
			}
		})
	}
}
