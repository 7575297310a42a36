package metrics_test

import (
	"errors"
	"math/rand/v2"
	"sort"
	"sync"
	"testing"

	"github.com/lakesql/lakesql/internal/metrics"
)

// TestHistogramAgainstModel: random observations from several goroutines
// give the cumulative bucket counts, count and sum of a sorted model.
func TestHistogramAgainstModel(t *testing.T) {
	bounds := []float64{1, 2, 5, 10}
	h := metrics.NewHistogram(bounds)
	var mu sync.Mutex
	var all []float64
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 1))
			for range 1000 {
				v := float64(r.IntN(24)) / 2 // 0 … 11.5, on and between the bounds
				h.Observe(v)
				mu.Lock()
				all = append(all, v)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	s := h.Snapshot()
	sort.Float64s(all)
	sum := 0.0
	for _, v := range all {
		sum += v
	}
	if s.Count != uint64(len(all)) || s.Sum != sum {
		t.Errorf("count %d sum %v, want %d %v", s.Count, s.Sum, len(all), sum)
	}
	for i, b := range bounds {
		want := uint64(sort.Search(len(all), func(j int) bool { return all[j] > b }))
		if s.Buckets[i] != want {
			t.Errorf("bucket le=%v: %d, want %d", b, s.Buckets[i], want)
		}
	}
}

func TestVecsAndGauges(t *testing.T) {
	v := metrics.NewCounterVec("a", "b")
	v.With("x", "y").Add(2)
	v.With("x", "y").Inc()
	v.With("x", "z").Inc()
	got := map[string]uint64{}
	v.Each(func(l []string, c *metrics.Counter) { got[l[0]+"/"+l[1]] = c.Load() })
	if len(got) != 2 || got["x/y"] != 3 || got["x/z"] != 1 {
		t.Errorf("counter vec %v", got)
	}
	var g metrics.Gauge
	g.Set(5)
	g.SetMax(3)
	g.SetMax(9)
	g.Add(-1)
	if g.Load() != 8 {
		t.Errorf("gauge %d, want 8", g.Load())
	}
}

func TestTableLabel(t *testing.T) {
	for in, want := range map[string]string{
		"file:///w/shop.db/orders":      "shop.orders",
		"/w/shop.db/orders/":            "shop.orders",
		"s3://bucket/wh/default.db/t":   "default.t",
		"mem://x/a.db/b":                "a.b",
		"file:///somewhere/plain/table": "table",
	} {
		if got := metrics.TableLabel(in); got != want {
			t.Errorf("TableLabel(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestStatementMemory: charged bytes and operator-kept rows (at the
// sampled average row size) count against the limit.
func TestStatementMemory(t *testing.T) {
	var st metrics.Statement
	st.Limit = 10_000
	row := []any{int64(1), "0123456789012345678901234567890123456789"}
	for i := range int64(640) {
		st.SampleRow(i, row)
	}
	size := metrics.RowSize(row)
	if err := st.Charge(1000); err != nil {
		t.Fatal(err)
	}
	kept := int64(0)
	for st.Cached() <= st.Limit {
		kept++
	}
	if want := (st.Limit-1000)/size + 1; kept+1 != want {
		t.Errorf("kept %d rows of %d bytes before passing %d with 1000 charged, want %d", kept+1, size, st.Limit, want)
	}
	if err := st.Charge(1); !errors.Is(err, metrics.ErrMemoryLimit) {
		t.Errorf("Charge past the limit: %v", err)
	}
	var none metrics.Statement
	if err := none.Charge(1 << 40); err != nil {
		t.Errorf("no limit: %v", err)
	}
}
