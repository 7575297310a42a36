package snapshot

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/lakesql/lakesql/internal/jackson"
)

// Tag mirrors org.apache.paimon.tag.Tag, the JSON file tag/tag-<name>: the
// tagged snapshot's JSON plus two optional fields. Java writes the two
// fields only when the tag has a retention time; a tag without one is the
// plain snapshot JSON.
type Tag struct {
	Snapshot
	// TagCreateTime is the Java LocalDateTime at which the tag was created
	// (writer's local time, no zone). It is held in a time.Time whose
	// location is UTC; only its wall-clock fields are meaningful.
	TagCreateTime *time.Time
	// TagTimeRetained is how long the tag is kept after TagCreateTime.
	TagTimeRetained *time.Duration
}

// tagFields are the snapshot fields followed by the two tag fields, the
// order of Tag's @JsonCreator.
var tagFields = append(append([]fieldCodec(nil), snapshotFields...),
	fieldCodec{
		key:      "tagCreateTime",
		nullable: true,
		isNull:   func(t *Tag) bool { return t.TagCreateTime == nil },
		decode: func(t *Tag, v *jackson.Node) error {
			tm, err := decodeLocalDateTime("tagCreateTime", v)
			if err != nil {
				return err
			}
			t.TagCreateTime = &tm
			return nil
		},
		encode: func(w *jackson.Writer, t *Tag, _ int) { encodeLocalDateTime(w, *t.TagCreateTime) },
	},
	fieldCodec{
		key:      "tagTimeRetained",
		nullable: true,
		isNull:   func(t *Tag) bool { return t.TagTimeRetained == nil },
		decode: func(t *Tag, v *jackson.Node) error {
			d, err := decodeJavaDuration("tagTimeRetained", v)
			if err != nil {
				return err
			}
			t.TagTimeRetained = &d
			return nil
		},
		encode: func(w *jackson.Writer, t *Tag, _ int) {
			w.Raw(jacksonDurationSeconds(*t.TagTimeRetained))
		},
	},
)

// DecodeTag parses a tag file. Errors wrap ErrCorrupt and name the field.
func DecodeTag(data []byte) (*Tag, error) {
	return decodeObject(data, tagFields, "tag")
}

// EncodeTag renders t exactly as Java Paimon writes a tag file.
func EncodeTag(t *Tag) ([]byte, error) {
	if t == nil {
		return nil, fmt.Errorf("snapshot: EncodeTag of a nil tag")
	}
	return encodeObject(t, tagFields, "tag")
}

// NewTag builds the tag of snapshot s. With a retention time the tag records
// createTime and the retention (Java: Tag.fromSnapshotAndTagTtl); without
// one it is the plain snapshot, as Java's TagManager writes it so that old
// readers can read it.
func NewTag(s *Snapshot, retained *time.Duration, createTime time.Time) *Tag {
	t := &Tag{Snapshot: *s}
	if retained != nil {
		ct := LocalDateTime(createTime)
		d := *retained
		t.TagCreateTime = &ct
		t.TagTimeRetained = &d
	}
	return t
}

// LocalDateTime converts t to the representation used for Java
// LocalDateTime values: t's wall clock in its own location, held in UTC.
func LocalDateTime(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
}

// TimeRetainedString formats the retention the way Java's Duration.toString
// does ("PT4S", "PT1H30M", "PT0.5S"), the $tags.time_retained column; ""
// when the tag has no retention.
func (t *Tag) TimeRetainedString() string {
	if t.TagTimeRetained == nil {
		return ""
	}
	return JavaDurationString(*t.TagTimeRetained)
}

