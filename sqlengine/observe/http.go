package observe

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Probe reports whether the server can serve: nil when ready, else why
// not. It must return within the context's deadline.
type Probe func(ctx context.Context) error

// probeTimeout bounds one readiness check.
const probeTimeout = 5 * time.Second

// HTTPServer serves /metrics, /healthz and /readyz.
type HTTPServer struct {
	srv *http.Server
	ln  net.Listener
}

// Handler is the endpoint's handler:
//
//   - /metrics: every lakesql metric, plus the Go runtime's and process's;
//   - /healthz: 200 "ok" while the process runs (liveness);
//   - /readyz: 200 "ready" when ready returns nil, else 503 with its
//     reason (not listening yet, shutting down, warehouse unreachable).
func Handler(ready Probe) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(NewRegistry(), promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		ctx, cancel := context.WithTimeout(r.Context(), probeTimeout)
		defer cancel()
		if err := ready(ctx); err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintln(w, "not ready:", err)
			return
		}
		fmt.Fprintln(w, "ready")
	})
	return mux
}

// Listen binds addr (host:port; port 0 picks one) and serves Handler(ready)
// on it until Close.
func Listen(addr string, ready Probe) (*HTTPServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("observe: metrics address %s: %w", addr, err)
	}
	s := &HTTPServer{ln: ln, srv: &http.Server{Handler: Handler(ready), ReadHeaderTimeout: 10 * time.Second}}
	go func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			slog.Error("metrics endpoint stopped", "addr", addr, "err", err)
		}
	}()
	return s, nil
}

// Addr is the bound address.
func (s *HTTPServer) Addr() string { return s.ln.Addr().String() }

// Close stops serving.
func (s *HTTPServer) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return s.srv.Shutdown(ctx)
}
