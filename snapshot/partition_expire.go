package snapshot

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/schema"
)

// PartitionExpireConfig configures partition expiration (Java:
// PartitionExpire with partition.expiration-* and partition.timestamp-*).
type PartitionExpireConfig struct {
	// ExpirationTime: a partition older than this expires.
	ExpirationTime time.Duration
	// Strategy: values-time (the time in the partition values) or
	// update-time (the newest file's creation time).
	Strategy schema.PartitionExpireStrategy
	// Formatter is partition.timestamp-formatter (a Java DateTimeFormatter
	// pattern such as "yyyyMMdd"); Pattern is partition.timestamp-pattern
	// ("$dt $hour:00:00"). nil: the first partition value, parsed as
	// yyyy-MM-dd[ HH:mm:ss[.S…]].
	Formatter, Pattern *string
	// MaxNum bounds the partitions one run expires.
	MaxNum int
}

// PartitionExpireConfigFromOptions is the configuration of a table's
// options; ok is false when partition.expiration-time is unset.
func PartitionExpireConfigFromOptions(m *schema.MaintenanceOptions) (PartitionExpireConfig, bool) {
	if m.PartitionExpirationTime == nil {
		return PartitionExpireConfig{}, false
	}
	return PartitionExpireConfig{
		ExpirationTime: *m.PartitionExpirationTime,
		Strategy:       m.PartitionExpirationStrategy,
		Formatter:      m.PartitionTimestampFormatter,
		Pattern:        m.PartitionTimestampPattern,
		MaxNum:         m.PartitionExpirationMaxNum,
	}, true
}

// ExpiredPartition is a partition to expire.
type ExpiredPartition struct {
	// Partition is the serialized partition row.
	Partition []byte
	// Spec is "k1=v1, k2=v2", as Paimon's procedure reports it.
	Spec string
}

// ExpiredPartitions selects the partitions of the latest snapshot that
// are expired at wall-clock time now (Java: PartitionExpire.doExpire with
// PartitionValuesTimeExpireStrategy or PartitionUpdateTimeExpireStrategy):
// sorted by their values, at most MaxNum. A partition whose values do not
// hold a time (or hold NULL) never expires by values-time.
func (t *Table) ExpiredPartitions(ctx context.Context, ts *schema.TableSchema, cfg PartitionExpireConfig, now time.Time) ([]ExpiredPartition, error) {
	if len(ts.PartitionKeys) == 0 {
		return nil, fmt.Errorf("%w: table is not partitioned", ErrInvalidConfig)
	}
	var extract func(keys, values []string) (time.Time, error)
	switch cfg.Strategy {
	case schema.PartitionExpireValuesTime, "":
		var err error
		if extract, err = partitionTimeExtractor(cfg.Pattern, cfg.Formatter); err != nil {
			return nil, err
		}
	case schema.PartitionExpireUpdateTime:
	default:
		return nil, fmt.Errorf("%w: partition.expiration-strategy %s is not supported", ErrInvalidConfig, cfg.Strategy)
	}
	latest, err := t.snapshots.Latest(ctx)
	if errors.Is(err, ErrSnapshotNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	live, _, err := t.Scan(ctx, latest, ScanOptions{})
	if err != nil {
		return nil, err
	}
	core, err := ts.Options.Core()
	if err != nil {
		return nil, err
	}
	fields := ts.PartitionFields()
	types := make([]schema.DataType, len(fields))
	keys := make([]string, len(fields))
	for i, f := range fields {
		types[i], keys[i] = f.Type, f.Name
	}
	codec, err := binaryrow.NewCodec(types)
	if err != nil {
		return nil, err
	}
	type part struct {
		row        []byte
		values     []string // nil entries are NULL
		nulls      bool
		lastCreate int64
	}
	parts := map[string]*part{}
	var order []string
	for i := range live {
		e := &live[i]
		p, ok := parts[string(e.Partition)]
		if !ok {
			vals, err := codec.DecodeSerialized(e.Partition)
			if err != nil {
				return nil, fmt.Errorf("%w: partition: %v", ErrCorrupt, err)
			}
			p = &part{row: e.Partition, values: make([]string, len(vals)), lastCreate: -1 << 63}
			for j, v := range vals {
				if v == nil {
					p.nulls = true
					p.values[j] = core.PartitionDefaultName
					continue
				}
				if p.values[j], err = schema.PartitionValueString(&types[j], v, core.PartitionDefaultName, true); err != nil {
					return nil, err
				}
			}
			parts[string(e.Partition)] = p
			order = append(order, string(e.Partition))
		}
		if e.File.CreationTime != nil && *e.File.CreationTime > p.lastCreate {
			p.lastCreate = *e.File.CreationTime
		}
	}
	expireAt := LocalDateTime(now).Add(-cfg.ExpirationTime)
	var out []ExpiredPartition
	var joined []string
	for _, k := range order {
		p := parts[k]
		switch cfg.Strategy {
		case schema.PartitionExpireUpdateTime:
			if expireAt.UnixMilli() <= p.lastCreate {
				continue
			}
		default:
			if p.nulls {
				continue
			}
			pt, err := extract(keys, p.values)
			if err != nil || !expireAt.After(pt) {
				continue
			}
		}
		var spec []string
		for j, key := range keys {
			spec = append(spec, key+"="+p.values[j])
		}
		out = append(out, ExpiredPartition{Partition: p.row, Spec: strings.Join(spec, ", ")})
		joined = append(joined, strings.Join(p.values, ","))
	}
	idx := make([]int, len(out))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return strings.Compare(joined[a], joined[b]) })
	sorted := make([]ExpiredPartition, 0, len(out))
	for _, i := range idx {
		sorted = append(sorted, out[i])
	}
	if cfg.MaxNum > 0 && len(sorted) > cfg.MaxNum {
		sorted = sorted[:cfg.MaxNum]
	}
	return sorted, nil
}

