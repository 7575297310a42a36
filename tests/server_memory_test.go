package tests

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"
)

// heapWatermark samples the live heap (runtime/metrics /gc/heap/live:bytes,
// the heap marked live by the last GC) until stop is called, which returns
// its highest value. With LAKESQL_TEST_HEAP_PROFILE=DIR a heap profile is
// written each time the high-water mark grows by a tenth.
func heapWatermark(t *testing.T) (stop func() uint64) {
	t.Helper()
	dir := os.Getenv("LAKESQL_TEST_HEAP_PROFILE")
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var mu sync.Mutex
	var peak, written uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			metrics.Read(s)
			v := s[0].Value.Uint64()
			mu.Lock()
			if v > peak {
				peak = v
				if dir != "" && v > written+written/10 {
					written = v
					if f, err := os.Create(filepath.Join(dir, fmt.Sprintf("heap-%04dMB.pprof", v>>20))); err == nil {
						pprof.Lookup("heap").WriteTo(f, 0)
						f.Close()
					}
				}
			}
			mu.Unlock()
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}

// TestMemoryBoundedByWriteBuffer runs a long statement mix on a 4-bucket
// primary-key table with a small write-buffer-size — a LOAD DATA many times
// the buffer, REPLACE batches with automatic compaction, a transaction whose
// writes spill (LOAD DATA REPLACE, DELETE by key lists, INSERT IGNORE) — and
// measures the high-water mark of the live heap against the heap before it:
// it stays within a few write buffers and a fixed allowance (parquet-go's
// page buffers, zstd encoders, the engine), whatever the statements' size.
// Each of the two LOADs alone is about 20 write buffers of rows.
func TestMemoryBoundedByWriteBuffer(t *testing.T) {
	if testing.Short() {
		t.Skip("a long statement mix")
	}
	if os.Getenv("LAKESQL_TEST_MEMORY_CHILD") != "1" {
		// The live heap is the process's: other tests of the package
		// running alongside would count. The mix runs in a child process
		// of this test binary that runs only this test.
		cmd := exec.Command(os.Args[0], "-test.run=^TestMemoryBoundedByWriteBuffer$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "LAKESQL_TEST_MEMORY_CHILD=1")
		out, err := cmd.CombinedOutput()
		for _, l := range strings.Split(string(out), "\n") {
			if strings.Contains(l, "server_memory_test.go") {
				t.Log(strings.TrimSpace(l))
			}
		}
		if err != nil {
			t.Fatalf("the statement mix in a child process: %v\n%s", err, tail(string(out), 4000))
		}
		return
	}
	const rows = 300_000
	const wbs = 4 << 20
	wh, dir := t.TempDir(), t.TempDir()
	addr := startFilesServer(t, wh, dir)
	mustExec(t, openWarehouseDB(t, addr, "", ""), "CREATE DATABASE mem")
	db := openWarehouseDB(t, addr, "mem", "")
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	line := func(b *strings.Builder, id int64) {
		fmt.Fprintf(b, "%d,%d,%s,%d.%02d,2026-01-%02d 10:11:12.345,2026-01-%02d\n", id, rng.IntN(10000),
			[]string{"new", "paid", "shipped", "done"}[rng.IntN(4)], rng.IntN(100000), rng.IntN(100), 1+id%3, 1+id%3)
	}
	file := func(name string, ids func(func(int64))) string {
		var b strings.Builder
		ids(func(id int64) { line(&b, id) })
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	all := file("orders.csv", func(f func(int64)) {
		for id := int64(1); id <= rows; id++ {
			f(id)
		}
	})
	cdc := file("cdc.csv", func(f func(int64)) {
		for range rows {
			f(1 + rng.Int64N(rows*5/4))
		}
	})
	mustExec(t, db, fmt.Sprintf("CREATE TABLE orders (order_id BIGINT, user_id BIGINT, status STRING, amount DECIMAL(12,2), "+
		"updated_at TIMESTAMP(3), dt STRING, PRIMARY KEY (order_id, dt) NOT ENFORCED) PARTITIONED BY (dt) "+
		"WITH ('bucket' = '4', 'write-buffer-size' = '%d b')", wbs))
	mustExec(t, db, "INSERT INTO orders VALUES (0, 0, 'x', 0, '2026-01-01 00:00:00', '2026-01-01')")
	runtime.GC()
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(live)
	before := live[0].Value.Uint64()
	stop := heapWatermark(t)

	mustExec(t, db, fmt.Sprintf("LOAD DATA INFILE '%s' INTO TABLE orders FIELDS TERMINATED BY ','", all))
	var b strings.Builder
	for stmt := range 40 {
		b.Reset()
		b.WriteString("REPLACE INTO orders VALUES ")
		for i := range 1000 {
			if i > 0 {
				b.WriteByte(',')
			}
			id := 1 + rng.Int64N(rows)
			fmt.Fprintf(&b, "(%d,%d,'upd',%d.00,'2026-02-01 00:00:00','2026-01-%02d')", id, stmt, i, 1+id%3)
		}
		mustExec(t, db, b.String())
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	mustExec(t, conn, "BEGIN", fmt.Sprintf("LOAD DATA INFILE '%s' REPLACE INTO TABLE orders FIELDS TERMINATED BY ','", cdc))
	for range 5 {
		ids := make([]string, 1000)
		for i := range ids {
			ids[i] = fmt.Sprint(1 + rng.Int64N(rows))
		}
		mustExec(t, conn, fmt.Sprintf("DELETE FROM orders WHERE order_id IN (%s)", strings.Join(ids, ",")))
	}
	b.Reset()
	b.WriteString("INSERT IGNORE INTO orders VALUES ")
	for i := range 1000 {
		if i > 0 {
			b.WriteByte(',')
		}
		id := 1 + rng.Int64N(rows*2)
		fmt.Fprintf(&b, "(%d,0,'ign',0,'2026-03-01 00:00:00','2026-01-%02d')", id, 1+id%3)
	}
	mustExec(t, conn, b.String(), "COMMIT")
	peak := stop()
	growth := int64(peak) - int64(before)
	t.Logf("live heap before %d MB, peak %d MB: +%d MB, %.1f × write-buffer-size", before>>20, peak>>20, growth>>20, float64(growth)/wbs)
	if limit := int64(4*wbs + 48<<20); growth > limit {
		t.Errorf("the live heap grew by %d MB during the statements, more than 4 write buffers and 48 MB (%d MB)", growth>>20, limit>>20)
	}
}
