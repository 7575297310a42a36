package schema_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/schema"
)

func TestOptionDefaults(t *testing.T) {
	c, err := schema.Options{}.Core()
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"bucket", c.Bucket, -1},
		{"merge-engine", c.MergeEngine, schema.MergeEngineDeduplicate},
		{"ignore-delete", c.IgnoreDelete, false},
		{"sort-order", c.SequenceFieldSortOrder, schema.SortOrderAscending},
		{"changelog-producer", c.ChangelogProducer, schema.ChangelogProducerNone},
		{"trigger", c.NumSortedRunCompactionTrigger, 5},
		{"stop", c.NumSortedRunStopTrigger, 8},
		{"levels", c.NumLevels, 6},
		{"amplification", c.CompactionMaxSizeAmplificationPercent, 200},
		{"size-ratio", c.CompactionSizeRatio, 1},
		{"target pk", c.TargetFileSize(true), int64(128 << 20)},
		{"target append", c.TargetFileSize(false), int64(256 << 20)},
		{"write buffer", c.WriteBufferSize, int64(256 << 20)},
		{"format", c.FileFormat, "parquet"},
		{"compression", c.FileCompression, "zstd"},
		{"zstd level", c.FileCompressionZstdLevel, 1},
		{"manifest format", c.ManifestFormat, "avro"},
		{"manifest compression", c.ManifestCompression, "zstd"},
		{"manifest size", c.ManifestTargetFileSize, int64(8 << 20)},
		{"merge min", c.ManifestMergeMinCount, 30},
		{"retain min", c.SnapshotNumRetainedMin, 10},
		{"retain max", c.SnapshotNumRetainedMax, 2147483647},
		{"time retained", c.SnapshotTimeRetained, time.Hour},
		{"expire limit", c.SnapshotExpireLimit, 50},
		{"default partition", c.PartitionDefaultName, "__DEFAULT_PARTITION__"},
		{"legacy name", c.PartitionLegacyName, true},
		{"stats mode", c.MetadataStatsMode, "truncate(16)"},
		{"dense", c.MetadataStatsDenseStore, true},
		{"retries", c.CommitMaxRetries, 10},
		{"row num", c.DynamicBucketTargetRowNum, int64(2_000_000)},
		{"data prefix", c.DataFilePrefix, "data-"},
		{"changelog prefix", c.ChangelogFilePrefix, "changelog-"},
		{"in-manifest", c.FileIndexInManifestThreshold, int64(500)},
		{"delta commits set", c.HasFullCompactionDeltaCommits, false},
		{"fallback", c.ScanFallbackBranch, ""},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("%s: got %v want %v", ch.name, ch.got, ch.want)
		}
	}
}

