package tests

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestWriteBufferSpill: a transaction's writes past the table's
// write-buffer-size go to a local spill file (kv.PendingWrites) and stream
// to the commit, whose write buffer flushes level-0 files at the same size:
// large autocommit INSERTs and UPDATEs, an explicit transaction of several
// statements with a failed one in the middle (its spilled records are
// dropped), all agree with a model; reading the table in the transaction
// after its records spilled is a clear 1235 and the connection survives.
func TestWriteBufferSpill(t *testing.T) {
	wh := t.TempDir()
	ws := startWriteServer(t, wh)
	db := ws.open(t, "default")
	ctx := context.Background()
	mustExec(t, db, "CREATE TABLE sp (k BIGINT, v VARCHAR(40), n INT NOT NULL, PRIMARY KEY (k) NOT ENFORCED) "+
		"WITH ('bucket' = '2', 'write-buffer-size' = '64 kb', 'write-only' = 'true')")
	seed := uint64(rand.Int64())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	model := map[int64][2]any{} // k → v, n
	insert := func(keys []int64, badLast bool) string {
		var b strings.Builder
		b.WriteString("INSERT INTO sp VALUES ")
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			if badLast && i == len(keys)-1 {
				fmt.Fprintf(&b, "(%d,'bad',NULL)", k)
				continue
			}
			fmt.Fprintf(&b, "(%d,'v%d-%d',%d)", k, k, rng.IntN(1000), rng.IntN(100))
		}
		return b.String()
	}
	apply := func(stmt string) {
		// The model parses back what insert wrote.
		for _, tup := range strings.Split(strings.TrimPrefix(stmt, "INSERT INTO sp VALUES ("), "),(") {
			tup = strings.TrimSuffix(tup, ")")
			f := strings.Split(tup, ",")
			var k, n int64
			fmt.Sscan(f[0], &k)
			fmt.Sscan(f[2], &n)
			model[k] = [2]any{strings.Trim(f[1], "'"), n}
		}
	}
	keys := func(n int) []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = rng.Int64N(20000)
		}
		return out
	}
	// Autocommit statements of 3,000 rows: far past 64 kb.
	for range 2 {
		s := insert(keys(3000), false)
		mustExec(t, db, s)
		apply(s)
	}
	// An explicit transaction: two statements, a failing one between them.
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	mustExec(t, conn, "BEGIN")
	s1 := insert(keys(2500), false)
	mustExec(t, conn, s1)
	if _, err := conn.ExecContext(ctx, insert(keys(2500), true)); err == nil {
		t.Fatal("a NULL into a NOT NULL column succeeded")
	}
	if _, err := conn.ExecContext(ctx, "SELECT COUNT(*) FROM sp"); mysqlErrNo(err) != 1235 {
		t.Fatalf("reading a spilled table in its transaction: %v, want 1235", err)
	}
	s2 := insert(keys(2500), false)
	mustExec(t, conn, s2, "COMMIT")
	apply(s1)
	apply(s2)
	// An autocommit UPDATE of about half the rows.
	mustExec(t, db, "UPDATE sp SET n = n + 1000 WHERE k % 2 = 0")
	for k, r := range model {
		if k%2 == 0 {
			model[k] = [2]any{r[0], r[1].(int64) + 1000}
		}
	}
	got := queryStrings(t, db, "SELECT k, v, n FROM sp ORDER BY k")
	if len(got) != len(model) {
		t.Fatalf("%d rows, model %d", len(got), len(model))
	}
	for _, r := range got {
		var k int64
		fmt.Sscan(r[0], &k)
		m, ok := model[k]
		if !ok || r[1] != m[0] || r[2] != fmt.Sprint(m[1]) {
			t.Fatalf("row %v, model %v (present %v)", r, m, ok)
		}
	}
	// The commits flushed at the buffer size: more level-0 files than
	// buckets per commit.
	files := queryStrings(t, db, "SELECT COUNT(*) FROM `sp$files`")
	var nf int
	fmt.Sscan(files[0][0], &nf)
	if nf <= 2*5 {
		t.Errorf("%d files after 4 large commits into 2 buckets with a 64 kb write buffer", nf)
	}
}
