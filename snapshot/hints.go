package snapshot

import (
	"context"
	"fmt"

	"github.com/lakesql/lakesql/internal/storage"
)

// writeHint writes a hint file of the branch's snapshot directory (Java:
// HintFileUtils.commitHint: the decimal id, no newline).
func (m *SnapshotManager) writeHint(ctx context.Context, hint string, id SnapshotID) error {
	if err := storage.WriteAllVolatile(ctx, m.st, join(m.dir, hint), []byte(id.String())); err != nil {
		return fmt.Errorf("snapshot: write hint %s: %w", join(m.dir, hint), err)
	}
	return nil
}

// deleteHint removes a hint file; a missing one is fine.
func (m *SnapshotManager) deleteHint(ctx context.Context, hint string) error {
	if err := m.st.Delete(ctx, join(m.dir, hint)); err != nil && !isNotExist(err) {
		return fmt.Errorf("snapshot: delete hint %s: %w", join(m.dir, hint), err)
	}
	return nil
}