// decodeLocalDateTime accepts Jackson's array form [y, M, d, H, m(, s(,
// nanos))] and the ISO string form "2024-01-02T03:04:05.123".
func decodeLocalDateTime(key string, v *jackson.Node) (time.Time, error) {
	switch v.Kind {
	case jackson.Array:
		if len(v.Elems) < 5 || len(v.Elems) > 7 {
			return time.Time{}, fmt.Errorf("field %q: want 5 to 7 numbers, got %d elements", key, len(v.Elems))
		}
		var p [7]int64
		for i := range v.Elems {
			n, err := fieldInt64(key, &v.Elems[i])
			if err != nil {
				return time.Time{}, err
			}
			p[i] = n
		}
		if p[0] < -999999999 || p[0] > 999999999 || p[1] < 1 || p[1] > 12 || p[2] < 1 || p[2] > 31 ||
			p[3] < 0 || p[3] > 23 || p[4] < 0 || p[4] > 59 || p[5] < 0 || p[5] > 59 || p[6] < 0 || p[6] > 999999999 {
			return time.Time{}, fmt.Errorf("field %q: date-time %v out of range", key, p[:len(v.Elems)])
		}
		tm := time.Date(int(p[0]), time.Month(p[1]), int(p[2]), int(p[3]), int(p[4]), int(p[5]), int(p[6]), time.UTC)
		if tm.Day() != int(p[2]) {
			return time.Time{}, fmt.Errorf("field %q: invalid date %d-%d-%d", key, p[0], p[1], p[2])
		}
		return tm, nil
	case jackson.String:
		for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02T15:04"} {
			if tm, err := time.ParseInLocation(layout, v.Text, time.UTC); err == nil {
				return tm, nil
			}
		}
		return time.Time{}, fmt.Errorf("field %q: %q is not an ISO local date-time", key, v.Text)
	}
	return time.Time{}, fmt.Errorf("field %q: want a date-time array or string, got %s", key, v.Kind)
}

// encodeLocalDateTime writes Jackson's LocalDateTimeSerializer array form:
// seconds are written only when seconds or nanos are non-zero, nanos only
// when non-zero.
func encodeLocalDateTime(w *jackson.Writer, t time.Time) {
	w.BeginArray()
	for _, n := range []int{t.Year(), int(t.Month()), t.Day(), t.Hour(), t.Minute()} {
		w.Int(int64(n))
	}
	if t.Second() > 0 || t.Nanosecond() > 0 {
		w.Int(int64(t.Second()))
		if t.Nanosecond() > 0 {
			w.Int(int64(t.Nanosecond()))
		}
	}
	w.EndArray()
}

// decodeJavaDuration accepts Jackson's decimal-seconds form (4.000000000,
// also integers and exponents) and the ISO-8601 string form (PT4S).
func decodeJavaDuration(key string, v *jackson.Node) (time.Duration, error) {
	switch v.Kind {
	case jackson.Number:
		r, ok := new(big.Rat).SetString(v.Text)
		if !ok {
			return 0, fmt.Errorf("field %q: %q is not a number", key, v.Text)
		}
		r.Mul(r, big.NewRat(int64(time.Second), 1))
		// Truncate to whole nanoseconds, as Jackson does.
		q := new(big.Int).Quo(r.Num(), r.Denom())
		if !q.IsInt64() {
			return 0, fmt.Errorf("field %q: duration %s s does not fit a time.Duration", key, v.Text)
		}
		return time.Duration(q.Int64()), nil
	case jackson.String:
		d, err := parseISODuration(v.Text)
		if err != nil {
			return 0, fmt.Errorf("field %q: %v", key, err)
		}
		return d, nil
	}
	return 0, fmt.Errorf("field %q: want a number of seconds, got %s", key, v.Kind)
}

// jacksonDurationSeconds renders d like Jackson's DurationSerializer with
// WRITE_DURATIONS_AS_TIMESTAMPS: DecimalUtils.toBigDecimal(seconds, nanos)
// printed by BigDecimal.toString ("4.000000000", "0.0", "1E-9").
func jacksonDurationSeconds(d time.Duration) string {
	neg := d < 0
	abs := uint64(d)
	if neg {
		abs = uint64(-d) // two's complement also handles MinInt64
	}
	secs, nanos := abs/uint64(time.Second), abs%uint64(time.Second)
	if secs == 0 && nanos == 0 {
		return "0.0"
	}
	// Unscaled value with scale 9.
	unscaled := strconv.FormatUint(secs*1e9+nanos, 10)
	sign := ""
	if neg {
		sign = "-"
	}
	const scale = 9
	adjusted := len(unscaled) - 1 - scale
	if adjusted >= -6 {
		if len(unscaled) <= scale {
			return sign + "0." + strings.Repeat("0", scale-len(unscaled)) + unscaled
		}
		return sign + unscaled[:len(unscaled)-scale] + "." + unscaled[len(unscaled)-scale:]
	}
	// Scientific notation, as BigDecimal.toString does for tiny values.
	mant := unscaled[:1]
	if len(unscaled) > 1 {
		mant += "." + unscaled[1:]
	}
	return sign + mant + "E" + strconv.Itoa(adjusted)
}