func TestOptionValues(t *testing.T) {
	o := schema.Options{
		"bucket":                            "4",
		"merge-engine":                      "Partial-Update",
		"partial-update.ignore-delete":      "true",
		"sequence.field":                    "s0,s1",
		"changelog-producer":                "lookup",
		"num-sorted-run.compaction-trigger": "10",
		"num-sorted-run.stop-trigger":       "7",
		"target-file-size":                  "64 mb",
		"write-buffer-size":                 "1gb",
		"snapshot.time-retained":            "30 min",
		"file-index.in-manifest-threshold":  "1B",
		"fields.v.aggregate-function":       "sum",
		"fields.default-aggregate-function": "last_value",
		"fields.v.ignore-retract":           "TRUE",
		"fields.s0,s1.sequence-group":       "a,b",
		"fields.x.stats-mode":               "full",
		"full-compaction.delta-commits":     "3",
		"scan.fallback-branch":              "rt",
		"some.unknown.option":               "kept",
	}
	c, err := o.Core()
	if err != nil {
		t.Fatal(err)
	}
	if c.Bucket != 4 || c.MergeEngine != schema.MergeEnginePartialUpdate || !c.IgnoreDelete ||
		strings.Join(c.SequenceField, "|") != "s0|s1" || c.ChangelogProducer != schema.ChangelogProducerLookup {
		t.Errorf("core %+v", c)
	}
	if c.NumSortedRunStopTrigger != 10 { // never below the compaction trigger
		t.Errorf("stop trigger %d", c.NumSortedRunStopTrigger)
	}
	if c.NumLevels != 11 || c.TargetFileSize(true) != 64<<20 || c.WriteBufferSize != 1<<30 ||
		c.SnapshotTimeRetained != 30*time.Minute || c.FileIndexInManifestThreshold != 1 {
		t.Errorf("core %+v", c)
	}
	if !c.HasFullCompactionDeltaCommits || c.FullCompactionDeltaCommits != 3 || c.ScanFallbackBranch != "rt" {
		t.Errorf("core %+v", c)
	}
	if f, ok := o.FieldAggregateFunction("v"); !ok || f != "sum" {
		t.Errorf("agg v = %s", f)
	}
	if f, ok := o.FieldAggregateFunction("w"); !ok || f != "last_value" {
		t.Errorf("agg w = %s", f)
	}
	if r, err := o.FieldIgnoreRetract("v"); err != nil || !r {
		t.Errorf("ignore-retract %v %v", r, err)
	}
	if o.FieldListAggDelimiter("v") != "," || o.FieldStatsMode("x") != "full" || o.FieldStatsMode("y") != "truncate(16)" {
		t.Error("per-field defaults")
	}
	groups := o.SequenceGroups()
	if len(groups) != 1 || strings.Join(groups[0].SequenceFields, ",") != "s0,s1" || strings.Join(groups[0].Fields, ",") != "a,b" {
		t.Errorf("sequence groups %+v", groups)
	}
	if o["some.unknown.option"] != "kept" {
		t.Error("unknown options are kept")
	}
}

func TestOptionErrors(t *testing.T) {
	o := schema.Options{"bucket": "two", "merge-engine": "nope", "write-buffer-size": "12 parsecs",
		"snapshot.time-retained": "forever", "deletion-vectors.enabled": "yes"}
	_, err := o.Core()
	if !errors.Is(err, schema.ErrInvalidOption) {
		t.Fatalf("expected ErrInvalidOption, got %v", err)
	}
	for _, want := range []string{`"bucket" = "two"`, `"merge-engine" = "nope"`, `"write-buffer-size" = "12 parsecs"`,
		`"snapshot.time-retained" = "forever"`, `"deletion-vectors.enabled" = "yes"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
	if _, err := o.Bucket(); !errors.Is(err, schema.ErrInvalidOption) {
		t.Error("Bucket error")
	}
}

func TestParseMemorySize(t *testing.T) {
	for in, want := range map[string]int64{"128 mb": 128 << 20, "256MB": 256 << 20, "1 gb": 1 << 30, "2kb": 2048,
		"1024": 1024, "500 B": 500, "3 bytes": 3, "1t": 1 << 40, " 7 k ": 7 << 10, "1 mebibytes": 1 << 20} {
		got, err := schema.ParseMemorySize(in)
		if err != nil || got != want {
			t.Errorf("%q: %d %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "mb", "-1", "1 pb", "99999999999999999999", "9999999999 tb"} {
		if _, err := schema.ParseMemorySize(bad); err == nil {
			t.Errorf("%q: expected an error", bad)
		}
	}
}

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{"1 h": time.Hour, "30 min": 30 * time.Minute, "10 s": 10 * time.Second,
		"1000 ms": time.Second, "1d": 24 * time.Hour, "5": 5 * time.Millisecond, "2 days": 48 * time.Hour,
		"3 HOURS": 3 * time.Hour, "1m": time.Minute, "7 ns": 7} {
		got, err := schema.ParseDuration(in)
		if err != nil || got != want {
			t.Errorf("%q: %v %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "h", "1 fortnight", "-5 s", "9999999999999 d"} {
		if _, err := schema.ParseDuration(bad); err == nil {
			t.Errorf("%q: expected an error", bad)
		}
	}
}

func TestFixtureOptionsParse(t *testing.T) {
	for _, f := range fixtureSchemaFiles(t) {
		s := decodeFile(t, f)
		if _, err := s.Options.Core(); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
