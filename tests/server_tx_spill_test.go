package tests

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestTxSpillReadYourWritesModel: transactions mixing LOAD DATA REPLACE,
// INSERT, REPLACE, INSERT IGNORE, INSERT … ON DUPLICATE KEY UPDATE, DELETE
// and UPDATE (and a failing INSERT) on primary-key
// tables with a 16 kb write-buffer-size, so the transaction's records spill
// to its local file after the first statements. After every statement,
// reads by key (IN lists, BETWEEN) inside the transaction equal a model:
// they read the spilled records they need from the spill file, and so do
// the duplicate-key checks of INSERT IGNORE and ON DUPLICATE KEY UPDATE
// (through the spill file's key index). A read
// needing more than write-buffer-size of spilled records (the whole table)
// is 1235 or equals the model. After COMMIT (or ROLLBACK) the table equals
// the model. One and three fixed buckets, and deletion vectors.
func TestTxSpillReadYourWritesModel(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 11))
	wh, dir := t.TempDir(), t.TempDir()
	addr := startFilesServer(t, wh, dir)
	mustExec(t, openWarehouseDB(t, addr, "", ""), "CREATE DATABASE txs")
	db := openWarehouseDB(t, addr, "txs", "")
	ctx := context.Background()
	const keySpace = 3000
	files := 0
	loadFile := func(rows map[int64][2]any) string {
		files++
		p := filepath.Join(dir, fmt.Sprintf("f%d.csv", files))
		var b strings.Builder
		for _, k := range slices.Sorted(maps.Keys(rows)) {
			fmt.Fprintf(&b, "%d,%s,%d\n", k, rows[k][0], rows[k][1])
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	randRows := func(n int, tag string) map[int64][2]any {
		out := map[int64][2]any{}
		for range n {
			k := rng.Int64N(keySpace)
			out[k] = [2]any{fmt.Sprintf("%s-%d-%d", tag, k, rng.IntN(1000)), int64(rng.IntN(100))}
		}
		return out
	}
	values := func(rows map[int64][2]any) string {
		var b strings.Builder
		for i, k := range slices.Sorted(maps.Keys(rows)) {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "(%d,'%s',%d)", k, rows[k][0], rows[k][1])
		}
		return b.String()
	}
	randKeys := func(n int) []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = rng.Int64N(keySpace)
		}
		return out
	}
	inList := func(keys []int64) string {
		s := make([]string, len(keys))
		for i, k := range keys {
			s[i] = fmt.Sprint(k)
		}
		return strings.Join(s, ",")
	}
	render := func(m map[int64][2]any, keep func(int64) bool) string {
		var b strings.Builder
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if keep(k) {
				fmt.Fprintf(&b, "[%d %s %d]", k, m[k][0], m[k][1])
			}
		}
		return b.String()
	}
	rendered := func(rows [][]string) string {
		var b strings.Builder
		for _, r := range rows {
			fmt.Fprintf(&b, "[%s %s %s]", r[0], r[1], r[2])
		}
		return b.String()
	}

	spilledReads := 0
	for ci, opts := range []string{"'bucket' = '1'", "'bucket' = '3'", "'bucket' = '2', 'deletion-vectors.enabled' = 'true'"} {
		table := fmt.Sprintf("t%d", ci)
		mustExec(t, db, fmt.Sprintf("CREATE TABLE %s (k BIGINT, v VARCHAR(40), n INT NOT NULL, PRIMARY KEY (k) NOT ENFORCED) "+
			"WITH (%s, 'write-buffer-size' = '16 kb')", table, opts))
		committed := randRows(800, "base")
		mustExec(t, db, fmt.Sprintf("LOAD DATA INFILE '%s' INTO TABLE %s FIELDS TERMINATED BY ','", loadFile(committed), table))
		for txn := range 3 {
			conn, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			model := map[int64][2]any{}
			for k, r := range committed {
				model[k] = r
			}
			var recent []int64 // keys the transaction wrote, for the reads
			mustExec(t, conn, "BEGIN")
			for step := range 18 {
				var stmt string
				switch op := rng.IntN(9); op {
				case 0, 1: // LOAD DATA … REPLACE
					rows := randRows(200+rng.IntN(400), fmt.Sprintf("l%d%d", txn, step))
					stmt = fmt.Sprintf("LOAD DATA INFILE '%s' REPLACE INTO TABLE %s FIELDS TERMINATED BY ','", loadFile(rows), table)
					for k, r := range rows {
						model[k] = r
						recent = append(recent, k)
					}
				case 2: // INSERT (an upsert) or REPLACE
					rows := randRows(20+rng.IntN(100), fmt.Sprintf("i%d%d", txn, step))
					verb := []string{"INSERT", "REPLACE"}[rng.IntN(2)]
					stmt = fmt.Sprintf("%s INTO %s VALUES %s", verb, table, values(rows))
					for k, r := range rows {
						model[k] = r
						recent = append(recent, k)
					}
				case 3: // a failing INSERT: nothing of it stays
					rows := randRows(30, "bad")
					bad := values(rows) + fmt.Sprintf(",(%d,'x',NULL)", rng.Int64N(keySpace))
					if _, err := conn.ExecContext(ctx, fmt.Sprintf("INSERT INTO %s VALUES %s", table, bad)); err == nil {
						t.Fatalf("step %d: a NULL into a NOT NULL column succeeded", step)
					}
				case 4: // DELETE by an IN list (some keys just written)
					keys := randKeys(30)
					if len(recent) > 0 {
						for range 20 {
							keys = append(keys, recent[rng.IntN(len(recent))])
						}
					}
					stmt = fmt.Sprintf("DELETE FROM %s WHERE k IN (%s)", table, inList(keys))
					for _, k := range keys {
						delete(model, k)
					}
				case 5: // DELETE a key range
					lo := rng.Int64N(keySpace)
					stmt = fmt.Sprintf("DELETE FROM %s WHERE k BETWEEN %d AND %d", table, lo, lo+20)
					for k := range model {
						if k >= lo && k <= lo+20 {
							delete(model, k)
						}
					}
				case 7: // INSERT IGNORE: keys the transaction holds (maybe spilled) stay
					rows := randRows(20+rng.IntN(60), fmt.Sprintf("g%d%d", txn, step))
					if len(recent) > 0 {
						for range 10 {
							k := recent[rng.IntN(len(recent))]
							rows[k] = [2]any{fmt.Sprintf("g%d%d-%d", txn, step, k), int64(rng.IntN(100))}
						}
					}
					stmt = fmt.Sprintf("INSERT IGNORE INTO %s VALUES %s", table, values(rows))
					for k, r := range rows {
						if _, ok := model[k]; !ok {
							model[k] = r
							recent = append(recent, k)
						}
					}
				case 8: // INSERT … ON DUPLICATE KEY UPDATE
					rows := randRows(20+rng.IntN(60), fmt.Sprintf("d%d%d", txn, step))
					if len(recent) > 0 {
						for range 10 {
							k := recent[rng.IntN(len(recent))]
							rows[k] = [2]any{fmt.Sprintf("d%d%d-%d", txn, step, k), int64(rng.IntN(100))}
						}
					}
					stmt = fmt.Sprintf("INSERT INTO %s VALUES %s ON DUPLICATE KEY UPDATE n = n + VALUES(n), v = CONCAT(v, 'd')", table, values(rows))
					for k, r := range rows {
						if old, ok := model[k]; ok {
							model[k] = [2]any{old[0].(string) + "d", old[1].(int64) + r[1].(int64)}
						} else {
							model[k] = r
						}
						recent = append(recent, k)
					}
				case 6: // UPDATE by keys or a range
					var keep func(int64) bool
					if rng.IntN(2) == 0 {
						keys := randKeys(40)
						if len(recent) > 0 {
							for range 20 {
								keys = append(keys, recent[rng.IntN(len(recent))])
							}
						}
						stmt = fmt.Sprintf("UPDATE %s SET n = n + 1, v = CONCAT(v, 'u') WHERE k IN (%s)", table, inList(keys))
						keep = func(k int64) bool { return slices.Contains(keys, k) }
					} else {
						lo := rng.Int64N(keySpace)
						stmt = fmt.Sprintf("UPDATE %s SET n = n + 1, v = CONCAT(v, 'u') WHERE k BETWEEN %d AND %d", table, lo, lo+30)
						keep = func(k int64) bool { return k >= lo && k <= lo+30 }
					}
					for k, r := range model {
						if keep(k) {
							model[k] = [2]any{r[0].(string) + "u", r[1].(int64) + 1}
						}
					}
				}
				if stmt != "" {
					if _, err := conn.ExecContext(ctx, stmt); err != nil {
						t.Fatalf("table %s tx %d step %d: %.200s: %v", table, txn, step, stmt, err)
					}
				}
				// Reads by key inside the transaction.
				keys := randKeys(25)
				if len(recent) > 0 {
					for range 25 {
						keys = append(keys, recent[rng.IntN(len(recent))])
					}
				}
				got := rendered(queryStrings(t, conn, fmt.Sprintf("SELECT k, v, n FROM %s WHERE k IN (%s) ORDER BY k", table, inList(keys))))
				if want := render(model, func(k int64) bool { return slices.Contains(keys, k) }); got != want {
					t.Fatalf("table %s tx %d step %d (after %.120s): IN read\n got %s\nwant %s", table, txn, step, stmt, got, want)
				}
				lo := rng.Int64N(keySpace)
				got = rendered(queryStrings(t, conn, fmt.Sprintf("SELECT k, v, n FROM %s WHERE k >= %d AND k < %d ORDER BY k", table, lo, lo+40)))
				if want := render(model, func(k int64) bool { return k >= lo && k < lo+40 }); got != want {
					t.Fatalf("table %s tx %d step %d: range read\n got %s\nwant %s", table, txn, step, got, want)
				}
				// A whole-table read: the model, or 1235 when it needs
				// more than write-buffer-size of spilled records.
				rows, err := conn.QueryContext(ctx, fmt.Sprintf("SELECT k, v, n FROM %s ORDER BY k", table))
				if err == nil {
					var all [][]string
					for rows.Next() {
						var k, v, n string
						if err = rows.Scan(&k, &v, &n); err != nil {
							break
						}
						all = append(all, []string{k, v, n})
					}
					if err == nil {
						err = rows.Err()
					}
					rows.Close()
					if err == nil {
						if got, want := rendered(all), render(model, func(int64) bool { return true }); got != want {
							t.Fatalf("table %s tx %d step %d: whole-table read differs from the model", table, txn, step)
						}
					}
				}
				if err != nil {
					if mysqlErrNo(err) != 1235 {
						t.Fatalf("table %s tx %d step %d: whole-table read: %v", table, txn, step, err)
					}
					spilledReads++
				}
			}
			if txn == 1 {
				mustExec(t, conn, "ROLLBACK")
			} else {
				mustExec(t, conn, "COMMIT")
				committed = model
			}
			conn.Close()
			got := rendered(queryStrings(t, db, fmt.Sprintf("SELECT k, v, n FROM %s ORDER BY k", table)))
			if want := render(committed, func(int64) bool { return true }); got != want {
				t.Fatalf("table %s after tx %d: differs from the model", table, txn)
			}
		}
	}
	// The transactions spilled: whole-table reads inside them needed more
	// than the buffer (else the key reads above proved nothing of spills).
	if spilledReads == 0 {
		t.Fatal("no transaction spilled past write-buffer-size")
	}
	t.Logf("%d whole-table reads answered 1235", spilledReads)
}
