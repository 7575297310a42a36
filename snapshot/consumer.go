package snapshot

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/lakesql/lakesql/internal/jackson"
	"github.com/lakesql/lakesql/internal/storage"
)

// Consumer mirrors org.apache.paimon.consumer.Consumer, the JSON file
// consumer/consumer-<id>: {"nextSnapshot" : N}. Expiration never deletes
// snapshots at or after the smallest NextSnapshot of all consumers.
type Consumer struct {
	// ID is the consumer id (from the file name; not part of the JSON).
	ID string
	// NextSnapshot is the next snapshot the consumer will read.
	NextSnapshot SnapshotID
}

// DecodeConsumer parses a consumer file. Errors wrap ErrCorrupt.
func DecodeConsumer(data []byte) (*Consumer, error) {
	root, err := jackson.Parse(data, jackson.Lenient)
	if err != nil {
		return nil, fmt.Errorf("%w: consumer: %v", ErrCorrupt, err)
	}
	if root.Kind != jackson.Object {
		return nil, fmt.Errorf("%w: consumer: want a JSON object, got %s", ErrCorrupt, root.Kind)
	}
	c := &Consumer{}
	found := false
	for i := range root.Members {
		m := &root.Members[i]
		if m.Key != "nextSnapshot" {
			continue // Java ignores unknown properties
		}
		n, err := fieldInt64(m.Key, &m.Value)
		if err != nil {
			return nil, fmt.Errorf("%w: consumer: %v", ErrCorrupt, err)
		}
		c.NextSnapshot = SnapshotID(n)
		found = true
	}
	if !found {
		return nil, fmt.Errorf("%w: consumer: missing field \"nextSnapshot\"", ErrCorrupt)
	}
	return c, nil
}

// EncodeConsumer renders c as Java writes it.
func EncodeConsumer(c *Consumer) []byte {
	w := jackson.New()
	w.BeginObject()
	w.Field("nextSnapshot")
	w.Int(int64(c.NextSnapshot))
	w.EndObject()
	return w.Bytes()
}

// ConsumerManager reads the consumers of one branch (Java:
// org.apache.paimon.consumer.ConsumerManager). Safe for concurrent use.
type ConsumerManager struct {
	st     storage.Storage
	branch string
	dir    string
}

// NewConsumerManager returns the consumer manager of branch ("" or
// MainBranch for the main branch) of the table rooted at st.
func NewConsumerManager(st storage.Storage, branch string) *ConsumerManager {
	if IsMainBranch(branch) {
		branch = MainBranch
	}
	return &ConsumerManager{st: st, branch: branch, dir: ConsumerDir(branch)}
}

// Consumer reads consumer id; a missing one gives an error wrapping
// ErrConsumerNotFound.
func (m *ConsumerManager) Consumer(ctx context.Context, id string) (*Consumer, error) {
	if id == "" || strings.Contains(id, "/") {
		return nil, fmt.Errorf("%w: consumer id %q", ErrInvalidName, id)
	}
	p := join(m.dir, ConsumerFileName(id))
	data, err := m.st.ReadAll(ctx, p)
	if errors.Is(err, storage.ErrNotExist) {
		return nil, fmt.Errorf("%w: consumer %q of branch %s", ErrConsumerNotFound, id, m.branch)
	}
	if err != nil {
		return nil, fmt.Errorf("snapshot: read %s: %w", p, err)
	}
	c, err := DecodeConsumer(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	c.ID = id
	return c, nil
}

// List reads every consumer, sorted by id.
func (m *ConsumerManager) List(ctx context.Context) ([]*Consumer, error) {
	var ids []string
	err := listNames(ctx, m.st, m.dir, consumerPrefix, func(name string, _ storage.ObjectInfo) {
		if id, ok := ParseConsumerFileName(name); ok {
			ids = append(ids, id)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("snapshot: list consumers of branch %s: %w", m.branch, err)
	}
	slices.Sort(ids)
	out := make([]*Consumer, 0, len(ids))
	for _, id := range ids {
		c, err := m.Consumer(ctx, id)
		if errors.Is(err, ErrConsumerNotFound) {
			continue // deleted since listing
		}
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// MinNextSnapshot returns the smallest NextSnapshot of all consumers; ok is
// false when there is no consumer.
func (m *ConsumerManager) MinNextSnapshot(ctx context.Context) (id SnapshotID, ok bool, err error) {
	cs, err := m.List(ctx)
	if err != nil {
		return 0, false, err
	}
	for _, c := range cs {
		if !ok || c.NextSnapshot < id {
			id, ok = c.NextSnapshot, true
		}
	}
	return id, ok, nil
}
