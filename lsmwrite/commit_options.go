package lsmwrite

import (
	"fmt"
	"time"

	"github.com/lakesql/lakesql/internal/schema"
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
