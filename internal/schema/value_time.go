package schema

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Helpers for Date, Time and Timestamp, with Java's java.time text forms.

const (
	millisPerDay  = 86_400_000
	nanosPerMilli = 1_000_000
)

// FloorDiv is Java's Math.floorDiv: a / b rounded toward negative
// infinity (epoch arithmetic of dates and times before 1970).
func FloorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// FloorMod is Java's Math.floorMod: a - FloorDiv(a, b)*b, with b's sign.
func FloorMod(a, b int64) int64 { return a - FloorDiv(a, b)*b }

// TimestampFromTime returns the instant t (for TIMESTAMP_LTZ, or for
// TIMESTAMP when t is a UTC wall clock).
func TimestampFromTime(t time.Time) Timestamp {
	sec, nsec := t.Unix(), int64(t.Nanosecond())
	return Timestamp{Millis: sec*1000 + nsec/nanosPerMilli, NanoOfMilli: int32(nsec % nanosPerMilli)}
}

// TimestampFromWallClock returns the TIMESTAMP (no zone) whose wall clock
// is t's wall clock in t's own location (LocalDateTime semantics).
func TimestampFromWallClock(t time.Time) Timestamp {
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	return TimestampFromTime(time.Date(y, mo, d, h, mi, s, t.Nanosecond(), time.UTC))
}

// TimestampFromEpochMillis returns the timestamp at epoch milliseconds ms.
func TimestampFromEpochMillis(ms int64) Timestamp { return Timestamp{Millis: ms} }

// TimestampFromEpochMicros returns the timestamp at epoch microseconds us.
func TimestampFromEpochMicros(us int64) Timestamp {
	return Timestamp{Millis: FloorDiv(us, 1000), NanoOfMilli: int32(FloorMod(us, 1000) * 1000)}
}

// TimestampFromEpochNanos returns the timestamp at epoch nanoseconds n
// (millis = floor(n / 10^6), see paimon-format.md §5.5).
func TimestampFromEpochNanos(n int64) Timestamp {
	return Timestamp{Millis: FloorDiv(n, nanosPerMilli), NanoOfMilli: int32(FloorMod(n, nanosPerMilli))}
}

// ToTime returns the timestamp as a UTC time.Time (for TIMESTAMP the UTC
// wall clock is the value).
func (ts Timestamp) ToTime() time.Time {
	sec := FloorDiv(ts.Millis, 1000)
	nsec := FloorMod(ts.Millis, 1000)*nanosPerMilli + int64(ts.NanoOfMilli)
	return time.Unix(sec, nsec).UTC()
}

// EpochNanos returns the epoch nanoseconds; it wraps outside the years
// 1677..2262 (use Millis/NanoOfMilli there).
func (ts Timestamp) EpochNanos() int64 {
	return ts.Millis*nanosPerMilli + int64(ts.NanoOfMilli)
}

// EpochMicros returns the epoch microseconds (floor).
func (ts Timestamp) EpochMicros() int64 {
	return ts.Millis*1000 + int64(ts.NanoOfMilli)/1000
}

// Compare orders by millis, then nanos: -1, 0, +1.
func (ts Timestamp) Compare(o Timestamp) int {
	switch {
	case ts.Millis < o.Millis:
		return -1
	case ts.Millis > o.Millis:
		return 1
	case ts.NanoOfMilli < o.NanoOfMilli:
		return -1
	case ts.NanoOfMilli > o.NanoOfMilli:
		return 1
	}
	return 0
}

// Truncate keeps precision fraction digits (0..9) like Java's
// DateTimeUtils.truncate (digits dropped toward zero of the millis and
// nanos fields).
func (ts Timestamp) Truncate(precision int) Timestamp {
	switch {
	case precision >= 9:
		return ts
	case precision <= 3:
		p := Pow10[3-max(precision, 0)]
		return Timestamp{Millis: ts.Millis / p * p}
	default:
		p := int32(Pow10[9-precision])
		return Timestamp{Millis: ts.Millis, NanoOfMilli: ts.NanoOfMilli / p * p}
	}
}

