package lsmwrite

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/datafile"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// statsKind is the collector of a stats mode (Java SimpleColStatsCollector).
type statsKind uint8

const (
	statsNone statsKind = iota
	statsCounts
	statsFull
	statsTruncate
)

// statsMode is one parsed metadata.stats-mode value: none, counts, full or
// truncate(N).
type statsMode struct {
	kind statsKind
	n    int
}

// systemStatsMode is the mode of _KEY_*, _SEQUENCE_NUMBER and _VALUE_KIND
// (StatsCollectorFactories: system fields use truncate(128)).
var systemStatsMode = statsMode{kind: statsTruncate, n: 128}

func (m statsMode) String() string {
	switch m.kind {
	case statsNone:
		return "none"
	case statsCounts:
		return "counts"
	case statsFull:
		return "full"
	}
	return "truncate(" + strconv.Itoa(m.n) + ")"
}

// parseStatsMode parses a stats mode as SimpleColStatsCollector.from does
// (case-insensitive).
func parseStatsMode(s string) (statsMode, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	switch t {
	case "none":
		return statsMode{kind: statsNone}, nil
	case "counts":
		return statsMode{kind: statsCounts}, nil
	case "full":
		return statsMode{kind: statsFull}, nil
	}
	if inner, ok := strings.CutPrefix(t, "truncate("); ok {
		if inner, ok = strings.CutSuffix(inner, ")"); ok {
			n, err := strconv.Atoi(inner)
			if err == nil && n > 0 {
				return statsMode{kind: statsTruncate, n: n}, nil
			}
		}
	}
	return statsMode{}, fmt.Errorf("unexpected stats mode %q (none, counts, full or truncate(N))", s)
}

// parseStatsModes returns the stats mode of every table column, as
// StatsCollectorFactories.createStatsFactories does for the value columns:
// fields.<col>.stats-mode wins, then columns beyond
// metadata.stats-keep-first-n-columns get none, then metadata.stats-mode.
func parseStatsModes(sch *schema.TableSchema) ([]statsMode, error) {
	return parseStatsModesDefault(sch, sch.Options.MetadataStatsMode(), schema.OptMetadataStatsMode)
}

// parseStatsModesDefault is parseStatsModes with def (read from option key)
// in place of metadata.stats-mode: metadata.stats-mode.per.level gives
// each level its own default (KeyValueFileWriterFactory.statsProducer).
func parseStatsModesDefault(sch *schema.TableSchema, defMode, key string) ([]statsMode, error) {
	keepFirst := -1
	if v, ok := sch.Options[optStatsKeepFirstNColumns]; ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("%w: table option %s=%s is not an integer", schema.ErrInvalidOption, optStatsKeepFirstNColumns, v)
		}
		keepFirst = n
	}
	def, err := parseStatsMode(defMode)
	if err != nil {
		return nil, fmt.Errorf("%w: table option %s: %v", schema.ErrInvalidOption, key, err)
	}
	modes := make([]statsMode, len(sch.Fields))
	count := 0
	for i, f := range sch.Fields {
		key := schema.FieldKey(f.Name, "stats-mode")
		if v, ok := sch.Options[key]; ok {
			m, err := parseStatsMode(v)
			if err != nil {
				return nil, fmt.Errorf("%w: table option %s: %v", schema.ErrInvalidOption, key, err)
			}
			modes[i] = m
		} else if keepFirst >= 0 && count >= keepFirst {
			modes[i] = statsMode{kind: statsNone}
		} else {
			modes[i] = def
		}
		count++
	}
	return modes, nil
}

// colStats are the statistics of one column as stored in a manifest: min
// and max nil when unknown, nullCount nil when unknown.
type colStats struct {
	min, max  any
	nullCount *int64
}

func (c colStats) isNone() bool { return c.min == nil && c.max == nil && c.nullCount == nil }

// footerStats turns Parquet footer statistics into what Java's
// ParquetSimpleStatsExtractor reports for a column of type t: no bounds for
// BINARY/VARBINARY and INT96 timestamps (precision > 6), nothing at all for
// nested columns.
func footerStats(t *schema.DataType, s datafile.ColumnStats) colStats {
	var c colStats
	switch t.Root {
	case schema.TypeArray, schema.TypeMap, schema.TypeMultiset, schema.TypeRow, schema.TypeVariant, schema.TypeBlob:
		return c
	}
	if s.NullCount >= 0 {
		n := s.NullCount
		c.nullCount = &n
	}
	switch t.Root {
	case schema.TypeBinary, schema.TypeVarBinary:
		return c
	case schema.TypeTimestamp, schema.TypeLocalZonedTimestamp:
		if t.Precision > 6 {
			return c
		}
	}
	if s.Min != nil && s.Max != nil {
		c.min, c.max = s.Min, s.Max
	}
	return c
}

