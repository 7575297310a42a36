package schema

import (
	"time"
)

// Option keys of table maintenance: snapshot and changelog expiration,
// partition expiration, automatic tags (CoreOptions, 1.3.1).
const (
	OptChangelogNumRetainedMin          = "changelog.num-retained.min"
	OptChangelogNumRetainedMax          = "changelog.num-retained.max"
	OptChangelogTimeRetained            = "changelog.time-retained"
	OptConsumerExpirationTime           = "consumer.expiration-time"
	OptPartitionExpirationTime          = "partition.expiration-time"
	OptPartitionExpirationCheckInterval = "partition.expiration-check-interval"
	OptPartitionExpirationMaxNum        = "partition.expiration-max-num"
	OptPartitionExpirationStrategy      = "partition.expiration-strategy"
	OptPartitionTimestampFormatter      = "partition.timestamp-formatter"
	OptPartitionTimestampPattern        = "partition.timestamp-pattern"
	OptTagAutomaticCreation             = "tag.automatic-creation"
	OptTagCreationPeriod                = "tag.creation-period"
	OptTagCreationDelay                 = "tag.creation-delay"
	OptTagPeriodFormatter               = "tag.period-formatter"
	OptTagNumRetainedMax                = "tag.num-retained-max"
	OptTagDefaultTimeRetained           = "tag.default-time-retained"
	OptTagAutomaticCompletion           = "tag.automatic-completion"
	OptTagBatchCustomizedName           = "tag.batch.customized-name"
	OptTagCreationPeriodDuration        = "tag.creation-period-duration"
	OptSinkWatermarkTimeZone            = "sink.watermark-time-zone"
	OptSinkProcessTimeZone              = "sink.process-time-zone"
)

// Defaults of the maintenance options.
const (
	DefaultPartitionExpirationCheckInterval = time.Hour
	DefaultPartitionExpirationMaxNum        = 100
)

// TagCreationMode is "tag.automatic-creation".
type TagCreationMode string

const (
	TagCreationNone        TagCreationMode = "none"
	TagCreationProcessTime TagCreationMode = "process-time"
	TagCreationWatermark   TagCreationMode = "watermark"
	TagCreationBatch       TagCreationMode = "batch"
)

// TagCreationPeriod is "tag.creation-period".
type TagCreationPeriod string

const (
	TagPeriodDaily    TagCreationPeriod = "daily"
	TagPeriodHourly   TagCreationPeriod = "hourly"
	TagPeriodTwoHours TagCreationPeriod = "two-hours"
)

// TagPeriodFormatter is "tag.period-formatter".
type TagPeriodFormatter string

const (
	TagFormatWithDashes             TagPeriodFormatter = "with_dashes"
	TagFormatWithoutDashes          TagPeriodFormatter = "without_dashes"
	TagFormatWithoutDashesAndSpaces TagPeriodFormatter = "without_dashes_and_spaces"
)

// PartitionExpireStrategy is "partition.expiration-strategy".
type PartitionExpireStrategy string

const (
	PartitionExpireValuesTime PartitionExpireStrategy = "values-time"
	PartitionExpireUpdateTime PartitionExpireStrategy = "update-time"
	PartitionExpireCustom     PartitionExpireStrategy = "custom"
)

// MaintenanceOptions are the parsed maintenance options. Options Paimon
// leaves without a default are pointers (nil: unset).
type MaintenanceOptions struct {
	WriteOnly bool

	SnapshotNumRetainedMin, SnapshotNumRetainedMax int
	SnapshotTimeRetained                           time.Duration
	SnapshotExpireLimit                            int

	ChangelogNumRetainedMin, ChangelogNumRetainedMax *int
	ChangelogTimeRetained                            *time.Duration
	ConsumerExpirationTime                           *time.Duration

	PartitionExpirationTime          *time.Duration
	PartitionExpirationCheckInterval time.Duration
	PartitionExpirationMaxNum        int
	PartitionExpirationStrategy      PartitionExpireStrategy
	PartitionTimestampFormatter      *string
	PartitionTimestampPattern        *string

	TagAutomaticCreation      TagCreationMode
	TagCreationPeriod         TagCreationPeriod
	TagCreationDelay          time.Duration
	TagPeriodFormatter        TagPeriodFormatter
	TagNumRetainedMax         *int
	TagDefaultTimeRetained    *time.Duration
	TagAutomaticCompletion    bool
	TagBatchCustomizedName    *string
	TagCreationPeriodDuration *time.Duration
	// SinkWatermarkTimeZone (default UTC) and SinkProcessTimeZone (default
	// the server's zone, nil) read watermarks and commit times as wall-clock
	// times for automatic tags.
	SinkWatermarkTimeZone *time.Location
	SinkProcessTimeZone   *time.Location
}

