package provider

import (
	"math"
	"math/rand"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/internal/schema"
)

// TestPrimaryStatisticMatchesModel checks the PRIMARY histogram built from
// random file key spans against a model that spreads every file's rows
// over each key of its span: every bucket counts the model's rows of its
// key interval (±1 for rounding), buckets ascend and cover [min, max], the
// total is the files' rows, and a one-column key counts its rows as
// distinct.
func TestPrimaryStatisticMatchesModel(t *testing.T) {
	rnd := rand.New(rand.NewSource(7))
	for iter := range 200 {
		sch := &schema.TableSchema{
			Fields: []schema.DataField{
				{ID: 0, Name: "k", Type: schema.AtomicType(schema.TypeBigInt).WithNullable(false)},
				{ID: 1, Name: "v", Type: schema.AtomicType(schema.TypeBigInt)},
			},
			PrimaryKeys: []string{"k"},
		}
		tb := &Table{name: "t", sch: sch, full: sql.Schema{{Name: "k"}, {Name: "v", Nullable: true}}}
		pi := &primaryIndex{t: tb, cols: []int{0}}
		span := int64(1 + rnd.Intn(2000))
		base := int64(rnd.Intn(1000)) - 500
		var files []fileSpan
		model := map[int64]float64{}
		var total float64
		for range 1 + rnd.Intn(30) {
			lo := base + rnd.Int63n(span)
			hi := lo + rnd.Int63n(span/3+1)
			rows := float64(1 + rnd.Intn(500))
			files = append(files, fileSpan{lo: lo, hi: hi, rows: rows})
			for k := lo; k <= hi; k++ {
				model[k] += rows / float64(hi-lo+1)
			}
			total += rows
		}
		st := newPrimaryStatistic(pi, files)
		h := st.Histogram()
		if len(h) == 0 || len(h) > histBuckets {
			t.Fatalf("iter %d: %d buckets", iter, len(h))
		}
		lo := st.LowerBound()[0].(int64)
		prev := lo - 1
		var sum uint64
		for i, b := range h {
			ub := b.UpperBound()[0].(int64)
			if ub <= prev {
				t.Fatalf("iter %d: bucket %d bound %d after %d", iter, i, ub, prev)
			}
			var want float64
			for k := prev + 1; k <= ub; k++ {
				want += model[k]
			}
			if math.Abs(float64(b.RowCount())-want) > 1 {
				t.Fatalf("iter %d: bucket %d (%d, %d]: %d rows, model %.2f", iter, i, prev, ub, b.RowCount(), want)
			}
			if b.DistinctCount() != b.RowCount() {
				t.Fatalf("iter %d: bucket %d of a unique key: %d distinct of %d", iter, i, b.DistinctCount(), b.RowCount())
			}
			sum += b.RowCount()
			prev = ub
		}
		// Empty buckets are left out: the last bound is at most the
		// largest key, every key below the lower bound is empty.
		for k, n := range model {
			if n > 0.5 && (k < lo || k > prev) {
				t.Fatalf("iter %d: key %d (%.2f rows) outside [%d, %d]", iter, k, n, lo, prev)
			}
		}
		if math.Abs(float64(sum)-total) > float64(len(h)) || st.RowCount() != sum {
			t.Fatalf("iter %d: %d rows in buckets, statistic %d, files %v", iter, sum, st.RowCount(), total)
		}
	}
}
