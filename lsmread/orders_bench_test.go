package lsmread_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmread"
	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/snapshot"
)

// ordersTable is the benchmarks' orders-shaped table (the bench's orders:
// order_id BIGINT primary key, user_id BIGINT, status STRING, amount
// DECIMAL(12,2)) and how writeOrders builds it: rows inserted in one
// commit, then changes commits each upserting 5% of the keys and deleting
// 0.25%, with compactions between.
type ordersTable struct {
	rows    int
	options map[string]string // the table's options (bucket, ...)
	// The values: user_id of users users, status one of statuses, amount
	// cents in [amountMin, amountMin+amountSpan), drawn from a PCG seeded
	// (42, seed).
	users                 int64
	statuses              []string
	amountMin, amountSpan int64
	seed                  uint64
	// fullFirst fully compacts after the first commit; changes is the
	// number of change commits; minorLast compacts (not fully) after them.
	fullFirst bool
	changes   int
	minorLast bool
}

// ordersCDC is BenchmarkAggregateMOR's merge-on-read table: n rows in 4
// buckets, then cdc change commits, not compacted (1 + cdc sorted runs per
// bucket, the later ones small); 5 statuses, n/10+1 users.
func ordersCDC(n, cdc int) ordersTable {
	return ordersTable{
		rows: n, options: map[string]string{"bucket": "4", "write-only": "true"},
		users: int64(n/10) + 1, statuses: []string{"new", "paid", "shipped", "done", "cancelled"},
		amountSpan: 100_000, changes: cdc,
	}
}

// ordersCompacted is BenchmarkAggregate's table: n rows in 16 buckets (the
// bench's 4 partitions of 4), fully compacted; with dv the table has
// deletion vectors and one change commit, compacted (minor) into deletion
// vectors. 6 statuses, n/10 users.
func ordersCompacted(n int, dv bool) ordersTable {
	t := ordersTable{
		rows: n, options: map[string]string{"bucket": "16"},
		users: int64(n / 10), statuses: []string{"new", "paid", "shipped", "delivered", "cancelled", "returned"},
		amountMin: 100, amountSpan: 999_900, seed: 42, fullFirst: true,
	}
	if dv {
		t.options["deletion-vectors.enabled"] = "true"
		t.changes, t.minorLast = 1, true
	}
	return t
}

// writeOrders writes table t into the table folder st.
func writeOrders(tb testing.TB, ctx context.Context, st storage.Storage, t ordersTable) {
	tb.Helper()
	ts := &schema.TableSchema{
		Version: schema.SchemaVersionCurrent,
		Fields: []schema.DataField{
			{ID: 0, Name: "order_id", Type: schema.AtomicType(schema.TypeBigInt).WithNullable(false)},
			{ID: 1, Name: "user_id", Type: schema.AtomicType(schema.TypeBigInt)},
			{ID: 2, Name: "status", Type: schema.StringType()},
			{ID: 3, Name: "amount", Type: schema.DecimalType(12, 2)},
		},
		HighestFieldID: 3,
		PrimaryKeys:    []string{"order_id"},
		Options:        t.options,
	}
	if err := snapshot.NewSchemaManager(st, "main").Commit(ctx, ts); err != nil {
		tb.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(42, t.seed))
	row := make([]any, 4)
	order := func(id int64) []any {
		row[0], row[1] = id, rng.Int64N(t.users)
		row[2] = t.statuses[rng.IntN(len(t.statuses))]
		row[3] = schema.DecimalFromInt64(t.amountMin+rng.Int64N(t.amountSpan), 2)
		return row
	}
	var base *snapshot.Snapshot
	commit := func(write func(w *lsmwrite.TableWrite) error) {
		w, err := lsmwrite.NewTableWrite(ctx, st, ts, base, lsmwrite.Options{})
		if err != nil {
			tb.Fatal(err)
		}
		if err := write(w); err != nil {
			tb.Fatal(err)
		}
		if base, err = w.Commit(ctx); err != nil {
			tb.Fatal(err)
		}
	}
	compact := func(full bool) {
		if _, err := lsmwrite.Compact(ctx, snapshot.OpenTable(st, ""), lsmwrite.CompactRequest{Full: full}); err != nil {
			tb.Fatal(err)
		}
		var err error
		if base, err = snapshot.OpenTable(st, "").Snapshots().Latest(ctx); err != nil {
			tb.Fatal(err)
		}
	}
	commit(func(w *lsmwrite.TableWrite) error {
		for id := range int64(t.rows) {
			if err := w.Write(ctx, kv.Insert, order(id)); err != nil {
				return err
			}
		}
		return nil
	})
	if t.fullFirst {
		compact(true)
	}
	for range t.changes {
		commit(func(w *lsmwrite.TableWrite) error {
			for range t.rows / 20 {
				if err := w.Write(ctx, kv.Insert, order(rng.Int64N(int64(t.rows)))); err != nil {
					return err
				}
			}
			for range t.rows / 400 {
				if err := w.Write(ctx, kv.Delete, order(rng.Int64N(int64(t.rows)))); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if t.minorLast {
		compact(false)
	}
}

// TestOrdersTables checks the shapes the aggregate benchmarks read: the
// merge-on-read table has 1 + cdc sorted runs in each of its 4 buckets and
// every row written (a commit's repeated keys once); the compacted one 16 buckets of one level each and
// every key once; the deletion-vector one deletion vectors over at most
// 0.25% of the keys.
func TestOrdersTables(t *testing.T) {
	ctx := context.Background()
	const n = 4000
	plan := func(tt ordersTable) *lsmread.Plan {
		st, err := storage.Open(ctx, "file://"+t.TempDir()+"?fsync=false")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		writeOrders(t, ctx, st, tt)
		p, err := lsmread.OpenTable(st, "").Plan(ctx, lsmread.ScanSpec{})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	rows := func(p *lsmread.Plan) (n int64, dvs int) {
		for _, s := range p.Splits {
			n += s.RowCount()
			for _, d := range s.DeletionFiles {
				if d != nil {
					dvs++
				}
			}
		}
		return n, dvs
	}
	cdc := plan(ordersCDC(n, 4))
	if len(cdc.Splits) != 4 {
		t.Errorf("the CDC table has %d buckets, want 4", len(cdc.Splits))
	}
	for _, s := range cdc.Splits {
		if len(s.Files) != 5 {
			t.Errorf("bucket %v of the CDC table has %d sorted runs, want 5", s.Bucket, len(s.Files))
		}
	}
	// A change commit's repeated keys are one row.
	if got, dvs := rows(cdc); got <= n || got > n+4*(n/20+n/400) || dvs != 0 {
		t.Errorf("the CDC table holds %d rows and %d deletion vectors, want %d..%d and none", got, dvs, n+1, n+4*(n/20+n/400))
	}
	compacted := plan(ordersCompacted(n, false))
	if len(compacted.Splits) != 16 {
		t.Errorf("the compacted table has %d buckets, want 16", len(compacted.Splits))
	}
	for _, s := range compacted.Splits {
		for _, f := range s.Files {
			if f.Level == 0 {
				t.Errorf("bucket %v of the compacted table has a level-0 file", s.Bucket)
			}
		}
	}
	if got, dvs := rows(compacted); got != n || dvs != 0 {
		t.Errorf("the compacted table holds %d rows and %d deletion vectors, want %d and none", got, dvs, n)
	}
	if got, dvs := rows(plan(ordersCompacted(n, true))); got < n-n/400 || got > n || dvs == 0 {
		t.Errorf("the deletion-vector table holds %d rows and %d deletion vectors, want %d..%d and some", got, dvs, n-n/400, n)
	}
}
