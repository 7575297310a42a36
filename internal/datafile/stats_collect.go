package datafile

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"

	"github.com/lakesql/lakesql/internal/schema"
)

// StatsMode is a Paimon column statistics mode (`metadata.stats-mode`,
// `fields.<col>.stats-mode`), mirroring org.apache.paimon.statistics
// SimpleColStatsCollector.from: none, counts, full or truncate(N).
type StatsMode struct {
	Kind StatsKind
	// Truncate is N of truncate(N).
	Truncate int
}

// StatsKind is the kind of a StatsMode.
type StatsKind uint8

// The stats mode kinds.
const (
	StatsTruncate StatsKind = iota // default: truncate(16)
	StatsNone
	StatsCounts
	StatsFull
)

// Default stats modes: value columns default to truncate(16); the system and
// key columns of primary-key files always use truncate(128)
// (KeyValueFileWriterFactory / SpecialFields).
var (
	DefaultStatsMode = StatsMode{Kind: StatsTruncate, Truncate: 16}
	KeyStatsMode     = StatsMode{Kind: StatsTruncate, Truncate: 128}
)

// String renders the mode as Paimon spells it.
func (m StatsMode) String() string {
	switch m.Kind {
	case StatsNone:
		return "none"
	case StatsCounts:
		return "counts"
	case StatsFull:
		return "full"
	}
	return "truncate(" + strconv.Itoa(m.Truncate) + ")"
}

// ParseStatsMode parses a stats mode as Paimon does (case-insensitive):
// "none", "counts", "full", "truncate(N)" with N > 0. The empty string is
// the default truncate(16).
func ParseStatsMode(s string) (StatsMode, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	switch t {
	case "":
		return DefaultStatsMode, nil
	case "none":
		return StatsMode{Kind: StatsNone}, nil
	case "counts":
		return StatsMode{Kind: StatsCounts}, nil
	case "full":
		return StatsMode{Kind: StatsFull}, nil
	}
	if strings.HasPrefix(t, "truncate(") && strings.HasSuffix(t, ")") {
		n, err := strconv.Atoi(t[len("truncate(") : len(t)-1])
		if err == nil && n > 0 {
			return StatsMode{Kind: StatsTruncate, Truncate: n}, nil
		}
	}
	return StatsMode{}, fmt.Errorf("%w: unknown stats mode %q (want none, counts, full or truncate(N))", ErrInvalidSchema, s)
}

// Apply converts the statistics read from (or implied by) a file footer the
// way the mode's collector does (SimpleColStatsCollector.convert): none drops
// everything (NullCount -1), counts keeps only the null count, full keeps all,
// truncate(N) truncates string bounds to N code points, the maximum rounded
// up; when no upper bound exists both bounds are dropped.
func (m StatsMode) Apply(s ColumnStats) ColumnStats {
	switch m.Kind {
	case StatsNone:
		return ColumnStats{NullCount: -1}
	case StatsCounts:
		return ColumnStats{NullCount: s.NullCount}
	case StatsFull:
		return s
	}
	lo, hi := s.Min, s.Max
	if str, ok := lo.(string); ok {
		lo = TruncateMin(str, m.Truncate)
	}
	if str, ok := hi.(string); ok {
		up, ok := TruncateMax(str, m.Truncate)
		if !ok {
			return ColumnStats{NullCount: s.NullCount}
		}
		hi = up
	}
	if hi == nil {
		lo = nil
	}
	return ColumnStats{Min: lo, Max: hi, NullCount: s.NullCount}
}

// TruncateMin is the first n code points of s (BinaryString.substring).
func TruncateMin(s string, n int) string {
	i, count := 0, 0
	for i < len(s) && count < n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		count++
	}
	return s[:i]
}

// TruncateMax is an upper bound of s of at most n code points: s itself when
// it is not longer, else its first n code points with the last one that can
// be incremented incremented (and the rest dropped), mirroring
// TruncateSimpleColStatsCollector.truncateMax. ok is false when no code point
// can be incremented.
func TruncateMax(s string, n int) (string, bool) {
	t := TruncateMin(s, n)
	if len(t) == len(s) {
		return s, true
	}
	runes := []rune(t)
	for i := len(runes) - 1; i >= 0; i-- {
		next := runes[i] + 1
		// Java's codePointAt sees a lone surrogate as itself; Go decodes
		// invalid UTF-8 as U+FFFD, which still increments to a valid code
		// point. Surrogates are not valid code points in Go strings.
		if next >= 0xD800 && next <= 0xDFFF {
			next = 0xE000
		}
		if next <= utf8.MaxRune {
			runes = append(runes[:i], next)
			return string(runes), true
		}
	}
	return "", false
}

// colCollector accumulates the statistics of one flat column while writing,
// over the values as stored in the file (so they equal what the footer
// implies: millisecond timestamps lose their nanos, and so on).
type colCollector struct {
	kind     leafKind
	t        schema.DataType
	scale    int32
	nulls    int64
	n        int64 // non-null values
	sawNaN   bool  // a float NaN was written: bounds are unknown
	minI     int64
	maxI     int64
	minF     float64
	maxF     float64
	minS     string
	maxS     string
	minB     []byte
	maxB     []byte
	noBounds bool // binary and INT96 columns: bounds are never known
	nested   bool // nested columns: nothing is known
	tracking bool // the stats mode keeps min/max
}