// JavaDurationString formats d as java.time.Duration.toString does.
func JavaDurationString(d time.Duration) string {
	if d == 0 {
		return "PT0S"
	}
	// Java keeps seconds (floor) and a non-negative nano adjustment.
	secs := int64(d / time.Second)
	nanos := int64(d % time.Second)
	if nanos < 0 {
		nanos += int64(time.Second)
		secs--
	}
	eff := secs
	if secs < 0 && nanos > 0 {
		eff++
	}
	hours := eff / 3600
	minutes := (eff % 3600) / 60
	sec := eff % 60
	var b strings.Builder
	b.WriteString("PT")
	if hours != 0 {
		b.WriteString(strconv.FormatInt(hours, 10))
		b.WriteByte('H')
	}
	if minutes != 0 {
		b.WriteString(strconv.FormatInt(minutes, 10))
		b.WriteByte('M')
	}
	if sec == 0 && nanos == 0 && b.Len() > 2 {
		return b.String()
	}
	if secs < 0 && nanos > 0 && sec == 0 {
		b.WriteString("-0")
	} else {
		b.WriteString(strconv.FormatInt(sec, 10))
	}
	if nanos > 0 {
		var n int64
		if secs < 0 {
			n = 2*int64(time.Second) - nanos
		} else {
			n = nanos + int64(time.Second)
		}
		frac := strings.TrimRight(strconv.FormatInt(n, 10), "0")
		b.WriteByte('.')
		b.WriteString(frac[1:])
	}
	b.WriteByte('S')
	return b.String()
}

// parseISODuration parses the subset of ISO-8601 durations Java's
// Duration.parse accepts: [-]P[nD][T[nH][nM][n[.f]S]].
func parseISODuration(s string) (time.Duration, error) {
	orig := s
	neg := false
	if strings.HasPrefix(s, "-") {
		neg, s = true, s[1:]
	} else if strings.HasPrefix(s, "+") {
		s = s[1:]
	}
	if len(s) < 2 || (s[0] != 'P' && s[0] != 'p') {
		return 0, fmt.Errorf("%q is not an ISO-8601 duration", orig)
	}
	s = s[1:]
	total := new(big.Rat)
	inTime := false
	seen := false
	for len(s) > 0 {
		if s[0] == 'T' || s[0] == 't' {
			if inTime {
				return 0, fmt.Errorf("%q is not an ISO-8601 duration", orig)
			}
			inTime = true
			s = s[1:]
			continue
		}
		i := 0
		for i < len(s) && (s[i] == '-' || s[i] == '+' || s[i] == '.' || s[i] == ',' || (s[i] >= '0' && s[i] <= '9')) {
			i++
		}
		if i == 0 || i == len(s) {
			return 0, fmt.Errorf("%q is not an ISO-8601 duration", orig)
		}
		num, ok := new(big.Rat).SetString(strings.ReplaceAll(s[:i], ",", "."))
		if !ok {
			return 0, fmt.Errorf("%q is not an ISO-8601 duration", orig)
		}
		var unit int64
		switch u := s[i] | 0x20; {
		case u == 'd' && !inTime:
			unit = int64(24 * time.Hour)
		case u == 'h' && inTime:
			unit = int64(time.Hour)
		case u == 'm' && inTime:
			unit = int64(time.Minute)
		case u == 's' && inTime:
			unit = int64(time.Second)
		default:
			return 0, fmt.Errorf("%q is not an ISO-8601 duration", orig)
		}
		total.Add(total, num.Mul(num, big.NewRat(unit, 1)))
		seen = true
		s = s[i+1:]
	}
	if !seen {
		return 0, fmt.Errorf("%q is not an ISO-8601 duration", orig)
	}
	q := new(big.Int).Quo(total.Num(), total.Denom())
	if !q.IsInt64() {
		return 0, fmt.Errorf("duration %q does not fit a time.Duration", orig)
	}
	d := time.Duration(q.Int64())
	if neg {
		d = -d
	}
	return d, nil
}
