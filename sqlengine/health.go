package sqlengine

import (
	"context"
	"errors"
	"fmt"
)

// Ready reports whether the server can serve statements (the /readyz
// probe): it has started accepting connections, is not shutting down, and
// its warehouse answers a listing.
func (s *Server) Ready(ctx context.Context) error {
	if !s.started.Load() {
		return errors.New("not accepting connections yet")
	}
	if s.drain.isClosing() {
		return errors.New("shutting down")
	}
	for _, err := range s.store.List(ctx, "") {
		if err != nil {
			return fmt.Errorf("warehouse %s: %w", s.store.URL(), err)
		}
		break
	}
	return nil
}

// isClosing reports whether Shutdown has begun.
func (d *drain) isClosing() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.closing
}