// partitionTimeExtractor returns Java's PartitionTimeExtractor: the
// timestamp text is pattern with each $key replaced by its value (the
// first value without a pattern), parsed with the Java DateTimeFormatter
// pattern formatter, or yyyy-M-d[ H:m:s[.S…]] without one.
func partitionTimeExtractor(pattern, formatter *string) (func(keys, values []string) (time.Time, error), error) {
	parse := parseDefaultPartitionTime
	if formatter != nil {
		f, err := javaTimeLayout(*formatter)
		if err != nil {
			return nil, err
		}
		parse = f.parse
	}
	return func(keys, values []string) (time.Time, error) {
		s := values[0]
		if pattern != nil {
			s = *pattern
			for i, k := range keys {
				s = strings.ReplaceAll(s, "$"+k, values[i])
			}
		}
		return parse(s)
	}, nil
}

var defaultPartitionTime = regexp.MustCompile(`^(\d{1,10})-(\d{1,2})-(\d{1,2})(?: (\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.(\d{1,9}))?)?$`)

// parseDefaultPartitionTime parses Java's lenient default partition
// timestamp; out-of-range fields roll over as the lenient resolver does.
func parseDefaultPartitionTime(s string) (time.Time, error) {
	m := defaultPartitionTime.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, fmt.Errorf("%q is not a date or timestamp", s)
	}
	n := func(i int) int {
		v, _ := strconv.Atoi(m[i])
		return v
	}
	nanos := 0
	if m[7] != "" {
		f := m[7] + strings.Repeat("0", 9-len(m[7]))
		nanos, _ = strconv.Atoi(f)
	}
	if m[4] == "" {
		return time.Date(n(1), time.Month(n(2)), n(3), 0, 0, 0, 0, time.UTC), nil
	}
	return time.Date(n(1), time.Month(n(2)), n(3), n(4), n(5), n(6), nanos, time.UTC), nil
}

// javaLayout is a parsed Java DateTimeFormatter pattern: numeric fields
// (y, M, d, H, m, s, S) and literals.
type javaLayout []javaField

type javaField struct {
	letter byte   // 0 for a literal
	width  int    // letter count
	lit    string // literal text
}

// javaTimeLayout parses the subset of DateTimeFormatter patterns partition
// formatters use: yyyy, yy, MM, M, dd, d, HH, H, mm, m, ss, s, S…, quoted
// and plain literals.
func javaTimeLayout(p string) (javaLayout, error) {
	var out javaLayout
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(p[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("%w: partition.timestamp-formatter %q: unterminated quote", ErrInvalidConfig, p)
			}
			lit := p[i+1 : i+1+j]
			if lit == "" {
				lit = "'"
			}
			out = append(out, javaField{lit: lit})
			i += j + 2
		case strings.IndexByte("yuMdHmsS", c) >= 0:
			j := i
			for j < len(p) && p[j] == c {
				j++
			}
			out = append(out, javaField{letter: c, width: j - i})
			i = j
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			return nil, fmt.Errorf("%w: partition.timestamp-formatter %q: pattern letter %q is not supported (use y, M, d, H, m, s, S)", ErrInvalidConfig, p, c)
		default:
			out = append(out, javaField{lit: string(c)})
			i++
		}
	}
	return out, nil
}

// parse reads s with the layout; missing time fields are midnight (Java
// falls back to LocalDate).
func (l javaLayout) parse(s string) (time.Time, error) {
	v := map[byte]int{'M': 1, 'd': 1}
	seen := map[byte]bool{}
	pos := 0
	for i, f := range l {
		if f.letter == 0 {
			if !strings.HasPrefix(s[pos:], f.lit) {
				return time.Time{}, fmt.Errorf("%q does not match the formatter", s)
			}
			pos += len(f.lit)
			continue
		}
		lo, hi := f.width, f.width
		adjacent := i+1 < len(l) && l[i+1].letter != 0
		if f.width == 1 && !adjacent {
			hi = 2
			if f.letter == 'y' || f.letter == 'u' {
				hi = 9
			}
		}
		if (f.letter == 'y' || f.letter == 'u') && f.width == 4 && !adjacent {
			hi = 9
		}
		j := pos
		for j < len(s) && j-pos < hi && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j-pos < lo {
			return time.Time{}, fmt.Errorf("%q does not match the formatter", s)
		}
		n, _ := strconv.Atoi(s[pos:j])
		letter := f.letter
		if letter == 'u' {
			letter = 'y'
		}
		if letter == 'y' && f.width == 2 {
			n += 2000
		}
		if letter == 'S' {
			n *= pow10(9 - (j - pos))
		}
		v[letter], seen[letter] = n, true
		pos = j
	}
	if pos != len(s) {
		return time.Time{}, fmt.Errorf("%q has text after the formatter's fields", s)
	}
	if !seen['y'] || !seen['M'] || !seen['d'] {
		return time.Time{}, fmt.Errorf("the formatter has no full date")
	}
	t := time.Date(v['y'], time.Month(v['M']), v['d'], v['H'], v['m'], v['s'], v['S'], time.UTC)
	if t.Month() != time.Month(v['M']) || t.Day() != v['d'] || v['H'] > 23 || v['m'] > 59 || v['s'] > 59 {
		return time.Time{}, fmt.Errorf("%q is not a valid date", s) // Java's SMART resolver
	}
	return t, nil
}

func pow10(n int) int {
	r := 1
	for range n {
		r *= 10
	}
	return r
}
