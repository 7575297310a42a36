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

// writeHintOf writes a hint naming snapshot id, then takes it back when
// the snapshot is gone by then: the table was dropped while the hint was
// written (a drop's sweep lists the folder once; a hint written after its
// listing would stay in the dropped table's folder).
func (m *SnapshotManager) writeHintOf(ctx context.Context, hint string, id SnapshotID) error {
	if err := m.writeHint(ctx, hint, id); err != nil {
		return err
	}
	if ok, err := m.Exists(ctx, id); err == nil && !ok {
		return m.deleteHint(context.WithoutCancel(ctx), hint)
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