// ChangelogRetainMin is changelog.num-retained.min, else the snapshot's
// (CoreOptions.changelogNumRetainMin).
func (m *MaintenanceOptions) ChangelogRetainMin() int {
	if m.ChangelogNumRetainedMin != nil {
		return *m.ChangelogNumRetainedMin
	}
	return m.SnapshotNumRetainedMin
}

// ChangelogRetainMax is changelog.num-retained.max, else the snapshot's.
func (m *MaintenanceOptions) ChangelogRetainMax() int {
	if m.ChangelogNumRetainedMax != nil {
		return *m.ChangelogNumRetainedMax
	}
	return m.SnapshotNumRetainedMax
}

// ChangelogRetainTime is changelog.time-retained, else the snapshot's.
func (m *MaintenanceOptions) ChangelogRetainTime() time.Duration {
	if m.ChangelogTimeRetained != nil {
		return *m.ChangelogTimeRetained
	}
	return m.SnapshotTimeRetained
}

// ChangelogDecoupled reports whether the changelog outlives the snapshots
// (CoreOptions.changelogLifecycleDecoupled).
func (m *MaintenanceOptions) ChangelogDecoupled() bool {
	return m.ChangelogRetainMax() > m.SnapshotNumRetainedMax ||
		m.ChangelogRetainTime() > m.SnapshotTimeRetained ||
		m.ChangelogRetainMin() > m.SnapshotNumRetainedMin
}

// Maintenance parses the maintenance options.
func (o Options) Maintenance() (MaintenanceOptions, error) {
	var m MaintenanceOptions
	var err error
	first := func(e error) {
		if err == nil {
			err = e
		}
	}
	optInt := func(key string) *int {
		n, ok, e := o.optInt(key)
		first(e)
		if !ok || e != nil {
			return nil
		}
		return &n
	}
	optDuration := func(key string) *time.Duration {
		if _, ok := o[key]; !ok {
			return nil
		}
		d, e := o.duration(key, 0)
		first(e)
		if e != nil {
			return nil
		}
		return &d
	}
	optString := func(key string) *string {
		v, ok := o[key]
		if !ok {
			return nil
		}
		return &v
	}
	var e error
	m.WriteOnly, e = o.WriteOnly()
	first(e)
	m.SnapshotNumRetainedMin, e = o.SnapshotNumRetainedMin()
	first(e)
	m.SnapshotNumRetainedMax, e = o.SnapshotNumRetainedMax()
	first(e)
	m.SnapshotTimeRetained, e = o.SnapshotTimeRetained()
	first(e)
	m.SnapshotExpireLimit, e = o.SnapshotExpireLimit()
	first(e)
	m.ChangelogNumRetainedMin = optInt(OptChangelogNumRetainedMin)
	m.ChangelogNumRetainedMax = optInt(OptChangelogNumRetainedMax)
	m.ChangelogTimeRetained = optDuration(OptChangelogTimeRetained)
	m.ConsumerExpirationTime = optDuration(OptConsumerExpirationTime)
	m.PartitionExpirationTime = optDuration(OptPartitionExpirationTime)
	m.PartitionExpirationCheckInterval, e = o.duration(OptPartitionExpirationCheckInterval, DefaultPartitionExpirationCheckInterval)
	first(e)
	m.PartitionExpirationMaxNum, e = o.int(OptPartitionExpirationMaxNum, DefaultPartitionExpirationMaxNum)
	first(e)
	m.PartitionExpirationStrategy, e = enumOption(o, OptPartitionExpirationStrategy, PartitionExpireValuesTime,
		PartitionExpireValuesTime, PartitionExpireUpdateTime, PartitionExpireCustom)
	first(e)
	m.PartitionTimestampFormatter = optString(OptPartitionTimestampFormatter)
	m.PartitionTimestampPattern = optString(OptPartitionTimestampPattern)
	m.TagAutomaticCreation, e = enumOption(o, OptTagAutomaticCreation, TagCreationNone,
		TagCreationNone, TagCreationProcessTime, TagCreationWatermark, TagCreationBatch)
	first(e)
	m.TagCreationPeriod, e = enumOption(o, OptTagCreationPeriod, TagPeriodDaily, TagPeriodDaily, TagPeriodHourly, TagPeriodTwoHours)
	first(e)
	m.TagCreationDelay, e = o.duration(OptTagCreationDelay, 0)
	first(e)
	m.TagPeriodFormatter, e = enumOption(o, OptTagPeriodFormatter, TagFormatWithDashes,
		TagFormatWithDashes, TagFormatWithoutDashes, TagFormatWithoutDashesAndSpaces)
	first(e)
	m.TagNumRetainedMax = optInt(OptTagNumRetainedMax)
	m.TagDefaultTimeRetained = optDuration(OptTagDefaultTimeRetained)
	m.TagAutomaticCompletion, e = o.bool(OptTagAutomaticCompletion, false)
	first(e)
	m.TagBatchCustomizedName = optString(OptTagBatchCustomizedName)
	m.TagCreationPeriodDuration = optDuration(OptTagCreationPeriodDuration)
	zone := func(key, def string) *time.Location {
		v, ok := o[key]
		if !ok {
			v = def
		}
		if v == "" {
			return nil
		}
		loc, e := time.LoadLocation(v)
		if e != nil {
			first(badOption(key, v, "not a time zone"))
			return nil
		}
		return loc
	}
	m.SinkWatermarkTimeZone = zone(OptSinkWatermarkTimeZone, "UTC")
	m.SinkProcessTimeZone = zone(OptSinkProcessTimeZone, "")
	return m, err
}