// apply converts footer statistics with a stats mode (Java
// SimpleColStatsCollector.convert).
func (m statsMode) apply(c colStats) colStats {
	switch m.kind {
	case statsNone:
		return colStats{}
	case statsCounts:
		return colStats{nullCount: c.nullCount}
	case statsFull:
		return c
	}
	minS, okMin := c.min.(string)
	maxS, okMax := c.max.(string)
	if !okMin && !okMax {
		return c
	}
	out := c
	if okMin {
		out.min = truncateMin(minS, m.n)
	}
	if okMax {
		v, ok := truncateMax(maxS, m.n)
		if !ok {
			return colStats{nullCount: c.nullCount}
		}
		out.max = v
	}
	return out
}

// truncateMin keeps the first n code points.
func truncateMin(s string, n int) string {
	i, cps := 0, 0
	for i < len(s) && cps < n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		cps++
	}
	return s[:i]
}

// truncateMax keeps s when it has at most n code points; otherwise the first
// n code points with the last one incremented (trying earlier positions
// when an increment is not a valid code point). ok is false when no position
// can be incremented (Java TruncateSimpleColStatsCollector.truncateMax).
func truncateMax(s string, n int) (string, bool) {
	if utf8.RuneCountInString(s) <= n {
		return s, true
	}
	rs := []rune(truncateMin(s, n))
	for i := len(rs) - 1; i >= 0; i-- {
		next := rs[i] + 1
		if next >= 0xD800 && next <= 0xDFFF {
			next = 0xE000 // Go strings cannot hold surrogates; skip to the next scalar value
		}
		if next <= utf8.MaxRune {
			rs = append(rs[:i], next)
			return string(rs), true
		}
	}
	return "", false
}

// statsBuilder encodes SimpleStats rows for a list of columns.
type statsBuilder struct {
	names []string
	types []schema.DataType // made nullable
	all   *binaryrow.Codec  // codec over all columns
	dense bool
}

func newStatsBuilder(fields []schema.DataField, dense bool) (*statsBuilder, error) {
	b := &statsBuilder{dense: dense}
	for _, f := range fields {
		b.names = append(b.names, f.Name)
		b.types = append(b.types, f.Type.WithNullable(true))
	}
	c, err := binaryrow.NewCodec(b.types)
	if err != nil {
		return nil, err
	}
	b.all = c
	return b, nil
}

// build encodes the stats of every column. In dense mode columns without
// any statistic are dropped and the kept column names are returned (nil when
// every column is kept), as SimpleStatsConverter.toBinaryDenseMode does.
func (b *statsBuilder) build(cols []colStats) (manifest.SimpleStats, []string, error) {
	keep := cols
	types := b.types
	codec := b.all
	var names []string
	if b.dense {
		n := 0
		for _, c := range cols {
			if !c.isNone() {
				n++
			}
		}
		if n < len(cols) {
			keep = make([]colStats, 0, n)
			types = make([]schema.DataType, 0, n)
			names = make([]string, 0, n)
			for i, c := range cols {
				if !c.isNone() {
					keep = append(keep, c)
					types = append(types, b.types[i])
					names = append(names, b.names[i])
				}
			}
			var err error
			if codec, err = binaryrow.NewCodec(types); err != nil {
				return manifest.SimpleStats{}, nil, err
			}
		}
	}
	mins := make([]any, len(keep))
	maxs := make([]any, len(keep))
	nulls := make([]*int64, len(keep))
	for i, c := range keep {
		mins[i], maxs[i], nulls[i] = c.min, c.max, c.nullCount
	}
	minRow, err := codec.AppendSerialized(nil, mins)
	if err != nil {
		return manifest.SimpleStats{}, nil, fmt.Errorf("min stats: %w", err)
	}
	maxRow, err := codec.AppendSerialized(nil, maxs)
	if err != nil {
		return manifest.SimpleStats{}, nil, fmt.Errorf("max stats: %w", err)
	}
	return manifest.SimpleStats{MinValues: minRow, MaxValues: maxRow, NullCounts: nulls}, names, nil
}
