package observe

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/lakesql/lakesql/internal/metrics"
)

// Collector exports internal/metrics as Prometheus metrics.
type Collector struct {
	ms    []metrics.Metric
	descs []*prometheus.Desc
}

var _ prometheus.Collector = (*Collector)(nil)

// NewCollector describes every metric of metrics.All.
func NewCollector() *Collector {
	c := &Collector{ms: metrics.All()}
	for _, m := range c.ms {
		c.descs = append(c.descs, prometheus.NewDesc(m.Name, m.Help, labelsOf(m.Value), nil))
	}
	return c
}

func labelsOf(v any) []string {
	switch x := v.(type) {
	case *metrics.CounterVec:
		return x.Labels()
	case *metrics.GaugeVec:
		return x.Labels()
	case *metrics.HistogramVec:
		return x.Labels()
	}
	return nil
}

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

// Collect implements prometheus.Collector: it reads every value.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	for i, m := range c.ms {
		d := c.descs[i]
		switch x := m.Value.(type) {
		case *metrics.Counter:
			ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(x.Load()))
		case *metrics.Gauge:
			ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, float64(x.Load()))
		case *metrics.Histogram:
			ch <- histogram(d, x.Snapshot())
		case *metrics.CounterVec:
			x.Each(func(l []string, v *metrics.Counter) {
				ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v.Load()), l...)
			})
		case *metrics.GaugeVec:
			x.Each(func(l []string, v *metrics.Gauge) {
				ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, float64(v.Load()), l...)
			})
		case *metrics.HistogramVec:
			x.Each(func(l []string, v *metrics.Histogram) { ch <- histogram(d, v.Snapshot(), l...) })
		}
	}
}

func histogram(d *prometheus.Desc, s metrics.HistogramSnapshot, labels ...string) prometheus.Metric {
	buckets := make(map[float64]uint64, len(s.Bounds))
	for i, b := range s.Bounds {
		buckets[b] = s.Buckets[i]
	}
	return prometheus.MustNewConstHistogram(d, s.Count, s.Sum, buckets, labels...)
}

// NewRegistry is a registry with lakesql's metrics and the Go runtime's
// and process's standard collectors.
func NewRegistry() *prometheus.Registry {
	r := prometheus.NewRegistry()
	r.MustRegister(NewCollector(), collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return r
}