func newColCollector(w *wnode, mode StatsMode) *colCollector {
	c := &colCollector{kind: w.kind, t: w.t, scale: w.scale}
	c.nested = w.kind == 0
	switch w.kind {
	case leafBinary, leafTimestampInt96:
		c.noBounds = true
	}
	c.tracking = mode.Kind == StatsTruncate || mode.Kind == StatsFull
	return c
}

// add accounts for one stored value of a flat column.
func (c *colCollector) add(v *parquet.Value) {
	if v.IsNull() {
		c.nulls++
		return
	}
	if !c.tracking || c.noBounds {
		c.n++
		return
	}
	switch c.kind {
	case leafBool:
		b := int64(0)
		if v.Boolean() {
			b = 1
		}
		c.addInt(b)
	case leafInt8, leafInt16, leafInt32, leafDecimal32, leafDate, leafTime:
		c.addInt(int64(v.Int32()))
	case leafInt64, leafDecimal64, leafTimestampMillis, leafTimestampMicros:
		c.addInt(v.Int64())
	case leafFloat:
		c.addFloat(float64(v.Float()))
	case leafDouble:
		c.addFloat(v.Double())
	case leafString:
		c.addString(v.ByteArray())
	case leafDecimalFixed:
		c.addSigned(v.ByteArray())
	}
}

func (c *colCollector) addInt(v int64) {
	if c.n == 0 {
		c.minI, c.maxI = v, v
	} else if v < c.minI {
		c.minI = v
	} else if v > c.maxI {
		c.maxI = v
	}
	c.n++
}

// addFloat tracks float bounds. A NaN makes them unknown: parquet-mr
// orders NaN above everything when writing and drops NaN bounds when
// reading a footer (Statistics.getBuilderForReading), so Java ends with no
// min/max for such a column.
func (c *colCollector) addFloat(v float64) {
	switch {
	case math.IsNaN(v):
		c.sawNaN = true
	case c.n == 0:
		c.minF, c.maxF = v, v
	case v < c.minF:
		c.minF = v
	case v > c.maxF:
		c.maxF = v
	}
	c.n++
}

// floatBounds applies parquet-mr's reading rule for zero bounds: a zero
// minimum reads as -0.0 and a zero maximum as +0.0.
func (c *colCollector) floatBounds() (lo, hi float64) {
	lo, hi = c.minF, c.maxF
	if lo == 0 {
		lo = math.Copysign(0, -1)
	}
	if hi == 0 {
		hi = 0
	}
	return lo, hi
}

// addString compares without converting; only a new bound is copied.
func (c *colCollector) addString(v []byte) {
	if c.n == 0 {
		c.minS, c.maxS = string(v), string(v)
	} else if string(v) < c.minS {
		c.minS = string(v)
	} else if string(v) > c.maxS {
		c.maxS = string(v)
	}
	c.n++
}

func (c *colCollector) addSigned(v []byte) {
	if c.n == 0 {
		c.minB = append(c.minB[:0], v...)
		c.maxB = append(c.maxB[:0], v...)
	} else if compareSigned(v, c.minB) < 0 {
		c.minB = append(c.minB[:0], v...)
	} else if compareSigned(v, c.maxB) > 0 {
		c.maxB = append(c.maxB[:0], v...)
	}
	c.n++
}

// footer is the statistics the file footer implies for the column, before
// the stats mode is applied (ParquetSimpleStatsExtractor.toFieldStats).
func (c *colCollector) footer() ColumnStats {
	if c.nested {
		return ColumnStats{NullCount: -1}
	}
	s := ColumnStats{NullCount: c.nulls}
	if c.n == 0 || c.noBounds || !c.tracking || c.sawNaN {
		return s
	}
	switch c.kind {
	case leafBool:
		s.Min, s.Max = c.minI != 0, c.maxI != 0
	case leafInt8:
		s.Min, s.Max = int8(c.minI), int8(c.maxI)
	case leafInt16:
		s.Min, s.Max = int16(c.minI), int16(c.maxI)
	case leafInt32:
		s.Min, s.Max = int32(c.minI), int32(c.maxI)
	case leafInt64:
		s.Min, s.Max = c.minI, c.maxI
	case leafFloat:
		lo, hi := c.floatBounds()
		s.Min, s.Max = float32(lo), float32(hi)
	case leafDouble:
		s.Min, s.Max = c.floatBounds()
	case leafDecimal32, leafDecimal64:
		s.Min, s.Max = schema.Decimal{Compact: c.minI, Scale: c.scale}, schema.Decimal{Compact: c.maxI, Scale: c.scale}
	case leafDecimalFixed:
		s.Min, s.Max = decimalFromBytes(c.minB, c.scale), decimalFromBytes(c.maxB, c.scale)
	case leafString:
		s.Min, s.Max = c.minS, c.maxS
	case leafDate:
		s.Min, s.Max = schema.Date(c.minI), schema.Date(c.maxI)
	case leafTime:
		s.Min, s.Max = schema.Time(c.minI), schema.Time(c.maxI)
	case leafTimestampMillis:
		s.Min, s.Max = schema.Timestamp{Millis: c.minI}, schema.Timestamp{Millis: c.maxI}
	case leafTimestampMicros:
		s.Min, s.Max = schema.TimestampFromEpochMicros(c.minI), schema.TimestampFromEpochMicros(c.maxI)
	}
	return s
}