// checkMaintenance checks the maintenance options as they are set: they
// parse, counts are at least 1, and retention durations are positive.
func (o Options) checkMaintenance() []error {
	var errs []error
	m, err := o.Maintenance()
	if err != nil {
		return []error{wrapValueErr(err)}
	}
	bad := func(key, why string) {
		errs = append(errs, &optionValueError{key: key, value: o[key], why: why})
	}
	ints := []struct {
		key string
		p   *int
	}{{OptChangelogNumRetainedMin, m.ChangelogNumRetainedMin}, {OptChangelogNumRetainedMax, m.ChangelogNumRetainedMax},
		{OptTagNumRetainedMax, m.TagNumRetainedMax}}
	for _, x := range ints {
		if x.p != nil && *x.p < 1 {
			bad(x.key, "must be an integer of at least 1")
		}
	}
	if _, ok := o[OptPartitionExpirationMaxNum]; ok && m.PartitionExpirationMaxNum < 1 {
		bad(OptPartitionExpirationMaxNum, "must be an integer of at least 1")
	}
	if mn, mx := m.ChangelogRetainMin(), m.ChangelogRetainMax(); mn >= 1 && mx >= 1 && mx < mn &&
		(m.ChangelogNumRetainedMin != nil || m.ChangelogNumRetainedMax != nil) {
		bad(OptChangelogNumRetainedMax, "must not be less than changelog.num-retained.min")
	}
	durations := []struct {
		key string
		p   *time.Duration
	}{{OptChangelogTimeRetained, m.ChangelogTimeRetained}, {OptPartitionExpirationTime, m.PartitionExpirationTime},
		{OptTagDefaultTimeRetained, m.TagDefaultTimeRetained}, {OptConsumerExpirationTime, m.ConsumerExpirationTime}}
	for _, x := range durations {
		if x.p != nil && *x.p <= 0 {
			bad(x.key, "must be a positive duration (e.g. '1 d', '12 h')")
		}
	}
	if m.TagCreationPeriodDuration != nil && *m.TagCreationPeriodDuration < time.Hour {
		bad(OptTagCreationPeriodDuration, "must be at least 1 h")
	}
	return errs
}