// String formats like Java's LocalDateTime.toString of the UTC wall clock:
// "2024-01-01T00:00", "2024-01-01T10:20:30", "...T10:20:30.123",
// "...T10:20:30.123456", "...T10:20:30.123456789".
func (ts Timestamp) String() string {
	t := ts.ToTime()
	b := appendJavaDate(nil, t)
	b = append(b, 'T')
	return string(appendJavaLocalTime(b, t.Hour(), t.Minute(), t.Second(), t.Nanosecond()))
}

func appendJavaDate(b []byte, t time.Time) []byte {
	y, m, d := t.Date()
	switch {
	case y > 9999:
		b = append(b, '+')
		b = strconv.AppendInt(b, int64(y), 10)
	case y < 0:
		b = append(b, '-')
		b = appendPad(b, int64(-y), 4)
	default:
		b = appendPad(b, int64(y), 4)
	}
	b = append(b, '-')
	b = appendPad(b, int64(m), 2)
	b = append(b, '-')
	return appendPad(b, int64(d), 2)
}

func appendPad(b []byte, v int64, width int) []byte {
	s := strconv.FormatInt(v, 10)
	for i := len(s); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

// appendJavaLocalTime formats like LocalTime.toString.
func appendJavaLocalTime(b []byte, h, m, s, nano int) []byte {
	b = appendPad(b, int64(h), 2)
	b = append(b, ':')
	b = appendPad(b, int64(m), 2)
	if s == 0 && nano == 0 {
		return b
	}
	b = append(b, ':')
	b = appendPad(b, int64(s), 2)
	switch {
	case nano == 0:
	case nano%1_000_000 == 0:
		b = append(b, '.')
		b = appendPad(b, int64(nano/1_000_000), 3)
	case nano%1000 == 0:
		b = append(b, '.')
		b = appendPad(b, int64(nano/1000), 6)
	default:
		b = append(b, '.')
		b = appendPad(b, int64(nano), 9)
	}
	return b
}

// FormatTimestamp formats like Paimon's cast of a timestamp to STRING
// (DateTimeUtils.formatTimestamp): "yyyy-MM-dd HH:mm:ss" and, when
// precision > 0, the fraction with trailing zeros removed but never shorter
// than precision digits.
func FormatTimestamp(ts Timestamp, precision int) string {
	t := ts.ToTime()
	b := appendJavaDate(nil, t)
	b = append(b, ' ')
	b = appendPad(b, int64(t.Hour()), 2)
	b = append(b, ':')
	b = appendPad(b, int64(t.Minute()), 2)
	b = append(b, ':')
	b = appendPad(b, int64(t.Second()), 2)
	if precision > 0 {
		frac := appendPad(nil, int64(t.Nanosecond()), 9)
		for len(frac) > precision && frac[len(frac)-1] == '0' {
			frac = frac[:len(frac)-1]
		}
		b = append(b, '.')
		b = append(b, frac...)
	}
	return string(b)
}

// ParseTimestamp parses "yyyy-MM-dd", "yyyy-MM-dd HH:mm[:ss[.f...]]" or the
// same with 'T' (as a UTC wall clock), up to 9 fraction digits.
func ParseTimestamp(s string) (Timestamp, error) {
	t := strings.TrimSpace(s)
	datePart, timePart := t, ""
	if i := strings.IndexAny(t, "T "); i >= 0 {
		datePart, timePart = t[:i], strings.TrimSpace(t[i+1:])
	}
	d, err := ParseDate(datePart)
	if err != nil {
		return Timestamp{}, fmt.Errorf("%w: timestamp %q", ErrInvalidValue, s)
	}
	var nanosOfDay int64
	if timePart != "" {
		nanosOfDay, err = parseTimeOfDay(timePart)
		if err != nil {
			return Timestamp{}, fmt.Errorf("%w: timestamp %q: %v", ErrInvalidValue, s, err)
		}
	}
	millis := int64(d)*millisPerDay + nanosOfDay/nanosPerMilli
	return Timestamp{Millis: millis, NanoOfMilli: int32(nanosOfDay % nanosPerMilli)}, nil
}

func parseTimeOfDay(s string) (int64, error) {
	main, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		main, frac = s[:i], s[i+1:]
	}
	parts := strings.Split(main, ":")
	if len(parts) < 2 || len(parts) > 3 || (frac != "" && len(parts) != 3) {
		return 0, fmt.Errorf("bad time of day")
	}
	limits := []int{23, 59, 59}
	var v [3]int
	for i, p := range parts {
		if len(p) != 2 {
			return 0, fmt.Errorf("bad time field %q", p)
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > limits[i] {
			return 0, fmt.Errorf("bad time field %q", p)
		}
		v[i] = n
	}
	if len(frac) > 9 || (len(parts) == 3 && strings.Contains(s, ".") && frac == "") {
		return 0, fmt.Errorf("bad fraction")
	}
	var nano int64
	for i := 0; i < 9; i++ {
		nano *= 10
		if i < len(frac) {
			c := frac[i]
			if c < '0' || c > '9' {
				return 0, fmt.Errorf("bad fraction")
			}
			nano += int64(c - '0')
		}
	}
	return (int64(v[0])*3600+int64(v[1])*60+int64(v[2]))*1_000_000_000 + nano, nil
}

// DateFromTime returns the DATE of t's wall clock date in t's location.
func DateFromTime(t time.Time) Date {
	y, m, d := t.Date()
	u := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	return Date(FloorDiv(u.Unix(), 86400))
}

// ToTime returns midnight UTC of the date.
func (d Date) ToTime() time.Time { return time.Unix(int64(d)*86400, 0).UTC() }

// String formats like LocalDate.toString: "2024-01-31".
func (d Date) String() string { return string(appendJavaDate(nil, d.ToTime())) }

// ParseDate parses "yyyy-MM-dd" (also a single-digit month or day).
func ParseDate(s string) (Date, error) {
	parts := strings.Split(strings.TrimSpace(s), "-")
	neg := false
	if len(parts) == 4 && parts[0] == "" {
		neg, parts = true, parts[1:]
	}
	if len(parts) != 3 {
		return 0, fmt.Errorf("%w: date %q", ErrInvalidValue, s)
	}
	y, err1 := strconv.Atoi(strings.TrimPrefix(parts[0], "+"))
	m, err2 := strconv.Atoi(parts[1])
	d, err3 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil || err3 != nil || m < 1 || m > 12 || d < 1 || d > 31 || y > 999_999_999 ||
		len(parts[1]) > 2 || len(parts[2]) > 2 {
		return 0, fmt.Errorf("%w: date %q", ErrInvalidValue, s)
	}
	if neg {
		y = -y
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d {
		return 0, fmt.Errorf("%w: date %q does not exist", ErrInvalidValue, s)
	}
	days := FloorDiv(t.Unix(), 86400)
	if days < -(1<<31) || days >= 1<<31 {
		return 0, fmt.Errorf("%w: date %q out of range", ErrInvalidValue, s)
	}
	return Date(days), nil
}

// String formats like LocalTime.toString: "10:20", "10:20:30", "10:20:30.500".
func (t Time) String() string {
	ms := FloorMod(int64(t), millisPerDay)
	return string(appendJavaLocalTime(nil, int(ms/3_600_000), int(ms/60_000%60), int(ms/1000%60), int(ms%1000)*nanosPerMilli))
}

// ParseTime parses "HH:mm[:ss[.fff]]"; digits below milliseconds are dropped.
func ParseTime(s string) (Time, error) {
	n, err := parseTimeOfDay(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("%w: time %q: %v", ErrInvalidValue, s, err)
	}
	return Time(n / nanosPerMilli), nil
}
