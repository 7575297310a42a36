package lsmwrite

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// commitOptions configures snapshot.Committer from a table's options
// (manifest codec and sizes, commit.max-retries) for writes and compactions
// alike. keyTypes (trimmed primary key) turn on the LSM key-range check.
func commitOptions(core *schema.CoreOptions, branch string, partTypes, keyTypes []schema.DataType,
	now func() time.Time, bucketUnaware bool) (snapshot.CommitOptions, error) {
	codec, err := manifest.CodecForCompression(core.ManifestCompression)
	if err != nil {
		return snapshot.CommitOptions{}, fmt.Errorf("lsmwrite: %w", err)
	}
	retries := core.CommitMaxRetries
	if retries == 0 {
		retries = -1 // commit.max-retries=0: no retry (0 means the default to the committer)
	}
	if partTypes == nil {
		partTypes = []schema.DataType{}
	}
	return snapshot.CommitOptions{
		Branch:                     branch,
		PartitionTypes:             partTypes,
		KeyTypes:                   keyTypes,
		ManifestCodec:              codec,
		MaxRetries:                 retries,
		ManifestTargetSize:         core.ManifestTargetFileSize,
		ManifestMergeMinCount:      core.ManifestMergeMinCount,
		ManifestFullCompactionSize: core.ManifestFullCompactionThresholdSize,
		Now:                        now,
		BucketUnaware:              bucketUnaware,
	}, nil
}

// abandonFailed takes back the files of a failed commit (abort) when no
// snapshot can reference them: after a conflict, when the table was
// dropped while the commit ran (snapshot.ErrTableDropped), and after any
// other error (a canceled statement, a storage error whose publish may or
// may not have happened) when the table's schema is gone by now: a DROP
// TABLE ran meanwhile, and files written after it listed the folder would
// stay behind. A dropped table's folders left empty go too (local
// storage). It says whether it aborted.
func abandonFailed(ctx context.Context, st storage.Storage, branch string, id schema.SchemaID, err error, abort func()) bool {
	gone := errors.Is(err, snapshot.ErrTableDropped)
	if !gone && !errors.Is(err, snapshot.ErrConflict) {
		ok, xerr := st.Exists(context.WithoutCancel(ctx), snapshot.NewSchemaManager(st, branch).Path(id))
		if xerr != nil || ok {
			return false
		}
		gone = true
	}
	abort()
	if r, ok := st.(storage.EmptyDirRemover); gone && ok {
		_ = r.RemoveEmptyDirs(context.WithoutCancel(ctx), "")
	}
	return true
}
