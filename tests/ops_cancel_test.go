package tests

import (
	"context"
	"database/sql"
	"fmt"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lakesql/lakesql/sqlengine"
)

// Cancellation of CPU-bound statements (issue 12 item 6): a cross join
// counted, a cross join sorted, a grouped aggregate over a cross join;
// KILL QUERY from another connection gives the victim 1317, and a client
// that disconnects mid-statement (its context canceled: the driver closes
// the socket) stops it too. Either way the statement leaves the process
// list and the server's goroutines go back to what they were before it.

// cancelStatements run for minutes unless stopped (20,000² rows).
var cancelStatements = []string{
	"SELECT COUNT(*) FROM big a, big b WHERE a.v + b.v < 0",
	"SELECT a.k, b.k FROM big a, big b ORDER BY a.v * b.v DESC, a.k, b.k LIMIT 3",
	"SELECT a.k % 7, SUM(b.v) FROM big a, big b GROUP BY a.k % 7",
}

// runningIn returns the connection ids whose statement contains text.
func runningIn(ctx context.Context, t *testing.T, db *sql.DB, text string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	rows, err := db.QueryContext(ctx, "SHOW PROCESSLIST")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(vals[7].String, text) {
			out[vals[0].String] = true
		}
	}
	return out
}

// cpuTime is the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestCancelCPUBoundStatements(t *testing.T) {
	db := opsServer(t, sqlengine.Config{})
	opsExec(t, db, "CREATE TABLE big (k BIGINT PRIMARY KEY, v BIGINT) WITH ('bucket' = '2')")
	const n = 20000
	for lo := 0; lo < n; lo += 5000 {
		var vals []string
		for i := lo; i < lo+5000; i++ {
			vals = append(vals, fmt.Sprintf("(%d, %d)", i, i*7%1000))
		}
		opsExec(t, db, "INSERT INTO big VALUES "+strings.Join(vals, ", "))
	}
	ctx, cancel := context.WithTimeout(context.Background(), safetyNet)
	defer cancel()
	db.SetMaxIdleConns(4)
	// The baseline: the pool's connections open, nothing running.
	var one int
	if err := db.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		t.Fatal(err)
	}
	for _, how := range []string{"kill", "disconnect"} {
		for _, q := range cancelStatements {
			t.Run(how+"/"+q[:strings.Index(q, " FROM")], func(t *testing.T) {
				runtime.GC()
				base := runtime.NumGoroutine()
				victim, err := db.Conn(ctx)
				if err != nil {
					t.Fatal(err)
				}
				var id int64
				if err := victim.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
					t.Fatal(err)
				}
				qctx, qcancel := context.WithCancel(ctx)
				defer qcancel()
				errc := make(chan error, 1)
				go func() {
					rows, err := victim.QueryContext(qctx, q)
					if err == nil {
						for rows.Next() {
						}
						err = rows.Err()
						rows.Close()
					}
					errc <- err
				}()
				for !runningIn(ctx, t, db, "big a, big b")[fmt.Sprint(id)] {
					if ctx.Err() != nil {
						t.Fatalf("%s never showed in SHOW PROCESSLIST", q)
					}
					time.Sleep(10 * time.Millisecond)
				}
				time.Sleep(300 * time.Millisecond) // well inside the statement
				stopAt := time.Now()
				switch how {
				case "kill":
					opsExec(t, db, fmt.Sprintf("KILL QUERY %d", id))
					if err := <-errc; mysqlCode(err) != 1317 {
						t.Fatalf("after KILL QUERY: %v, want 1317", err)
					}
					if err := victim.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
						t.Errorf("the killed statement's connection does not serve the next one: %v", err)
					}
				case "disconnect":
					qcancel() // the driver closes the connection
					<-errc
				}
				victim.Close()
				// Stopped: gone from the process list, the goroutines back
				// to the baseline (parallel scans and joins ended).
				var leftList time.Duration
				for {
					running := len(runningIn(ctx, t, db, "big a, big b")) > 0
					if !running && leftList == 0 {
						leftList = time.Since(stopAt)
					}
					g := runtime.NumGoroutine()
					if !running && g <= base+2 {
						break
					}
					if ctx.Err() != nil {
						buf := make([]byte, 1<<20)
						buf = buf[:runtime.Stack(buf, true)]
						t.Fatalf("%s still running (%v) or %d goroutines, baseline %d:\n%s", q, running, g, base, buf)
					}
					time.Sleep(20 * time.Millisecond)
				}
				stopped := time.Since(stopAt)
				c0 := cpuTime()
				time.Sleep(200 * time.Millisecond)
				t.Logf("gone from the process list %v and stopped %v after the %s; CPU of the whole test process in the next 200 ms: %v", leftList.Round(time.Millisecond), stopped.Round(time.Millisecond), how, cpuTime()-c0)
			})
		}
	}
}
