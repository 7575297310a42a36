package metrics

import (
	"math"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// Counter is a monotonically increasing count.
type Counter struct{ v atomic.Uint64 }

// Add adds n.
func (c *Counter) Add(n uint64) { c.v.Add(n) }

// Inc adds one.
func (c *Counter) Inc() { c.v.Add(1) }

// Load is the current count.
func (c *Counter) Load() uint64 { return c.v.Load() }

// Gauge is a value that goes up and down.
type Gauge struct{ v atomic.Int64 }

// Add adds d (which may be negative).
func (g *Gauge) Add(d int64) { g.v.Add(d) }

// Set sets the value.
func (g *Gauge) Set(v int64) { g.v.Store(v) }

// SetMax raises the value to v if it is lower.
func (g *Gauge) SetMax(v int64) {
	for {
		old := g.v.Load()
		if old >= v || g.v.CompareAndSwap(old, v) {
			return
		}
	}
}

// Load is the current value.
func (g *Gauge) Load() int64 { return g.v.Load() }

// Histogram counts observations into buckets with fixed upper bounds (as
// Prometheus histograms: cumulative at scrape time, +Inf implied).
type Histogram struct {
	bounds []float64
	counts []atomic.Uint64 // len(bounds)+1; the last is +Inf
	count  atomic.Uint64
	sum    atomic.Uint64 // float64 bits
}

// NewHistogram returns a histogram with the given ascending upper bounds.
func NewHistogram(bounds []float64) *Histogram {
	b := append([]float64(nil), bounds...)
	sort.Float64s(b)
	return &Histogram{bounds: b, counts: make([]atomic.Uint64, len(b)+1)}
}

// Observe records one value.
func (h *Histogram) Observe(v float64) {
	i := sort.SearchFloat64s(h.bounds, v) // first bound >= v
	h.counts[i].Add(1)
	h.count.Add(1)
	for {
		old := h.sum.Load()
		if h.sum.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+v)) {
			return
		}
	}
}

// HistogramSnapshot is a histogram's state: Buckets[i] counts the
// observations ≤ Bounds[i] (cumulative).
type HistogramSnapshot struct {
	Count   uint64
	Sum     float64
	Bounds  []float64
	Buckets []uint64
}

// Snapshot reads the histogram.
func (h *Histogram) Snapshot() HistogramSnapshot {
	s := HistogramSnapshot{Bounds: h.bounds, Buckets: make([]uint64, len(h.bounds))}
	var cum uint64
	for i := range h.bounds {
		cum += h.counts[i].Load()
		s.Buckets[i] = cum
	}
	s.Count = cum + h.counts[len(h.bounds)].Load()
	s.Sum = math.Float64frombits(h.sum.Load())
	return s
}

// vec is a set of children keyed by label values.
type vec[T any] struct {
	labels []string
	m      sync.Map // joined label values → *T
	mk     func() *T
}

const labelSep = "\xff"

func (v *vec[T]) with(values ...string) *T {
	key := values[0]
	if len(values) > 1 {
		key = strings.Join(values, labelSep)
	}
	if c, ok := v.m.Load(key); ok {
		return c.(*T)
	}
	c, _ := v.m.LoadOrStore(key, v.mk())
	return c.(*T)
}

func (v *vec[T]) each(fn func(values []string, c *T)) {
	v.m.Range(func(k, c any) bool {
		fn(strings.Split(k.(string), labelSep), c.(*T))
		return true
	})
}

func (v *vec[T]) delete(values ...string) { v.m.Delete(strings.Join(values, labelSep)) }

// CounterVec is a family of counters with labels.
type CounterVec struct{ vec[Counter] }

// NewCounterVec returns a counter family with the given label names.
func NewCounterVec(labels ...string) *CounterVec {
	return &CounterVec{vec[Counter]{labels: labels, mk: func() *Counter { return new(Counter) }}}
}

// With returns the child for the label values (one per label name).
func (v *CounterVec) With(values ...string) *Counter { return v.with(values...) }

// Each calls fn for every child.
func (v *CounterVec) Each(fn func(values []string, c *Counter)) { v.each(fn) }

// Labels are the label names.
func (v *CounterVec) Labels() []string { return v.labels }

// GaugeVec is a family of gauges with labels.
type GaugeVec struct{ vec[Gauge] }

// NewGaugeVec returns a gauge family with the given label names.
func NewGaugeVec(labels ...string) *GaugeVec {
	return &GaugeVec{vec[Gauge]{labels: labels, mk: func() *Gauge { return new(Gauge) }}}
}

// With returns the child for the label values.
func (v *GaugeVec) With(values ...string) *Gauge { return v.with(values...) }

// Delete drops the child for the label values.
func (v *GaugeVec) Delete(values ...string) { v.delete(values...) }

// Each calls fn for every child.
func (v *GaugeVec) Each(fn func(values []string, g *Gauge)) { v.each(fn) }

// Labels are the label names.
func (v *GaugeVec) Labels() []string { return v.labels }

// HistogramVec is a family of histograms with labels and shared bounds.
type HistogramVec struct{ vec[Histogram] }

// NewHistogramVec returns a histogram family.
func NewHistogramVec(bounds []float64, labels ...string) *HistogramVec {
	return &HistogramVec{vec[Histogram]{labels: labels, mk: func() *Histogram { return NewHistogram(bounds) }}}
}

// With returns the child for the label values.
func (v *HistogramVec) With(values ...string) *Histogram { return v.with(values...) }

// Each calls fn for every child.
func (v *HistogramVec) Each(fn func(values []string, h *Histogram)) { v.each(fn) }

// Labels are the label names.
func (v *HistogramVec) Labels() []string { return v.labels }
