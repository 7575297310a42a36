package observe_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lakesql/lakesql/internal/metrics"
	"github.com/lakesql/lakesql/sqlengine/observe"
)

// TestCollectorExports: every metric of internal/metrics is exported under
// its name with its labels, counters, gauges and histograms with their
// values.
func TestCollectorExports(t *testing.T) {
	r := prometheus.NewRegistry()
	r.MustRegister(observe.NewCollector())
	metrics.QueryErrors.With("9999").Add(3)
	metrics.QueryDuration.With("observe-test").Observe(0.002)
	metrics.QueryDuration.With("observe-test").Observe(7)
	metrics.WriteBufferBytes.Add(5)
	defer metrics.WriteBufferBytes.Add(-5)
	fams, err := r.Gather()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]bool{}
	for _, f := range fams {
		byName[f.GetName()] = true
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			switch {
			case f.GetName() == "lakesql_query_errors_total" && labels["code"] == "9999":
				if m.GetCounter().GetValue() != 3 {
					t.Errorf("errors{code=9999} = %v", m.GetCounter().GetValue())
				}
			case f.GetName() == "lakesql_query_duration_seconds" && labels["kind"] == "observe-test":
				h := m.GetHistogram()
				if h.GetSampleCount() != 2 || h.GetSampleSum() != 7.002 {
					t.Errorf("histogram count %d sum %v", h.GetSampleCount(), h.GetSampleSum())
				}
				for _, b := range h.GetBucket() {
					want := uint64(0)
					if b.GetUpperBound() >= 0.002 {
						want = 1
					}
					if b.GetUpperBound() >= 7 {
						want = 2
					}
					if b.GetCumulativeCount() != want {
						t.Errorf("bucket le=%v: %d, want %d", b.GetUpperBound(), b.GetCumulativeCount(), want)
					}
				}
			case f.GetName() == "lakesql_write_buffer_bytes":
				if m.GetGauge().GetValue() < 5 {
					t.Errorf("write buffer gauge %v", m.GetGauge().GetValue())
				}
			}
		}
	}
	for _, m := range metrics.All() {
		_, vec := m.Value.(interface{ Labels() []string })
		if !byName[m.Name] && !vec { // label families appear once a child exists
			t.Errorf("%s is not exported", m.Name)
		}
	}
}

// TestProbes: /healthz always answers; /readyz follows the probe.
func TestProbes(t *testing.T) {
	var ready atomic.Bool
	s, err := observe.Listen("127.0.0.1:0", func(context.Context) error {
		if !ready.Load() {
			return errors.New("warming up")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	get := func(path string) (int, string) {
		resp, err := http.Get("http://" + s.Addr() + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/healthz"); code != 200 || body != "ok\n" {
		t.Errorf("/healthz %d %q", code, body)
	}
	if code, body := get("/readyz"); code != 503 || !strings.Contains(body, "warming up") {
		t.Errorf("/readyz not ready: %d %q", code, body)
	}
	ready.Store(true)
	if code, _ := get("/readyz"); code != 200 {
		t.Errorf("/readyz ready: %d", code)
	}
	if code, body := get("/metrics"); code != 200 || !bytes.Contains([]byte(body), []byte("lakesql_connections_open")) {
		t.Errorf("/metrics: %d", code)
	}
}
