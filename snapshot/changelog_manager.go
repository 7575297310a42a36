package snapshot

import (
	"context"
	"fmt"

	"github.com/lakesql/lakesql/internal/storage"
)

// ChangelogManager reads and writes the long-lived changelogs of one branch
// (Java: org.apache.paimon.utils.ChangelogManager), changelog/changelog-<id>
// with LATEST and EARLIEST hints. A changelog file is the JSON of the
// expired snapshot it keeps (Java's Changelog extends Snapshot), written by
// snapshot expiration when the changelog outlives the snapshots
// (ExpireConfig.ChangelogDecoupled). It has the SnapshotManager's reads
// (LatestID, EarliestID, Snapshot, List) over that directory.
type ChangelogManager struct {
	*SnapshotManager
}

// Changelog file names (Java: ChangelogManager.CHANGELOG_PREFIX).
const (
	changelogDirName = "changelog"
	changelogPrefix  = "changelog-"
)

// ChangelogDir is the long-lived changelog directory of a branch.
func ChangelogDir(branch string) string { return join(BranchDir(branch), changelogDirName) }

// NewChangelogManager returns the changelog manager of branch ("" or
// MainBranch for the main branch) of the table rooted at st.
func NewChangelogManager(st storage.Storage, branch string) *ChangelogManager {
	if IsMainBranch(branch) {
		branch = MainBranch
	}
	return &ChangelogManager{newSnapshotManager(st, branch, ChangelogDir(branch), changelogPrefix)}
}

// commit writes changelog-<id> from snapshot s and moves the LATEST hint
// (Java: ChangelogManager.commitChangelog + commitLongLivedChangelogLatestHint).
func (m *ChangelogManager) commit(ctx context.Context, s *Snapshot) error {
	data, err := EncodeSnapshot(s)
	if err != nil {
		return err
	}
	if err := m.st.WriteAll(ctx, m.Path(s.ID), data); err != nil {
		return fmt.Errorf("snapshot: write changelog %d: %w", s.ID, err)
	}
	return m.writeHint(ctx, LatestHint, s.ID)
}
