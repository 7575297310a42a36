package snapshot

import (
	"context"
	"fmt"
	"time"

	"github.com/lakesql/lakesql/internal/storage"
)

// Expire deletes the consumers not updated since olderThan (Java:
// ConsumerManager.expire, for consumer.expiration-time), so a reader that
// went away stops holding snapshots back. It returns how many it deleted.
func (m *ConsumerManager) Expire(ctx context.Context, olderThan time.Time) (int, error) {
	var stale []string
	err := listNames(ctx, m.st, m.dir, consumerPrefix, func(name string, info storage.ObjectInfo) {
		if _, ok := ParseConsumerFileName(name); ok && info.ModTime.Before(olderThan) {
			stale = append(stale, info.Path)
		}
	})
	if err != nil {
		return 0, fmt.Errorf("snapshot: list consumers of branch %s: %w", m.branch, err)
	}
	n := 0
	for _, p := range stale {
		if err := m.st.Delete(ctx, p); err == nil {
			n++
		} else if !isNotExist(err) {
			return n, fmt.Errorf("snapshot: expire consumer %s: %w", p, err)
		}
	}
	return n, nil
}
