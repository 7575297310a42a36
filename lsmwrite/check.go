package lsmwrite

import (
	"errors"
	"fmt"
	"strings"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/schema"
)

// Option keys read here that internal/schema does not name.
const (
	optRowKindField            = "rowkind.field"
	optIgnoreUpdateBefore      = "ignore-update-before"
	optDataFileExternalPaths   = "data-file.external-paths"
	optDataFilePathDirectory   = "data-file.path-directory"
	optStatsKeepFirstNColumns  = "metadata.stats-keep-first-n-columns"
	optFileSuffixIncludeCompr  = "file.suffix.include.compression"
	optChangelogFileFormat     = "changelog-file.format"
	optFileFormatPerLevel      = "file.format.per.level"
	optDynamicBucketMaxBuckets = "dynamic-bucket.max-buckets"
)

func needsCompaction(option, value string) error {
	return fmt.Errorf("%w: table option %s=%s needs compaction, which lakesql does not do yet", ErrUnsupported, option, value)
}

// CheckWritable reports the table features lakesql cannot write yet, each as
// an error naming the option (errors.Is ErrUnsupported), joined. Invalid
// option values are reported too (wrapping schema.ErrInvalidOption).
func CheckWritable(sch *schema.TableSchema) error {
	if sch == nil {
		return errors.New("lsmwrite: nil table schema")
	}
	core, err := sch.Options.Core()
	if err != nil {
		return err
	}
	var errs []error
	add := func(err error) { errs = append(errs, err) }
	opts := sch.Options
	pk := sch.IsPrimaryKeyTable()

	if pk && core.MergeEngine == schema.MergeEngineFirstRow && core.DeletionVectorsEnabled {
		// Java KeyValueFileStoreWrite refuses it too.
		add(fmt.Errorf("%w: table option %s=true with merge-engine=first-row: the first-row merge engine does not need deletion vectors (it never deletes old data); Paimon refuses the combination as well",
			ErrUnsupported, schema.OptDeletionVectorsEnabled))
	}
	if core.HasFullCompactionDeltaCommits && !pk && core.Bucket <= 0 {
		// Java SchemaValidation.validateBucket refuses it too.
		add(fmt.Errorf("%w: table option %s: append tables of unaware or dynamic bucket do not support it (Paimon refuses it as well); set a bucket count and bucket-key",
			ErrUnsupported, schema.OptFullCompactionDeltaCommits))
	}
	if core.Bucket == schema.BucketPostpone {
		add(fmt.Errorf("%w: table option bucket=-2 (postpone bucket) needs compaction, which lakesql does not do yet", ErrUnsupported))
	} else if core.Bucket == 0 || core.Bucket < schema.BucketPostpone {
		add(fmt.Errorf("%w: table option bucket=%d is not a valid bucket count", ErrUnsupported, core.Bucket))
	}
	if !strings.EqualFold(core.FileFormat, "parquet") {
		add(fmt.Errorf("%w: table option file.format=%s: lakesql writes only parquet data files", ErrUnsupported, core.FileFormat))
	}
	if v, ok := opts[optChangelogFileFormat]; ok && !strings.EqualFold(v, "parquet") {
		add(fmt.Errorf("%w: table option %s=%s: lakesql writes only parquet data files", ErrUnsupported, optChangelogFileFormat, v))
	}
	if v, ok := opts[optFileFormatPerLevel]; ok && strings.TrimSpace(v) != "" {
		add(fmt.Errorf("%w: table option %s=%s", ErrUnsupported, optFileFormatPerLevel, v))
	}
	if !strings.EqualFold(core.ManifestFormat, "avro") {
		add(fmt.Errorf("%w: table option manifest.format=%s: lakesql writes only avro manifests", ErrUnsupported, core.ManifestFormat))
	}
	if pk && core.Bucket == schema.BucketDynamic && sch.CrossPartitionUpdate() {
		add(fmt.Errorf("%w: cross-partition upsert (primary key %v does not contain every partition key %v, with bucket=-1) needs a global key index, which lakesql does not maintain yet",
			ErrUnsupported, sch.PrimaryKeys, sch.PartitionKeys))
	}
	if !pk && core.Bucket > 0 && len(sch.BucketKeys()) == 0 {
		add(fmt.Errorf("%w: append table with bucket=%d needs the option bucket-key", ErrUnsupported, core.Bucket))
	}
	if core.DataFileThinMode {
		add(fmt.Errorf("%w: table option data-file.thin-mode=true", ErrUnsupported))
	}
	for _, k := range []string{optRowKindField, optDataFileExternalPaths, optDataFilePathDirectory} {
		if v, ok := opts[k]; ok && strings.TrimSpace(v) != "" {
			add(fmt.Errorf("%w: table option %s=%s", ErrUnsupported, k, v))
		}
	}
	if v, ok := opts[optFileSuffixIncludeCompr]; ok && strings.EqualFold(v, "true") {
		add(fmt.Errorf("%w: table option %s=true", ErrUnsupported, optFileSuffixIncludeCompr))
	}
	if _, err := binaryrow.ParseBucketFunctionType(opts[schema.OptBucketFunctionType]); err != nil {
		add(fmt.Errorf("%w: table option %s: %w", ErrUnsupported, schema.OptBucketFunctionType, err))
	}
	if _, err := parseStatsModes(sch); err != nil {
		add(err)
	}
	return errors.Join(errs...)
}
