package schema

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// CheckOptions checks the table options of a schema as they are set (CREATE
// TABLE, ALTER TABLE … SET): every typed option must parse (Core) and lie in
// the range Paimon gives it, enumerations must name one of their values, and
// the per-field options (fields.<col>.<suffix>) must name columns of the
// schema and, for aggregate-function, a known function. Unknown keys are
// accepted, as Paimon keeps them. It is not applied to tables read from
// storage (a table written elsewhere is read as it is).
//
// Every error wraps ErrInvalidOptionValue (which wraps ErrInvalidOption) and
// names the option, the value and what is allowed.
func (s *TableSchema) CheckOptions() error {
	o := s.Options
	var errs []error
	if _, err := o.Core(); err != nil {
		errs = append(errs, wrapValueErr(err))
	}
	errs = append(errs, o.checkMaintenance()...) // options_maintenance.go
	bad := func(key, why string) {
		errs = append(errs, &optionValueError{key: key, value: o[key], why: why})
	}
	intAtLeast := func(key string, lo int64) {
		v, ok := o[key]
		if !ok {
			return
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
		if err == nil && n < lo { // a value that does not parse is reported by Core
			bad(key, fmt.Sprintf("must be an integer from %d to %d", lo, math.MaxInt32))
		}
	}
	longAtLeast := func(key string, lo int64) {
		v, ok := o[key]
		if !ok {
			return
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err == nil && n < lo {
			bad(key, fmt.Sprintf("must be an integer of at least %d", lo))
		}
	}
	memoryAtLeast := func(key string, lo int64) {
		v, ok := o[key]
		if !ok {
			return
		}
		if n, err := ParseMemorySize(v); err == nil && n < lo {
			bad(key, fmt.Sprintf("must be a memory size of at least %d bytes (e.g. '128 mb')", lo))
		}
	}
	oneOf := func(key string, values ...string) {
		v, ok := o[key]
		if !ok {
			return
		}
		if !slices.Contains(values, strings.ToLower(strings.TrimSpace(v))) {
			bad(key, "must be one of "+strings.Join(values, ", "))
		}
	}
	statsMode := func(key string) {
		if v, ok := o[key]; ok && !validStatsMode(v) {
			bad(key, "must be one of none, counts, full, truncate(N) with N > 0")
		}
	}

	for _, k := range []string{OptNumSortedRunCompactionTrigger, OptNumSortedRunStopTrigger, OptNumLevels,
		OptSnapshotNumRetainedMin, OptSnapshotNumRetainedMax, OptSnapshotExpireLimit, OptFullCompactionDeltaCommits,
		OptCompactionMinFileNum} {
		intAtLeast(k, 1)
	}
	for _, k := range []string{OptWriteOnly, optWriteOnlyFallback, OptCompactionForceRewriteAllFiles, OptCompactionForceUpLevel0} {
		oneOf(k, "true", "false")
	}
	memoryAtLeast(OptSourceSplitOpenFileCost, 0)
	memoryAtLeast(OptSourceSplitTargetSize, 1)
	for _, k := range []string{OptCompactionMaxSizeAmplificationPercent, OptCompactionSizeRatio,
		OptManifestMergeMinCount, OptCommitMaxRetries} {
		intAtLeast(k, 0)
	}
	intAtLeast(OptFileCompressionZstdLevel, 1)
	if v, ok := o[OptFileCompressionZstdLevel]; ok {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 22 {
			bad(OptFileCompressionZstdLevel, "must be an integer from 1 to 22")
		}
	}
	longAtLeast(OptDynamicBucketTargetRowNum, 1)
	longAtLeast(OptFileIndexInManifestThreshold, 0)
	for _, k := range []string{OptTargetFileSize, OptWriteBufferSize, OptManifestTargetFileSize, OptDeletionVectorIndexFileTargetSize} {
		memoryAtLeast(k, 1)
	}
	if mn, err := o.SnapshotNumRetainedMin(); err == nil {
		if mx, err := o.SnapshotNumRetainedMax(); err == nil && mn >= 1 && mx >= 1 && mx < mn {
			bad(OptSnapshotNumRetainedMax, fmt.Sprintf("must not be less than %s (%d)", OptSnapshotNumRetainedMin, mn))
		}
	}
	if d, err := o.SnapshotTimeRetained(); err == nil && d <= 0 {
		if _, ok := o[OptSnapshotTimeRetained]; ok {
			bad(OptSnapshotTimeRetained, "must be a positive duration (e.g. '1 h', '30 min')")
		}
	}
	oneOf(OptFileFormat, "parquet", "orc", "avro")
	oneOf(OptManifestFormat, "avro", "orc", "parquet")
	// Parquet codecs (Paimon hands file.compression to the format writer).
	oneOf(OptFileCompression, "zstd", "snappy", "gzip", "lz4", "lz4_raw", "brotli", "lzo", "none", "uncompressed")
	oneOf(OptManifestCompression, "zstd", "snappy", "deflate", "none", "null")
	statsMode(OptMetadataStatsMode)

	// Per-field options name columns (SchemaValidation.validateFieldsPrefix).
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		rest, ok := strings.CutPrefix(k, optFieldsPrefix)
		if !ok || k == OptFieldsDefaultAggregateFunction {
			continue
		}
		dot := strings.LastIndex(rest, ".")
		if dot <= 0 {
			continue
		}
		names, suffix := rest[:dot], rest[dot+1:]
		switch suffix {
		case OptSuffixSequenceGroup:
			for _, n := range strings.Split(names, ",") {
				if s.FieldIndex(strings.TrimSpace(n)) < 0 {
					bad(k, fmt.Sprintf("sequence field %s is not a column of the table", n))
				}
			}
			for _, n := range splitList(o[k]) {
				if s.FieldIndex(strings.TrimSpace(n)) < 0 {
					bad(k, fmt.Sprintf("field %s is not a column of the table", n))
				}
			}
		case OptSuffixAggregateFunction, OptSuffixIgnoreRetract, OptSuffixListAggDelimiter, OptSuffixDistinct,
			optSuffixStatsMode, "nested-key", "count-limit":
			if s.FieldIndex(names) < 0 {
				bad(k, fmt.Sprintf("%s is not a column of the table", names))
				continue
			}
			switch suffix {
			case OptSuffixAggregateFunction:
				if !slices.Contains(AggregateFunctions, strings.TrimSpace(o[k])) {
					bad(k, "must be one of "+strings.Join(AggregateFunctions, ", "))
				}
			case OptSuffixIgnoreRetract, OptSuffixDistinct:
				oneOf(k, "true", "false")
			case optSuffixStatsMode:
				statsMode(k)
			}
		}
	}
	if v, ok := o[OptFieldsDefaultAggregateFunction]; ok && !slices.Contains(AggregateFunctions, strings.TrimSpace(v)) {
		bad(OptFieldsDefaultAggregateFunction, "must be one of "+strings.Join(AggregateFunctions, ", "))
	}
	return errors.Join(errs...)
}

// AggregateFunctions are the identifiers of Paimon's field aggregators
// (FieldAggregatorFactory implementations) that the aggregation and
// partial-update merge engines read.
var AggregateFunctions = []string{"sum", "product", "max", "min", "last_value", "last_non_null_value",
	"first_value", "first_non_null_value", "first_not_null_value", "listagg", "bool_and", "bool_or",
	"collect", "merge_map", "primary-key", "nested_update", "rbm32", "rbm64", "hll_sketch", "theta_sketch"}

// validStatsMode reports whether s is none, counts, full or truncate(N>0).
func validStatsMode(s string) bool {
	t := strings.ToLower(strings.TrimSpace(s))
	switch t {
	case "none", "counts", "full":
		return true
	}
	if inner, ok := strings.CutPrefix(t, "truncate("); ok {
		if inner, ok = strings.CutSuffix(inner, ")"); ok {
			n, err := strconv.Atoi(inner)
			return err == nil && n > 0
		}
	}
	return false
}

// optionValueError is a bad value of one option.
type optionValueError struct{ key, value, why string }

func (e *optionValueError) Error() string {
	return fmt.Sprintf("option '%s' can't be set to the value of '%s': %s", e.key, e.value, e.why)
}
func (e *optionValueError) Unwrap() error { return ErrInvalidOptionValue }

// valueErr re-wraps an ErrInvalidOption error of Core as an
// ErrInvalidOptionValue error, keeping its message.
type valueErr struct{ err error }

func (e valueErr) Error() string { return e.err.Error() }
func (e valueErr) Unwrap() []error {
	return []error{ErrInvalidOptionValue, e.err}
}

func wrapValueErr(err error) error { return valueErr{err} }
