package lsmwrite

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/snapshot"
)

// DropPartitions commits one OVERWRITE snapshot that deletes every data
// and index file of the partitions (serialized partition rows) on the
// handle's branch (Java: FileStoreCommit.dropPartitions, used by partition
// expiration). The files themselves go when the snapshot before it
// expires.
func DropPartitions(ctx context.Context, tbl *snapshot.Table, ts *schema.TableSchema, partitions [][]byte) (*snapshot.Snapshot, error) {
	if len(partitions) == 0 {
		return nil, fmt.Errorf("lsmwrite: drop partitions: no partition given")
	}
	core, err := ts.Options.Core()
	if err != nil {
		return nil, err
	}
	fields := ts.PartitionFields()
	partTypes := make([]schema.DataType, len(fields))
	for i, f := range fields {
		partTypes[i] = f.Type
	}
	co, err := commitOptions(core, tbl.BranchName(), partTypes, nil, nil, !ts.IsPrimaryKeyTable() && core.Bucket <= 0)
	if err != nil {
		return nil, err
	}
	return snapshot.NewCommitter(tbl.Storage(), co).Commit(ctx, ts.ID, &snapshot.CommitChanges{
		Kind:                snapshot.CommitKindOverwrite,
		OverwritePartitions: partitions,
		CommitUser:          uuid.NewString(),
		CommitIdentifier:    snapshot.BatchCommitIdentifier,
	})
}
